/**
 * Annotations of traces, sessions and retrieved documents, and notes on spans, traces and
 * sessions (docs/annotations.md). Same rules as span annotations: upsert on (target, name,
 * identifier), a batch is all or nothing, an unknown target is 404 naming it, "note" is reserved.
 */
import { randomUUID } from 'node:crypto';
import { InvalidInputError, NotFoundError } from '@sightline/common';
import type { AnnotationFields, AnnotationRecord, AnnotationsRepository } from '../db/repositories/annotations-repository.js';
import type { WithTransaction } from '../db/repositories/index.js';
import type { ProjectSessionsRepository } from '../db/repositories/project-sessions-repository.js';
import type { SpansRepository } from '../db/repositories/spans-repository.js';
import type { TracesRepository } from '../db/repositories/traces-repository.js';
import type { Identifier } from './identifier.js';
import { parseTimeRange } from '../span-model/time.js';
import type { ProjectsService } from './projects-service.js';
import type { SessionsService } from './sessions-service.js';
import type { SpanAnnotationData } from './span-annotations-service.js';
import { MAX_FILTER_VALUES } from './span-annotations-service.js';
import type { AnnotationConfigsRepository } from '../db/repositories/annotation-configs-repository.js';
import { checkAgainstConfig } from './annotation-configs-service.js';

/** The body fields every annotation shares (Phoenix's AnnotationData). */
export type AnnotationData = Omit<SpanAnnotationData, 'span_id'>;
export type TraceAnnotationData = AnnotationData & { trace_id: string };
export type SessionAnnotationData = AnnotationData & { session_id: string };
export type DocumentAnnotationData = AnnotationData & { span_id: string; document_position: number };

/** A note: free text on one target; a blank identifier makes a new note, a given one replaces that note. */
export interface NoteData {
  note: string;
  identifier?: string | undefined;
}

export interface AnnotationListParams {
  limit: number;
  fromId?: number | undefined;
  /** Natural keys of the targets (trace ids or session.id texts). */
  targets?: string[] | undefined;
  identifier?: string[] | undefined;
  include_annotation_names?: string[] | undefined;
  exclude_annotation_names?: string[] | undefined;
}

/** What a project's annotations of one name say over a time range (docs/annotations.md, "Summaries"). */
export interface AnnotationSummary {
  name: string;
  /** Annotations of this name: on spans, on traces, both. */
  count: number;
  spanCount: number;
  traceCount: number;
  /** Mean of the scores given (null when none has a score). */
  meanScore: number | null;
  scoreCount: number;
  /** Labels by count, most frequent first (annotations without a label are not listed). */
  labels: { label: string; count: number }[];
}

/** The name Phoenix reserves for notes. */
const NOTE = 'note';

export type AnnotationsService = ReturnType<typeof createAnnotationsService>;

export interface AnnotationsServiceDependencies {
  annotations: AnnotationsRepository;
  spans: SpansRepository;
  traces: TracesRepository;
  sessions: Pick<SessionsService, 'resolve'>;
  projectSessions: ProjectSessionsRepository;
  projects: ProjectsService;
  withTransaction: WithTransaction;
  /** Writes are checked against the annotation config of the same name (docs/annotations.md, "Configs"). */
  configs: Pick<AnnotationConfigsRepository, 'findByNames'>;
  now?: () => string;
}

/** "a, b, c, and 7 more": the first ten of a list, for 404 messages. */
function shown(values: string[]): string {
  return values.slice(0, 10).join(', ') + (values.length > 10 ? `, and ${values.length - 10} more` : '');
}

/** The stored fields of an annotation item; 422 for a blank or reserved name. */
function fieldsOf(item: AnnotationData, index: number, userId: number | null): AnnotationFields {
  const name = item.name.trim();
  if (name === '') throw new InvalidInputError(`data[${index}].name must not be blank`);
  if (name === NOTE) throw new InvalidInputError(`data[${index}].name: the name "note" is reserved for notes (POST the *_notes routes)`);
  return {
    name,
    annotatorKind: item.annotator_kind,
    label: item.result?.label ?? null,
    score: item.result?.score ?? null,
    explanation: item.result?.explanation ?? null,
    metadata: item.metadata ?? {},
    identifier: item.identifier ?? '',
    source: item.source ?? 'API',
    userId,
  };
}

/** The stored fields of a note: a human's text in `explanation`, under a fresh identifier unless one is given. */
function noteFields(note: NoteData, kind: string, userId: number | null): AnnotationFields {
  const text = note.note.trim();
  if (text === '') throw new InvalidInputError('data.note must not be blank');
  const identifier = note.identifier?.trim() || `px-${kind}-note:${randomUUID()}`;
  return {
    name: NOTE,
    annotatorKind: 'HUMAN',
    label: null,
    score: null,
    explanation: text,
    metadata: {},
    identifier,
    source: 'API',
    userId,
  };
}

const lowerHex = (value: string) => value.trim().toLowerCase();

export function createAnnotationsService(deps: AnnotationsServiceDependencies) {
  const {
    annotations,
    spans,
    traces,
    sessions,
    projectSessions,
    projects,
    withTransaction,
    configs,
    now = () => new Date().toISOString(),
  } = deps;

  /** The fields of each item, checked against the config of its name (422 naming the item otherwise). */
  const checkedFields = async (items: AnnotationData[], userId: number | null): Promise<AnnotationFields[]> => {
    const fields = items.map((item, index) => fieldsOf(item, index, userId));
    const byName = await configs.findByNames([...new Set(fields.map((field) => field.name))]);
    return fields.map((field, index) => checkAgainstConfig(field, byName.get(field.name), `data[${index}].result`));
  };

  /** Row ids of the named spans; 404 naming those that do not exist. */
  const spanRowids = async (spanIds: string[]): Promise<Map<string, number>> => {
    const wanted = [...new Set(spanIds)];
    const rowids = await spans.rowidsBySpanId(wanted);
    const missing = wanted.filter((id) => !rowids.has(id));
    if (missing.length > 0) throw new NotFoundError(`spans not found: ${shown(missing)}`);
    return rowids;
  };

  /** Row ids of the named traces; 404 naming those that do not exist. */
  const traceRowids = async (traceIds: string[]): Promise<Map<string, number>> => {
    const wanted = [...new Set(traceIds)];
    const rowids = await traces.rowidsByTraceId(wanted);
    const missing = wanted.filter((id) => !rowids.has(id));
    if (missing.length > 0) throw new NotFoundError(`traces not found: ${shown(missing)}`);
    return rowids;
  };

  /** Row ids of the named sessions (session.id texts); 404 naming those that do not exist, 409 for an ambiguous one. */
  const sessionRowids = async (sessionIds: string[]): Promise<Map<string, number>> => {
    const rowids = new Map<string, number>();
    const missing: string[] = [];
    for (const text of new Set(sessionIds)) {
      try {
        rowids.set(text, (await sessions.resolve({ text, rowId: null })).id);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        missing.push(text);
      }
    }
    if (missing.length > 0) throw new NotFoundError(`sessions not found: ${shown(missing)}`);
    return rowids;
  };

  /** Checks the list filters as Phoenix does: at least one of targets or identifiers, at most 1000 of each. */
  const listFilters = (params: AnnotationListParams, targetName: string) => {
    const targets = [...new Set((params.targets ?? []).filter((value) => value !== ''))];
    const identifiers = [...new Set(params.identifier ?? [])];
    if (targets.length > MAX_FILTER_VALUES)
      throw new InvalidInputError(`too many ${targetName}: ${targets.length} (at most ${MAX_FILTER_VALUES})`);
    if (identifiers.length > MAX_FILTER_VALUES)
      throw new InvalidInputError(`too many identifiers: ${identifiers.length} (at most ${MAX_FILTER_VALUES})`);
    if (targets.length === 0 && identifiers.length === 0)
      throw new InvalidInputError(`at least one of ${targetName} or identifier is required`);
    return { targets, identifiers };
  };

  return {
    /** Per annotation name, over the project's span and trace annotations whose target starts in the range: counts, labels, mean score. */
    async summaries(
      projectIdentifier: Identifier,
      params: { start_time?: string | undefined; end_time?: string | undefined },
    ): Promise<AnnotationSummary[]> {
      const range = parseTimeRange(params);
      const project = await projects.resolve(projectIdentifier);
      const byName = new Map<string, AnnotationSummary & { scoreSum: number; labelCounts: Map<string, number> }>();
      for (const row of await annotations.labelCounts(project.id, range.start, range.end)) {
        let summary = byName.get(row.name);
        if (!summary) {
          summary = {
            name: row.name,
            count: 0,
            spanCount: 0,
            traceCount: 0,
            meanScore: null,
            scoreCount: 0,
            labels: [],
            scoreSum: 0,
            labelCounts: new Map(),
          };
          byName.set(row.name, summary);
        }
        summary.count += row.count;
        if (row.target === 'span') summary.spanCount += row.count;
        else summary.traceCount += row.count;
        summary.scoreSum += row.scoreSum;
        summary.scoreCount += row.scoreCount;
        if (row.label !== null) summary.labelCounts.set(row.label, (summary.labelCounts.get(row.label) ?? 0) + row.count);
      }
      return [...byName.values()]
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .map(({ scoreSum, labelCounts, ...summary }) => ({
          ...summary,
          meanScore: summary.scoreCount > 0 ? scoreSum / summary.scoreCount : null,
          labels: [...labelCounts]
            .map(([label, count]) => ({ label, count }))
            .sort((a, b) => b.count - a.count || (a.label < b.label ? -1 : 1)),
        }));
    },

    /** Upserts trace annotations in one transaction; ids in request order. 404 when a trace does not exist. */
    async annotateTraces(items: TraceAnnotationData[], userId: number | null): Promise<number[]> {
      const fields = await checkedFields(items, userId);
      const keys = items.map((item) => lowerHex(item.trace_id));
      if (items.length === 0) return [];
      const rowids = await traceRowids(keys);
      const timestamp = now();
      return withTransaction(async (trx) => {
        const ids: number[] = [];
        for (const [index, item] of fields.entries())
          ids.push(await trx.annotations.upsertTrace(rowids.get(keys[index]!)!, item, timestamp));
        return ids;
      });
    },

    /** Upserts session annotations (by session.id text) in one transaction. 404 when a session does not exist. */
    async annotateSessions(items: SessionAnnotationData[], userId: number | null): Promise<number[]> {
      const fields = await checkedFields(items, userId);
      const keys = items.map((item) => item.session_id.trim());
      if (items.length === 0) return [];
      const rowids = await sessionRowids(keys);
      const timestamp = now();
      return withTransaction(async (trx) => {
        const ids: number[] = [];
        for (const [index, item] of fields.entries())
          ids.push(await trx.annotations.upsertSession(rowids.get(keys[index]!)!, item, timestamp));
        return ids;
      });
    },

    /** Upserts annotations of documents (a span and a 0-based position) in one transaction. 404 when a span does not exist. */
    async annotateDocuments(items: DocumentAnnotationData[], userId: number | null): Promise<number[]> {
      const fields = await checkedFields(items, userId);
      const keys = items.map((item) => lowerHex(item.span_id));
      if (items.length === 0) return [];
      const rowids = await spanRowids(keys);
      const timestamp = now();
      return withTransaction(async (trx) => {
        const ids: number[] = [];
        for (const [index, item] of fields.entries()) {
          ids.push(await trx.annotations.upsertDocument(rowids.get(keys[index]!)!, items[index]!.document_position, item, timestamp));
        }
        return ids;
      });
    },

    /** Adds a note to a span (or replaces the note with the given identifier); returns the SpanAnnotation id. */
    async noteSpan(spanId: string, note: NoteData, userId: number | null): Promise<number> {
      const fields = noteFields(note, 'span', userId);
      const key = lowerHex(spanId);
      const rowid = (await spanRowids([key])).get(key)!;
      return withTransaction((trx) => trx.spanAnnotations.upsert({ ...fields, spanRowid: rowid }, now()));
    },

    /** Adds a note to a trace (or replaces the note with the given identifier); returns the TraceAnnotation id. */
    async noteTrace(traceId: string, note: NoteData, userId: number | null): Promise<number> {
      const fields = noteFields(note, 'trace', userId);
      const key = lowerHex(traceId);
      const rowid = (await traceRowids([key])).get(key)!;
      return annotations.upsertTrace(rowid, fields, now());
    },

    /** Adds a note to a session (by session.id text) or replaces the one with the given identifier; returns its id. */
    async noteSession(sessionId: string, note: NoteData, userId: number | null): Promise<number> {
      const fields = noteFields(note, 'session', userId);
      const key = sessionId.trim();
      const rowid = (await sessionRowids([key])).get(key)!;
      return annotations.upsertSession(rowid, fields, now());
    },

    /** Every annotation of one span's documents (Span GlobalID or OpenTelemetry span id), by position; 404 for an unknown span. */
    async listDocuments(spanIdentifier: Identifier): Promise<(AnnotationRecord & { documentPosition: number })[]> {
      const id = spanIdentifier.rowId;
      const span = id !== null ? await spans.findById(id) : await spans.findBySpanId(lowerHex(spanIdentifier.text));
      if (!span) throw new NotFoundError(`span ${JSON.stringify(spanIdentifier.text)} not found`);
      return annotations.listDocuments(span.id);
    },

    /** Annotations of the project's traces, newest first; 404 when only trace ids are given and none is in the project. */
    async listTrace(projectIdentifier: Identifier, params: AnnotationListParams): Promise<AnnotationRecord[]> {
      const { targets, identifiers } = listFilters({ ...params, targets: params.targets?.map(lowerHex) }, 'trace_ids');
      const project = await projects.resolve(projectIdentifier);
      const rows = await annotations.listTrace({
        projectId: project.id,
        targets,
        identifiers,
        includeNames: params.include_annotation_names,
        excludeNames: params.exclude_annotation_names,
        fromId: params.fromId,
        limit: params.limit + 1,
      });
      if (rows.length === 0 && targets.length > 0 && identifiers.length === 0 && !(await traces.anyInProject(project.id, targets)))
        throw new NotFoundError('none of the trace_ids is a trace of this project');
      return rows;
    },

    /** Annotations of the project's sessions, newest first; 404 when only session ids are given and none is in the project. */
    async listSession(projectIdentifier: Identifier, params: AnnotationListParams): Promise<AnnotationRecord[]> {
      const { targets, identifiers } = listFilters(params, 'session_ids');
      const project = await projects.resolve(projectIdentifier);
      const rows = await annotations.listSession({
        projectId: project.id,
        targets,
        identifiers,
        includeNames: params.include_annotation_names,
        excludeNames: params.exclude_annotation_names,
        fromId: params.fromId,
        limit: params.limit + 1,
      });
      if (rows.length === 0 && targets.length > 0 && identifiers.length === 0 && !(await projectSessions.anyInProject(project.id, targets)))
        throw new NotFoundError('none of the session_ids is a session of this project');
      return rows;
    },
  };
}
