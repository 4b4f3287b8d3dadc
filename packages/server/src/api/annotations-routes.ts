/**
 * Trace, session and document annotations and notes on spans, traces and sessions
 * (docs/annotations.md), Phoenix-compatible; span annotations have their own routes.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type TSchema, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AnnotationsService } from '../query/annotations-service.js';
import { identifier, toGlobalId, type GlobalType } from './global-id.js';
import { DEFAULT_LIMIT, cursorId, page } from './pagination.js';
import {
  presentAnnotationSummary,
  presentDocumentAnnotation,
  presentSessionAnnotation,
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
  SpanNoteData,
  TraceAnnotation,
  TraceAnnotationData,
  TraceNoteData,
} from './annotations-schemas.js';
import { Nullable, ProjectPath, endTimeParam, errors, limitParam, startTimeParam } from './query-schemas.js';

const SYNC = Type.Object({
  sync: Type.Optional(Type.Boolean({ default: false, description: 'Accepted for Phoenix compatibility; writes are always synchronous.' })),
});

/** The calling user's row id, recorded on what they write; null for system keys and with auth off. */
const userIdOf = (request: FastifyRequest): number | null => (request.principal?.kind === 'user' ? request.principal.user.id : null);

/** List query of trace or session annotations: the target filter is named after the target, as in Phoenix. */
const listQuery = (targets: 'trace_ids' | 'session_ids', description: string) =>
  Type.Object({
    [targets]: Type.Optional(Type.Array(Type.String(), { description: `${description} (repeat the parameter).` })),
    identifier: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Annotation identifiers (repeat the parameter).' })),
    include_annotation_names: Type.Optional(Type.Array(Type.String(), { description: 'Only annotations with these names.' })),
    exclude_annotation_names: Type.Optional(Type.Array(Type.String(), { description: 'No annotations with these names.' })),
    cursor: Type.Optional(
      Type.String({ description: 'The next_cursor of the previous page (an annotation id); an invalid cursor answers 422.' }),
    ),
    limit: limitParam,
  });

type ListQuery = {
  trace_ids?: string[];
  session_ids?: string[];
  identifier?: string[];
  include_annotation_names?: string[];
  exclude_annotation_names?: string[];
  cursor?: string;
  limit?: number;
};

export async function annotationsRoutes(instance: FastifyInstance, { annotations }: { annotations: AnnotationsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const inserted = (type: GlobalType, title: string) => Type.Object({ data: Type.Array(Inserted(type, title)) });
  const one = (type: GlobalType, title: string) => Type.Object({ data: Inserted(type, title) });
  const ids = (type: GlobalType, rows: number[]) => ({ data: rows.map((id) => ({ id: toGlobalId(type, id) })) });
  const annotate = <T extends TSchema>(
    tags: string[],
    operationId: string,
    summary: string,
    target: string,
    item: T,
    title: string,
    type: GlobalType,
  ) => ({
    schema: {
      tags,
      operationId,
      summary,
      description:
        `Creates each annotation, or updates the one with the same name, ${target} and identifier, in one transaction; ids in request ` +
        `order whatever \`sync\` says. All or nothing: 404 naming any ${target} that does not exist; the name "note" is reserved (422).`,
      querystring: SYNC,
      body: Type.Object({ data: Type.Array(item) }),
      response: { 200: inserted(type, title), ...errors(404, 409, 422) },
    },
  });

  app.post(
    '/v1/trace_annotations',
    annotate(
      ['traces'],
      'annotateTraces',
      'Create trace annotations',
      'trace',
      TraceAnnotationData,
      'InsertedTraceAnnotation',
      'TraceAnnotation',
    ),
    async (request) => ids('TraceAnnotation', await annotations.annotateTraces(request.body.data, userIdOf(request))),
  );

  app.post(
    '/v1/session_annotations',
    annotate(
      ['sessions'],
      'annotateSessions',
      'Create session annotations',
      'session',
      SessionAnnotationData,
      'InsertedSessionAnnotation',
      'ProjectSessionAnnotation',
    ),
    async (request) => ids('ProjectSessionAnnotation', await annotations.annotateSessions(request.body.data, userIdOf(request))),
  );

  app.post(
    '/v1/document_annotations',
    annotate(
      ['spans'],
      'annotateSpanDocuments',
      'Create span document annotations',
      'span',
      DocumentAnnotationData,
      'InsertedSpanDocumentAnnotation',
      'DocumentAnnotation',
    ),
    async (request) => ids('DocumentAnnotation', await annotations.annotateDocuments(request.body.data, userIdOf(request))),
  );

  const noteDescription = (target: string) =>
    `Adds a note (an annotation named "note", by a human, the text as its explanation) to the ${target}. Without an identifier ` +
    'each call adds a note; with one, the note of that identifier is replaced. 404 when the target does not exist.';

  app.post(
    '/v1/span_notes',
    {
      schema: {
        tags: ['spans'],
        operationId: 'createSpanNote',
        summary: 'Create a span note',
        description: noteDescription('span'),
        body: Type.Object({ data: SpanNoteData }),
        response: { 200: one('SpanAnnotation', 'InsertedSpanAnnotation'), ...errors(404, 422) },
      },
    },
    async (request) => {
      const { span_id, ...note } = request.body.data;
      return { data: { id: toGlobalId('SpanAnnotation', await annotations.noteSpan(span_id, note, userIdOf(request))) } };
    },
  );

  app.post(
    '/v1/trace_notes',
    {
      schema: {
        tags: ['traces'],
        operationId: 'createTraceNote',
        summary: 'Create a trace note',
        description: noteDescription('trace'),
        body: Type.Object({ data: TraceNoteData }),
        response: { 200: one('TraceAnnotation', 'InsertedTraceAnnotation'), ...errors(404, 422) },
      },
    },
    async (request) => {
      const { trace_id, ...note } = request.body.data;
      return { data: { id: toGlobalId('TraceAnnotation', await annotations.noteTrace(trace_id, note, userIdOf(request))) } };
    },
  );

  app.post(
    '/v1/session_notes',
    {
      schema: {
        tags: ['sessions'],
        operationId: 'createSessionNote',
        summary: 'Create a session note',
        description: noteDescription('session'),
        body: Type.Object({ data: SessionNoteData }),
        response: { 200: one('ProjectSessionAnnotation', 'InsertedSessionAnnotation'), ...errors(404, 409, 422) },
      },
    },
    async (request) => {
      const { session_id, ...note } = request.body.data;
      return { data: { id: toGlobalId('ProjectSessionAnnotation', await annotations.noteSession(session_id, note, userIdOf(request))) } };
    },
  );

  const listDescription = (targets: string) =>
    `Annotations of the project's ${targets}, newest first, keyset-paginated. At least one of ${targets.slice(0, -1)}_ids or ` +
    `identifier is required (422); at most 1000 of each. 404 when only ${targets.slice(0, -1)}_ids are given and none of them is in the project.`;

  app.get(
    '/v1/projects/:project_identifier/trace_annotations',
    {
      schema: {
        tags: ['annotations'],
        operationId: 'listTraceAnnotationsByTraceIds',
        summary: 'Get trace annotations filtered by trace_ids and/or identifier.',
        description: listDescription('traces'),
        params: ProjectPath,
        querystring: listQuery('trace_ids', 'OpenTelemetry trace ids'),
        response: { 200: Type.Object({ data: Type.Array(TraceAnnotation), next_cursor: Nullable(Type.String()) }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const query = request.query as ListQuery;
      const limit = query.limit ?? DEFAULT_LIMIT;
      const rows = await annotations.listTrace(identifier('Project', request.params.project_identifier), {
        ...query,
        targets: query.trace_ids,
        limit,
        fromId: cursorId('TraceAnnotation', query.cursor),
      });
      const result = page('TraceAnnotation', rows, limit);
      return { data: result.rows.map(presentTraceAnnotation), next_cursor: result.nextCursor };
    },
  );

  app.get(
    '/v1/projects/:project_identifier/session_annotations',
    {
      schema: {
        tags: ['annotations'],
        operationId: 'listSessionAnnotationsBySessionIds',
        summary: 'Get session annotations filtered by session_ids and/or identifier.',
        description: listDescription('sessions'),
        params: ProjectPath,
        querystring: listQuery('session_ids', 'session.id texts'),
        response: { 200: Type.Object({ data: Type.Array(SessionAnnotation), next_cursor: Nullable(Type.String()) }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const query = request.query as ListQuery;
      const limit = query.limit ?? DEFAULT_LIMIT;
      const rows = await annotations.listSession(identifier('Project', request.params.project_identifier), {
        ...query,
        targets: query.session_ids,
        limit,
        fromId: cursorId('ProjectSessionAnnotation', query.cursor),
      });
      const result = page('ProjectSessionAnnotation', rows, limit);
      return { data: result.rows.map(presentSessionAnnotation), next_cursor: result.nextCursor };
    },
  );

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
    async (request) => ({
      data: (await annotations.summaries(identifier('Project', request.params.project_identifier), request.query)).map(
        presentAnnotationSummary,
      ),
    }),
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
