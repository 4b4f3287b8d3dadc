/**
 * Annotations on every target — spans, traces, sessions, retrieved documents — and notes on
 * spans, traces and sessions (docs/annotations.md), Phoenix-compatible. One table of targets
 * drives every route: what differs between them is the name of the field that names the target.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static, type TSchema, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AnnotationInput, AnnotationsService, ListedTargetKind, TargetKind } from '../../annotations/annotations-service.js';
import type { AnnotationRecord } from '../../db/repositories/annotations-repository.js';
import { identifier, toGlobalId, type GlobalType } from '../shared/global-id.js';
import { DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { callerUserId, memberUserId } from '../shared/principal.js';
import { ANNOTATOR_KINDS, StringEnum, endTimeParam, errors, limitParam, Page, ProjectPath, startTimeParam } from '../shared/schemas.js';
import {
  presentAnnotationSummary,
  presentDocumentAnnotation,
  presentSessionAnnotation,
  presentSpanAnnotation,
  presentTraceAnnotation,
} from './annotations-presenters.js';
import {
  AnnotationSummary,
  DocumentAnnotation,
  DocumentAnnotationData,
  Inserted,
  SessionAnnotation,
  SessionAnnotationData,
  SessionNoteData,
  SpanAnnotation,
  SpanAnnotationData,
  SpanNoteData,
  TraceAnnotation,
  TraceAnnotationData,
  TraceNoteData,
} from './annotations-schemas.js';

const SYNC = Type.Object({
  sync: Type.Optional(Type.Boolean({ default: false, description: 'Accepted for Phoenix compatibility; writes are always synchronous.' })),
});

/** What the routes of one target kind are named and shaped like. */
interface TargetRoutes {
  /** The body field that names the target: `span_id`, `trace_id`, `session_id`. */
  field: 'span_id' | 'trace_id' | 'session_id';
  /** The target as a sentence names it. */
  noun: string;
  type: GlobalType;
  tags: string[];
  annotate: { path: string; operationId: string; summary: string; item: TSchema; inserted: string; conflicts: number[] };
}

const TARGETS: Record<TargetKind, TargetRoutes> = {
  span: {
    field: 'span_id',
    noun: 'span',
    type: 'SpanAnnotation',
    tags: ['spans'],
    annotate: {
      path: '/v1/span_annotations',
      operationId: 'annotateSpans',
      summary: 'Create span annotations',
      item: SpanAnnotationData,
      inserted: 'InsertedSpanAnnotation',
      conflicts: [],
    },
  },
  trace: {
    field: 'trace_id',
    noun: 'trace',
    type: 'TraceAnnotation',
    tags: ['traces'],
    annotate: {
      path: '/v1/trace_annotations',
      operationId: 'annotateTraces',
      summary: 'Create trace annotations',
      item: TraceAnnotationData,
      inserted: 'InsertedTraceAnnotation',
      conflicts: [],
    },
  },
  session: {
    field: 'session_id',
    noun: 'session',
    type: 'ProjectSessionAnnotation',
    tags: ['sessions'],
    annotate: {
      path: '/v1/session_annotations',
      operationId: 'annotateSessions',
      summary: 'Create session annotations',
      item: SessionAnnotationData,
      inserted: 'InsertedSessionAnnotation',
      // A session.id text that names sessions of several projects.
      conflicts: [409],
    },
  },
  document: {
    field: 'span_id',
    noun: 'span',
    type: 'DocumentAnnotation',
    tags: ['spans'],
    annotate: {
      path: '/v1/document_annotations',
      operationId: 'annotateSpanDocuments',
      summary: 'Create span document annotations',
      item: DocumentAnnotationData,
      inserted: 'InsertedSpanDocumentAnnotation',
      conflicts: [],
    },
  },
};

/** The list and note routes of the kinds a project's annotations are listed by. */
const LISTED: Record<
  ListedTargetKind,
  { list: string; remove: string; idsDescription: string; schema: TSchema; note: TSchema; noteOperation: string }
> = {
  span: {
    list: 'listSpanAnnotationsBySpanIds',
    remove: 'deleteSpanAnnotations',
    idsDescription: 'OpenTelemetry span ids',
    schema: SpanAnnotation,
    note: SpanNoteData,
    noteOperation: 'createSpanNote',
  },
  trace: {
    list: 'listTraceAnnotationsByTraceIds',
    remove: 'deleteTraceAnnotations',
    idsDescription: 'OpenTelemetry trace ids',
    schema: TraceAnnotation,
    note: TraceNoteData,
    noteOperation: 'createTraceNote',
  },
  session: {
    list: 'listSessionAnnotationsBySessionIds',
    remove: 'deleteSessionAnnotations',
    idsDescription: 'session.id texts',
    schema: SessionAnnotation,
    note: SessionNoteData,
    noteOperation: 'createSessionNote',
  },
};

const PRESENT: Record<ListedTargetKind, (annotation: AnnotationRecord) => object> = {
  span: presentSpanAnnotation,
  trace: presentTraceAnnotation,
  session: presentSessionAnnotation,
};

/** An annotation item of a request body as the service takes it. */
type AnnotationBody = Record<'span_id' | 'trace_id' | 'session_id', string | undefined> & {
  document_position?: number;
  name: string;
  annotator_kind: AnnotationInput['annotatorKind'];
  result?: AnnotationInput['result'];
  metadata?: AnnotationInput['metadata'];
  identifier?: string;
  source?: AnnotationInput['source'];
};

const toInput = (field: TargetRoutes['field'], item: AnnotationBody): AnnotationInput => ({
  target: item[field] ?? '',
  documentPosition: item.document_position,
  name: item.name,
  annotatorKind: item.annotator_kind,
  result: item.result,
  metadata: item.metadata,
  identifier: item.identifier,
  source: item.source,
});

/** The list query of a target kind: its id filter is named after the target, as in Phoenix. */
type ListQuery = Partial<Record<'span_ids' | 'trace_ids' | 'session_ids', string[]>> & {
  identifier?: string[];
  include_annotation_names?: string[];
  exclude_annotation_names?: string[];
  cursor?: string;
  limit?: number;
};

/** The filter of a bulk annotation delete, as Phoenix names it. */
const DeleteQuery = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, description: 'Only annotations of this name.' })),
  identifier: Type.Optional(Type.String({ minLength: 1, description: 'Only annotations with this identifier.' })),
  annotator_kind: Type.Optional(StringEnum(ANNOTATOR_KINDS, { description: 'Only annotations by this kind of annotator.' })),
  start_time: Type.Optional(
    Type.String({ description: "Inclusive lower bound on the annotations' created_at (ISO 8601; UTC without an offset)." }),
  ),
  end_time: Type.Optional(
    Type.String({ description: "Exclusive upper bound on the annotations' created_at (ISO 8601; UTC without an offset)." }),
  ),
  delete_all: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Acknowledges a delete not bounded by both start_time and end_time (the other filters still narrow it).',
    }),
  ),
});

export async function annotationsRoutes(instance: FastifyInstance, { annotations }: { annotations: AnnotationsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  for (const [kind, target] of Object.entries(TARGETS) as [TargetKind, TargetRoutes][]) {
    const { path, operationId, summary, item, inserted, conflicts } = target.annotate;
    app.post(
      path,
      {
        schema: {
          tags: target.tags,
          operationId,
          summary,
          description:
            `Creates each annotation, or updates the one with the same name, ${target.noun} and identifier, in one transaction; ids in ` +
            `request order whatever \`sync\` says. All or nothing: 404 naming any ${target.noun} that does not exist; the name "note" is reserved (422).`,
          querystring: SYNC,
          body: Type.Object({ data: Type.Array(item) }),
          response: { 200: Type.Object({ data: Type.Array(Inserted(target.type, inserted)) }), ...errors(404, ...conflicts, 422) },
        },
      },
      async (request) => {
        const items = (request.body as { data: AnnotationBody[] }).data.map((each) => toInput(target.field, each));
        const ids = await annotations.annotate(kind, items, callerUserId(request));
        return { data: ids.map((id) => ({ id: toGlobalId(target.type, id) })) };
      },
    );
  }

  for (const [kind, listed] of Object.entries(LISTED) as [ListedTargetKind, (typeof LISTED)[ListedTargetKind]][]) {
    const target = TARGETS[kind];
    const plural = `${kind}s`;
    const ids = `${kind}_ids` as const;

    app.post(
      `/v1/${kind}_notes`,
      {
        schema: {
          tags: target.tags,
          operationId: listed.noteOperation,
          summary: `Create a ${kind} note`,
          description:
            `Adds a note (an annotation named "note", by a human, the text as its explanation) to the ${kind}. Without an identifier ` +
            'each call adds a note; with one, the note of that identifier is replaced. 404 when the target does not exist.',
          body: Type.Object({ data: listed.note }),
          response: {
            200: Type.Object({ data: Inserted(target.type, target.annotate.inserted) }),
            ...errors(404, ...target.annotate.conflicts, 422),
          },
        },
      },
      async (request) => {
        const data = (request.body as { data: Record<string, string> & { note: string; identifier?: string } }).data;
        const id = await annotations.note(
          kind,
          data[target.field] ?? '',
          { note: data.note, identifier: data.identifier },
          callerUserId(request),
        );
        return { data: { id: toGlobalId(target.type, id) } };
      },
    );

    app.get(
      `/v1/projects/:project_identifier/${kind}_annotations`,
      {
        schema: {
          tags: ['annotations'],
          operationId: listed.list,
          summary: `Get ${kind} annotations filtered by ${ids} and/or identifier.`,
          description:
            `Annotations of the project's ${plural}, newest first, keyset-paginated. At least one of ${ids} or identifier is required ` +
            `(422); at most 1000 of each. 404 when only ${ids} are given and none of them is in the project.`,
          params: ProjectPath,
          querystring: Type.Object({
            [ids]: Type.Optional(Type.Array(Type.String(), { description: `${listed.idsDescription} (repeat the parameter).` })),
            identifier: Type.Optional(
              Type.Array(Type.String({ minLength: 1 }), { description: 'Annotation identifiers (repeat the parameter).' }),
            ),
            include_annotation_names: Type.Optional(Type.Array(Type.String(), { description: 'Only annotations with these names.' })),
            exclude_annotation_names: Type.Optional(Type.Array(Type.String(), { description: 'No annotations with these names.' })),
            cursor: Type.Optional(
              Type.String({ description: 'The next_cursor of the previous page (an annotation id); an invalid cursor answers 422.' }),
            ),
            limit: limitParam,
          }),
          response: { 200: Page(listed.schema), ...errors(404, 422) },
        },
      },
      async (request) => {
        const query = request.query as ListQuery;
        const limit = query.limit ?? DEFAULT_LIMIT;
        const rows = await annotations.list(
          kind,
          identifier('Project', (request.params as { project_identifier: string }).project_identifier),
          {
            targets: query[ids],
            identifiers: query.identifier,
            includeNames: query.include_annotation_names,
            excludeNames: query.exclude_annotation_names,
            limit,
            fromId: cursorId(target.type, query.cursor),
          },
        );
        return pageAnswer(target.type, rows, limit, PRESENT[kind]);
      },
    );

    app.delete(
      `/v1/projects/:project_identifier/${kind}_annotations`,
      {
        schema: {
          tags: ['annotations'],
          operationId: listed.remove,
          summary: `Delete ${kind} annotations in a project that match the supplied filter.`,
          description:
            `Deletes the project's ${kind} annotations that match every given filter; 204 even when none does. The delete must be ` +
            'bounded by both start_time and end_time (on created_at, start inclusive, end exclusive), or acknowledged with ' +
            'delete_all=true (422 otherwise). A member deletes only the annotations they wrote; admins and system keys delete all ' +
            'that match. Runs in batches of 1000: a failure part-way leaves the rest for a retry.',
          params: ProjectPath,
          querystring: DeleteQuery,
          response: { 204: Type.Null({ description: 'Deleted (or nothing matched)' }), ...errors(404, 422) },
        },
      },
      async (request, reply) => {
        const query = request.query as Static<typeof DeleteQuery>;
        await annotations.deleteMatching(
          kind,
          identifier('Project', (request.params as { project_identifier: string }).project_identifier),
          {
            name: query.name,
            identifier: query.identifier,
            annotatorKind: query.annotator_kind,
            startTime: query.start_time,
            endTime: query.end_time,
            deleteAll: query.delete_all,
          },
          memberUserId(request),
        );
        return reply.code(204).send(null);
      },
    );
  }

  app.get(
    '/v1/projects/:project_identifier/annotation_summaries',
    {
      schema: {
        tags: ['annotations'],
        operationId: 'getProjectAnnotationSummaries',
        summary: 'Summaries of the project annotations by name (Sightline)',
        description:
          "Per annotation name, over the annotations of the project's spans and traces that start in the range (notes left out): " +
          'how many, on spans and on traces, the count of each label (most frequent first) and the mean of the scores given.',
        params: ProjectPath,
        querystring: Type.Object({ start_time: startTimeParam, end_time: endTimeParam }),
        response: { 200: Type.Object({ data: Type.Array(AnnotationSummary) }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const range = { startTime: request.query.start_time, endTime: request.query.end_time };
      const summaries = await annotations.summaries(identifier('Project', request.params.project_identifier), range);
      return { data: summaries.map(presentAnnotationSummary) };
    },
  );

  app.get(
    '/v1/spans/:span_identifier/document_annotations',
    {
      schema: {
        tags: ['spans'],
        operationId: 'listSpanDocumentAnnotations',
        summary: "Get the annotations of a span's documents",
        description: "Every annotation of the span's retrieved documents, by position (Sightline route; Phoenix has none).",
        params: Type.Object({
          span_identifier: Type.String({ description: 'Span id (base64 "Span:<id>") or OpenTelemetry span id (16 hex digits).' }),
        }),
        response: { 200: Type.Object({ data: Type.Array(DocumentAnnotation) }), ...errors(404, 422) },
      },
    },
    async (request) => ({
      data: (await annotations.listDocuments(identifier('Span', request.params.span_identifier))).map(presentDocumentAnnotation),
    }),
  );
}
