/**
 * Annotations on every target — spans, traces, sessions and retrieved documents — and notes on
 * spans, traces and sessions (docs/annotations.md): one shape and one set of rules for all of
 * them. Upsert on (target, name, identifier); a batch is all or nothing; an unknown target is 404
 * naming it; "note" is reserved for notes; writes are checked against the annotation config of
 * their name.
 */
import { randomUUID } from 'node:crypto';
import { InvalidInputError, NotFoundError } from '@sightline/common';
import type {
  AnnotationFields,
  AnnotationRecord,
  AnnotationTarget,
  AnnotationsRepository,
  AnnotatorKind,
  ListedTargetKind,
} from '../db/repositories/annotations-repository.js';
import type { AnnotationConfigsRepository } from '../db/repositories/annotation-configs-repository.js';
import type { WithTransaction } from '../db/repositories/index.js';
import type { SessionsRepository } from '../db/repositories/sessions-repository.js';
import type { SpansRepository } from '../db/repositories/spans-repository.js';
import type { TracesRepository } from '../db/repositories/traces-repository.js';
import type { ProjectsService } from '../projects/projects-service.js';
import type { SessionsService } from '../sessions/sessions-service.js';
import type { Identifier } from '../shared/identifier.js';
import { parseTimeRange } from '../span-model/time.js';
import { checkAgainstConfig } from './annotation-configs-service.js';

export type { AnnotatorKind, ListedTargetKind };

/** What an annotation is on. */
export type TargetKind = AnnotationTarget['kind'];

/** One annotation to write: its target's natural key (a span or trace id, a session.id text) and what it says. */
export interface AnnotationInput {
  target: string;
  /** Documents only: the 0-based position of the document among the span's retrieved documents. */
  documentPosition?: number | undefined;
  name: string;
  annotatorKind: AnnotatorKind;
  result?:
    | { label?: string | null | undefined; score?: number | null | undefined; explanation?: string | null | undefined }
    | null
    | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  identifier?: string | undefined;
  /** Where the annotation was made: `APP` for the web UI, `API` (the default) otherwise. */
  source?: 'API' | 'APP' | undefined;
}

/** A note: free text on one target; a blank identifier makes a new note, a given one replaces that note. */
export interface NoteInput {
  note: string;
  identifier?: string | undefined;
}

export interface AnnotationListParams {
  limit: number;
  fromId?: number | undefined;
  /** Natural keys of the targets (span or trace ids, session.id texts). */
  targets?: string[] | undefined;
  identifiers?: string[] | undefined;
  includeNames?: string[] | undefined;
  excludeNames?: string[] | undefined;
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

/** The filter of a bulk delete of a project's annotations (Phoenix's deleteSpanAnnotations and siblings). */
export interface AnnotationDeleteParams {
  name?: string | undefined;
  identifier?: string | undefined;
  annotatorKind?: AnnotatorKind | undefined;
  /** On the annotations' created_at: start inclusive, end exclusive (ISO 8601). */
  startTime?: string | undefined;
  endTime?: string | undefined;
  /** Required unless both times are given: the caller means every matching annotation, whenever made. */
  deleteAll?: boolean | undefined;
}

/** Annotations one statement of a bulk delete removes: a few milliseconds of locks at a time. */
export const DELETE_BATCH = 1000;

/** Most targets or identifiers one list request may name (as Phoenix). */
export const MAX_FILTER_VALUES = 1000;
/** The name Phoenix reserves for notes. */
const NOTE = 'note';

export type AnnotationsService = ReturnType<typeof createAnnotationsService>;

export interface AnnotationsServiceDependencies {
  annotations: AnnotationsRepository;
  spans: SpansRepository;
  traces: TracesRepository;
  /** Session rows, for the "none of them is in the project" check of a list. */
  sessionRows: Pick<SessionsRepository, 'anyInProject'>;
  /** Resolves a session.id text (409 when it names sessions of several projects). */
  sessions: Pick<SessionsService, 'resolve'>;
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
function fieldsOf(item: AnnotationInput, index: number, userId: number | null): AnnotationFields {
  const name = item.name.trim();
  if (name === '') throw new InvalidInputError(`data[${index}].name must not be blank`);
  if (name === NOTE) throw new InvalidInputError(`data[${index}].name: the name "note" is reserved for notes (POST the *_notes routes)`);
  return {
    name,
    annotatorKind: item.annotatorKind,
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
function noteFields(note: NoteInput, kind: ListedTargetKind, userId: number | null): AnnotationFields {
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

/** An ISO created_at bound (milliseconds, as stored) that compares with stored text as the nanosecond time would. */
const createdAtBound = (nanos: bigint | undefined): string | undefined =>
  // Stored times have whole milliseconds: `>= t` and `< t` hold for them exactly when they do against t rounded up.
  nanos === undefined ? undefined : new Date(Number((nanos + 999_999n) / 1_000_000n)).toISOString();

/** A target's natural key as stored: OpenTelemetry ids in lower-case hex, session.id texts trimmed. */
const keyOf = (kind: TargetKind, text: string) => (kind === 'session' ? text.trim() : text.trim().toLowerCase());

export function createAnnotationsService(deps: AnnotationsServiceDependencies) {
  const {
    annotations,
    spans,
    traces,
    sessionRows,
    sessions,
    projects,
    withTransaction,
    configs,
    now = () => new Date().toISOString(),
  } = deps;

  /** Row ids of the named sessions; 404 naming those that do not exist, 409 for an ambiguous one. */
  const sessionRowids = async (sessionIds: string[]): Promise<Map<string, number>> => {
    const rowids = new Map<string, number>();
    for (const text of sessionIds) {
      try {
        rowids.set(text, (await sessions.resolve({ text, rowId: null })).id);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
    }
    return rowids;
  };

  /** Row ids of the named targets (natural keys as stored); 404 naming those that do not exist. */
  const rowidsOf = async (kind: TargetKind, keys: string[]): Promise<Map<string, number>> => {
    const wanted = [...new Set(keys)];
    const rowids =
      kind === 'trace'
        ? await traces.rowidsByTraceId(wanted)
        : kind === 'session'
          ? await sessionRowids(wanted)
          : await spans.rowidsBySpanId(wanted);
    const missing = wanted.filter((key) => !rowids.has(key));
    if (missing.length > 0) throw new NotFoundError(`${kind === 'document' ? 'span' : kind}s not found: ${shown(missing)}`);
    return rowids;
  };

  const targetOf = (kind: TargetKind, rowid: number, documentPosition: number | undefined): AnnotationTarget =>
    kind === 'document' ? { kind, rowid, position: documentPosition ?? 0 } : { kind, rowid };

  /** Whether any of the targets is in the project: tells "none of them is here" (404) from "none is annotated" (empty). */
  const anyInProject = (kind: ListedTargetKind, projectId: number, targets: string[]): Promise<boolean> =>
    kind === 'span'
      ? spans.anyInProject(projectId, targets)
      : kind === 'trace'
        ? traces.anyInProject(projectId, targets)
        : sessionRows.anyInProject(projectId, targets);

  return {
    /**
     * Creates or updates (same target, name and identifier) each annotation, in one transaction;
     * returns their ids in request order. 404 naming the targets that do not exist, 422 for the reserved name.
     */
    async annotate(kind: TargetKind, items: AnnotationInput[], userId: number | null): Promise<number[]> {
      const fields = items.map((item, index) => fieldsOf(item, index, userId));
      const byName = await configs.findByNames([...new Set(fields.map((field) => field.name))]);
      const checked = fields.map((field, index) => checkAgainstConfig(field, byName.get(field.name), `data[${index}].result`));
      if (items.length === 0) return [];
      const keys = items.map((item) => keyOf(kind, item.target));
      const rowids = await rowidsOf(kind, keys);
      const timestamp = now();
      return withTransaction(async (trx) => {
        const ids: number[] = [];
        for (const [index, field] of checked.entries()) {
          const target = targetOf(kind, rowids.get(keys[index]!)!, items[index]!.documentPosition);
          ids.push(await trx.annotations.upsert(target, field, timestamp));
        }
        return ids;
      });
    },

    /** Adds a note to a span, trace or session (or replaces the note with the given identifier); returns its id. */
    async note(kind: ListedTargetKind, target: string, note: NoteInput, userId: number | null): Promise<number> {
      const fields = noteFields(note, kind, userId);
      const key = keyOf(kind, target);
      const rowid = (await rowidsOf(kind, [key])).get(key)!;
      return annotations.upsert({ kind, rowid }, fields, now());
    },

    /**
     * Annotations of the project's spans, traces or sessions, newest first, filtered by targets
     * and/or identifiers (at least one is required, as in Phoenix). 404 when only targets are given
     * and none of them is in the project. Fetches limit + 1 rows.
     */
    async list(kind: ListedTargetKind, projectIdentifier: Identifier, params: AnnotationListParams): Promise<AnnotationRecord[]> {
      const targetName = `${kind}_ids`;
      const targets = [...new Set((params.targets ?? []).map((text) => keyOf(kind, text)).filter((key) => key !== ''))];
      const identifiers = [...new Set(params.identifiers ?? [])];
      if (targets.length > MAX_FILTER_VALUES)
        throw new InvalidInputError(`too many ${targetName}: ${targets.length} (at most ${MAX_FILTER_VALUES})`);
      if (identifiers.length > MAX_FILTER_VALUES)
        throw new InvalidInputError(`too many identifiers: ${identifiers.length} (at most ${MAX_FILTER_VALUES})`);
      if (targets.length === 0 && identifiers.length === 0)
        throw new InvalidInputError(`at least one of ${targetName} or identifier is required`);
      const project = await projects.resolve(projectIdentifier);
      const rows = await annotations.list(kind, {
        projectId: project.id,
        targets,
        identifiers,
        includeNames: params.includeNames,
        excludeNames: params.excludeNames,
        fromId: params.fromId,
        limit: params.limit + 1,
      });
      if (rows.length === 0 && targets.length > 0 && identifiers.length === 0 && !(await anyInProject(kind, project.id, targets)))
        throw new NotFoundError(`none of the ${targetName} is a ${kind} of this project`);
      return rows;
    },

    /**
     * Deletes the project's span, trace or session annotations that match every given condition,
     * in batches of DELETE_BATCH (each its own statement: a large delete neither holds long locks
     * nor stops ingest, but is not atomic); returns how many went. As Phoenix: 422 unless both
     * start_time and end_time bound the delete (on created_at) or delete_all is set; `ownerId`
     * (a member's user id) narrows it to the annotations that user wrote.
     */
    async deleteMatching(
      kind: ListedTargetKind,
      projectIdentifier: Identifier,
      params: AnnotationDeleteParams,
      ownerId: number | null,
    ): Promise<number> {
      const { start, end } = parseTimeRange(params);
      if (!params.deleteAll && (start === undefined || end === undefined))
        throw new InvalidInputError(
          'the delete is unbounded: set delete_all=true to acknowledge, or give both start_time and end_time to bound it',
        );
      for (const field of ['name', 'identifier'] as const)
        if (params[field] !== undefined && params[field] === '') throw new InvalidInputError(`${field} must not be empty when given`);
      const project = await projects.resolve(projectIdentifier);
      const filter = {
        projectId: project.id,
        name: params.name,
        identifier: params.identifier,
        annotatorKind: params.annotatorKind,
        createdFrom: createdAtBound(start),
        createdBefore: createdAtBound(end),
        userId: ownerId ?? undefined,
      };
      let total = 0;
      for (;;) {
        const deleted = await annotations.deleteMatching(kind, filter, DELETE_BATCH);
        total += deleted;
        if (deleted < DELETE_BATCH) return total;
      }
    },

    /** Every annotation of one span's documents (Span GlobalID or OpenTelemetry span id), by position; 404 for an unknown span. */
    async listDocuments(spanIdentifier: Identifier): Promise<(AnnotationRecord & { documentPosition: number })[]> {
      const id = spanIdentifier.rowId;
      const span = id !== null ? await spans.findById(id) : await spans.findBySpanId(keyOf('span', spanIdentifier.text));
      if (!span) throw new NotFoundError(`span ${JSON.stringify(spanIdentifier.text)} not found`);
      return annotations.listDocuments(span.id);
    },

    /** Per annotation name, over the project's span and trace annotations whose target starts in the range: counts, labels, mean score. */
    async summaries(
      projectIdentifier: Identifier,
      range: { startTime?: string | undefined; endTime?: string | undefined },
    ): Promise<AnnotationSummary[]> {
      const { start, end } = parseTimeRange(range);
      const project = await projects.resolve(projectIdentifier);
      const byName = new Map<string, AnnotationSummary & { scoreSum: number; labelCounts: Map<string, number> }>();
      for (const row of await annotations.labelCounts(project.id, start, end)) {
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
  };
}
