/**
 * SQL for trace, session and document annotations (docs/annotations.md): one upsert per target
 * on (target, name, identifier) — documents add their position — and keyset lists of a
 * project's trace and session annotations. Span annotations keep their own repository.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import type { DB } from '../schema.js';
import { nanosLiteral, parseJsonColumn, sqlDialect } from '../sql-dialect.js';
import type { AnnotatorKind } from './span-annotations-repository.js';

/** What every annotation carries, whatever its target. */
export interface AnnotationFields {
  name: string;
  annotatorKind: AnnotatorKind;
  label: string | null;
  score: number | null;
  explanation: string | null;
  metadata: Record<string, unknown>;
  identifier: string;
  source: 'API' | 'APP';
  userId: number | null;
}

/** An annotation as read back, with the natural key of its target (a trace id or a session.id text). */
export interface AnnotationRecord extends Omit<AnnotationFields, 'metadata'> {
  id: number;
  target: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface AnnotationListQuery {
  projectId: number;
  /** Natural keys of the targets: OpenTelemetry trace ids, or session.id texts. */
  targets?: string[] | undefined;
  identifiers?: string[] | undefined;
  includeNames?: string[] | undefined;
  excludeNames?: string[] | undefined;
  /** Start at this annotation id (inclusive), newest first. */
  fromId?: number | undefined;
  /** Rows to fetch (the caller asks for one more than the page size). */
  limit: number;
}

type AnnotationRow = {
  id: number;
  target: string;
  name: string;
  annotator_kind: AnnotatorKind;
  label: string | null;
  score: number | string | null;
  explanation: string | null;
  metadata: unknown;
  identifier: string;
  source: 'API' | 'APP';
  user_id: number | null;
  created_at: string;
  updated_at: string;
};

const toRecord = (row: AnnotationRow): AnnotationRecord => ({
  id: Number(row.id),
  target: row.target,
  name: row.name,
  annotatorKind: row.annotator_kind,
  label: row.label,
  score: row.score === null ? null : Number(row.score),
  explanation: row.explanation,
  metadata: parseJsonColumn<Record<string, unknown>>(row.metadata, {}),
  identifier: row.identifier,
  source: row.source,
  userId: row.user_id === null ? null : Number(row.user_id),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Counts of one (name, label) pair of a project's span or trace annotations. */
export interface AnnotationLabelCount {
  target: 'span' | 'trace';
  name: string;
  label: string | null;
  count: number;
  scoreSum: number;
  scoreCount: number;
}

export type AnnotationsRepository = ReturnType<typeof createAnnotationsRepository>;

/** Annotations repository (traces, sessions, documents) over a Kysely connection (or transaction). */
export function createAnnotationsRepository(db: Kysely<DB>, dialect: Dialect) {
  const sqlFor = sqlDialect(dialect);
  /** The columns an upsert overwrites: everything but the key and created_at. */
  const updatable = (input: AnnotationFields, now: string) => ({
    label: input.label,
    score: input.score,
    explanation: input.explanation,
    metadata: sqlFor.json(input.metadata),
    annotator_kind: input.annotatorKind,
    source: input.source,
    user_id: input.userId,
    updated_at: now,
  });

  return {
    /** Inserts the trace annotation, or updates the one with the same (name, trace, identifier); returns its id. */
    async upsertTrace(traceRowid: number, input: AnnotationFields, now: string): Promise<number> {
      const values = updatable(input, now);
      const row = await db
        .insertInto('trace_annotations')
        .values({ ...values, trace_rowid: traceRowid, name: input.name, identifier: input.identifier, created_at: now })
        .onConflict((oc) => oc.columns(['name', 'trace_rowid', 'identifier']).doUpdateSet(values))
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },

    /** Inserts the session annotation, or updates the one with the same (name, session, identifier); returns its id. */
    async upsertSession(sessionRowid: number, input: AnnotationFields, now: string): Promise<number> {
      const values = updatable(input, now);
      const row = await db
        .insertInto('session_annotations')
        .values({ ...values, project_session_rowid: sessionRowid, name: input.name, identifier: input.identifier, created_at: now })
        .onConflict((oc) => oc.columns(['name', 'project_session_rowid', 'identifier']).doUpdateSet(values))
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },

    /** Inserts the document annotation, or updates the one with the same (name, span, position, identifier); returns its id. */
    async upsertDocument(spanRowid: number, documentPosition: number, input: AnnotationFields, now: string): Promise<number> {
      const values = updatable(input, now);
      const row = await db
        .insertInto('document_annotations')
        .values((eb) => ({
          ...values,
          span_rowid: spanRowid,
          trace_rowid: eb.selectFrom('spans').select('spans.trace_rowid').where('spans.id', '=', spanRowid),
          document_position: documentPosition,
          name: input.name,
          identifier: input.identifier,
          created_at: now,
        }))
        .onConflict((oc) => oc.columns(['name', 'span_rowid', 'document_position', 'identifier']).doUpdateSet(values))
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },

    /** Annotations of the project's traces, newest first. */
    async listTrace(query: AnnotationListQuery): Promise<AnnotationRecord[]> {
      let select = db
        .selectFrom('trace_annotations as a')
        .innerJoin('traces', 'traces.id', 'a.trace_rowid')
        .selectAll('a')
        .select('traces.trace_id as target')
        .where('traces.project_id', '=', query.projectId);
      if (query.targets?.length) select = select.where('traces.trace_id', 'in', query.targets);
      if (query.identifiers?.length) select = select.where('a.identifier', 'in', query.identifiers);
      if (query.includeNames?.length) select = select.where('a.name', 'in', query.includeNames);
      if (query.excludeNames?.length) select = select.where('a.name', 'not in', query.excludeNames);
      if (query.fromId !== undefined) select = select.where('a.id', '<=', query.fromId);
      const rows = await select.orderBy('a.id', 'desc').limit(query.limit).execute();
      return rows.map((row) => toRecord(row as AnnotationRow));
    },

    /** Annotations of the project's sessions, newest first. */
    async listSession(query: AnnotationListQuery): Promise<AnnotationRecord[]> {
      let select = db
        .selectFrom('session_annotations as a')
        .innerJoin('project_sessions', 'project_sessions.id', 'a.project_session_rowid')
        .selectAll('a')
        .select('project_sessions.session_id as target')
        .where('project_sessions.project_id', '=', query.projectId);
      if (query.targets?.length) select = select.where('project_sessions.session_id', 'in', query.targets);
      if (query.identifiers?.length) select = select.where('a.identifier', 'in', query.identifiers);
      if (query.includeNames?.length) select = select.where('a.name', 'in', query.includeNames);
      if (query.excludeNames?.length) select = select.where('a.name', 'not in', query.excludeNames);
      if (query.fromId !== undefined) select = select.where('a.id', '<=', query.fromId);
      const rows = await select.orderBy('a.id', 'desc').limit(query.limit).execute();
      return rows.map((row) => toRecord(row as AnnotationRow));
    },

    /**
     * Counts per (name, label) of the annotations of the project's spans and traces that start
     * in the range (nanoseconds; start inclusive, end exclusive), notes left out: the range is
     * walked on the spans' and traces' (project, start time) indexes, then one probe per row.
     */
    async labelCounts(projectId: number, startTime: bigint | undefined, endTime: bigint | undefined): Promise<AnnotationLabelCount[]> {
      const inRange = (column: string) => [
        ...(startTime !== undefined ? [sql<boolean>`${sql.ref(column)} >= ${nanosLiteral(startTime)}`] : []),
        ...(endTime !== undefined ? [sql<boolean>`${sql.ref(column)} < ${nanosLiteral(endTime)}`] : []),
      ];
      let spans = db
        .selectFrom('span_annotations as a')
        .innerJoin('spans', 'spans.id', 'a.span_rowid')
        .select(['a.name', 'a.label'])
        .select((eb) => [
          eb.fn.countAll<string>().as('count'),
          eb.fn.sum<string | null>('a.score').as('score_sum'),
          eb.fn.count<string>('a.score').as('score_count'),
        ])
        .where('spans.project_id', '=', projectId)
        .where('a.name', '<>', 'note');
      for (const condition of inRange('spans.start_time')) spans = spans.where(condition);
      let traces = db
        .selectFrom('trace_annotations as a')
        .innerJoin('traces', 'traces.id', 'a.trace_rowid')
        .select(['a.name', 'a.label'])
        .select((eb) => [
          eb.fn.countAll<string>().as('count'),
          eb.fn.sum<string | null>('a.score').as('score_sum'),
          eb.fn.count<string>('a.score').as('score_count'),
        ])
        .where('traces.project_id', '=', projectId)
        .where('a.name', '<>', 'note');
      for (const condition of inRange('traces.start_time')) traces = traces.where(condition);
      const [spanRows, traceRows] = await Promise.all([
        spans.groupBy(['a.name', 'a.label']).orderBy('a.name').orderBy('a.label').execute(),
        traces.groupBy(['a.name', 'a.label']).orderBy('a.name').orderBy('a.label').execute(),
      ]);
      const toCount =
        (target: 'span' | 'trace') =>
        (row: {
          name: string;
          label: string | null;
          count: string | number;
          score_sum: string | number | null;
          score_count: string | number;
        }) => ({
          target,
          name: row.name,
          label: row.label,
          count: Number(row.count),
          scoreSum: Number(row.score_sum ?? 0),
          scoreCount: Number(row.score_count),
        });
      return [...spanRows.map(toCount('span')), ...traceRows.map(toCount('trace'))];
    },

    /** Annotations of one span's documents, by position then name (for reading back what was written). */
    async listDocuments(spanRowid: number): Promise<(AnnotationRecord & { documentPosition: number })[]> {
      const rows = await db
        .selectFrom('document_annotations as a')
        .innerJoin('spans', 'spans.id', 'a.span_rowid')
        .selectAll('a')
        .select('spans.span_id as target')
        .where('a.span_rowid', '=', spanRowid)
        .orderBy('a.document_position')
        .orderBy('a.id')
        .execute();
      return rows.map((row) => ({ ...toRecord(row as unknown as AnnotationRow), documentPosition: Number(row.document_position) }));
    },
  };
}
