/**
 * SQL for annotations on every target (docs/annotations.md, "one shape on every target"): spans,
 * traces, sessions and retrieved documents. One upsert on (target, name, identifier) — documents
 * add their position —, keyset lists of a project's annotations of one target kind, label counts
 * for the summaries, and a span's document annotations.
 */
import { sql, type InsertObject, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import type { DB } from '../schema.js';
import { allSpanRowidsBySpanId } from '../span-ids.js';
import { nanosLiteral, parseJsonColumn, sqlDialect } from '../sql-dialect.js';

export type AnnotatorKind = 'LLM' | 'CODE' | 'HUMAN';

/** What an annotation is on: a row of spans, traces or project_sessions, or one document of a span. */
export type AnnotationTarget =
  | { kind: 'span' | 'trace' | 'session'; rowid: number }
  | { kind: 'document'; rowid: number; position: number };

/** The target kinds a project's annotations are listed by. */
export type ListedTargetKind = 'span' | 'trace' | 'session';

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

/** An annotation as read back, with the natural key of its target (a span id, a trace id or a session.id text). */
export interface AnnotationRecord extends Omit<AnnotationFields, 'metadata'> {
  id: number;
  target: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface AnnotationListQuery {
  projectId: number;
  /** Natural keys of the targets: OpenTelemetry span or trace ids, or session.id texts. */
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

/** Which of a project's annotations of one target kind a filtered delete removes (every given condition, AND). */
export interface AnnotationDeleteFilter {
  projectId: number;
  name?: string | undefined;
  identifier?: string | undefined;
  annotatorKind?: AnnotatorKind | undefined;
  /** On created_at (ISO text, milliseconds): from inclusive, before exclusive. */
  createdFrom?: string | undefined;
  createdBefore?: string | undefined;
  /** Only the annotations this user wrote (a member deleting). */
  userId?: number | undefined;
}

/** Counts of one (name, label) pair of a project's span or trace annotations. */
export interface AnnotationLabelCount {
  target: 'span' | 'trace';
  name: string;
  label: string | null;
  count: number;
  scoreSum: number;
  scoreCount: number;
}

/** Each target kind's table, the column naming its target row, and for listed kinds the target's table and natural key. */
const TABLES = {
  span: { table: 'span_annotations', keyColumns: ['span_rowid'], targetTable: 'spans', targetRowid: 'span_rowid', targetKey: 'span_id' },
  trace: {
    table: 'trace_annotations',
    keyColumns: ['trace_rowid'],
    targetTable: 'traces',
    targetRowid: 'trace_rowid',
    targetKey: 'trace_id',
  },
  session: {
    table: 'session_annotations',
    keyColumns: ['project_session_rowid'],
    targetTable: 'project_sessions',
    targetRowid: 'project_session_rowid',
    targetKey: 'session_id',
  },
  document: { table: 'document_annotations', keyColumns: ['span_rowid', 'document_position'] },
} as const;

/** The columns that name an annotation's target row (and a document's position). */
function targetColumns(target: AnnotationTarget) {
  switch (target.kind) {
    case 'span':
      return { span_rowid: target.rowid };
    case 'trace':
      return { trace_rowid: target.rowid };
    case 'session':
      return { project_session_rowid: target.rowid };
    case 'document':
      return { span_rowid: target.rowid, document_position: target.position };
  }
}

export type AnnotationsRepository = ReturnType<typeof createAnnotationsRepository>;

/** Annotations repository (every target) over a Kysely connection (or transaction). */
/**
 * The upsert of annotations of one target kind on (target, name, identifier), not yet run: the
 * repository runs it for one, and the online evaluation job compiles it for a batch
 * (online-eval-repository.ts), one statement however many rows.
 */
export function annotationsUpsertQuery(
  db: Kysely<DB>,
  dialect: Dialect,
  rows: { target: AnnotationTarget; fields: AnnotationFields }[],
  now: string,
) {
  const json = sqlDialect(dialect).json;
  const kind = rows[0]!.target.kind;
  if (rows.some((row) => row.target.kind !== kind)) throw new Error('an annotation upsert takes rows of one target kind');
  const { table, keyColumns } = TABLES[kind];
  const values = rows.map(
    ({ target, fields }) =>
      ({
        label: fields.label,
        score: fields.score,
        explanation: fields.explanation,
        metadata: json(fields.metadata),
        annotator_kind: fields.annotatorKind,
        source: fields.source,
        user_id: fields.userId,
        updated_at: now,
        name: fields.name,
        identifier: fields.identifier,
        created_at: now,
        ...targetColumns(target),
        // Span and document annotations carry their span's trace, so a trace's deletion reaches them by partition.
        ...(target.kind === 'span' || target.kind === 'document'
          ? { trace_rowid: sql<number>`(select spans.trace_rowid from spans where spans.id = ${target.rowid})` }
          : {}),
      }) as InsertObject<DB, 'document_annotations'>,
  );
  // The four tables share every column but their target's; the cast lets one statement serve them all.
  return db
    .insertInto(table as 'document_annotations')
    .values(values)
    .onConflict((oc) =>
      oc.columns(['name', ...keyColumns, 'identifier'] as 'span_rowid'[]).doUpdateSet((eb) => ({
        label: eb.ref('excluded.label'),
        score: eb.ref('excluded.score'),
        explanation: eb.ref('excluded.explanation'),
        metadata: eb.ref('excluded.metadata'),
        annotator_kind: eb.ref('excluded.annotator_kind'),
        source: eb.ref('excluded.source'),
        user_id: eb.ref('excluded.user_id'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    );
}

/** Annotations of a kind few enough on SQLite that a summary walks them rather than the range's targets. */
const FEW_ANNOTATIONS = 100_000;

export function createAnnotationsRepository(db: Kysely<DB>, dialect: Dialect) {
  const { unindexed } = sqlDialect(dialect);
  return {
    /** Inserts the annotation, or updates the one with the same target, name and identifier; returns its id. */
    async upsert(target: AnnotationTarget, input: AnnotationFields, now: string): Promise<number> {
      const row = await annotationsUpsertQuery(db, dialect, [{ target, fields: input }], now)
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },

    /** Annotations of the project's spans, traces or sessions, newest first. */
    async list(kind: ListedTargetKind, query: AnnotationListQuery): Promise<AnnotationRecord[]> {
      const { table, targetTable, targetRowid, targetKey } = TABLES[kind];
      // The three pairs of tables differ only in names; the casts let one statement serve them all.
      let select = db
        .selectFrom(`${table} as a` as 'trace_annotations as a')
        .innerJoin(`${targetTable} as t` as 'traces as t', 't.id', `a.${targetRowid}` as 'a.trace_rowid')
        .selectAll('a')
        .select(sql.ref<string>(`t.${targetKey}`).as('target'))
        // With targets, their ids lead: on SQLite a list of 100 trace ids walked the project's index
        // instead (6.2 s at 1.9M traces, the traces page's annotation columns).
        .where(query.targets?.length ? unindexed('t.project_id') : sql.ref<number>('t.project_id'), '=', query.projectId);
      if (query.targets?.length && kind === 'span') {
        // Span ids are looked up on their per-trace index first, then by row id (docs/partitioning.md).
        const rowids = await allSpanRowidsBySpanId(db, query.targets);
        if (rowids.length === 0) return [];
        select = select.where(sql.ref(`a.${targetRowid}`), 'in', rowids);
      } else if (query.targets?.length) {
        select = select.where(sql.ref(`t.${targetKey}`), 'in', query.targets);
      }
      if (query.identifiers?.length) select = select.where('a.identifier', 'in', query.identifiers);
      if (query.includeNames?.length) select = select.where('a.name', 'in', query.includeNames);
      if (query.excludeNames?.length) select = select.where('a.name', 'not in', query.excludeNames);
      if (query.fromId !== undefined) select = select.where('a.id', '<=', query.fromId);
      const rows = await select.orderBy('a.id', 'desc').limit(query.limit).execute();
      return rows.map((row) => toRecord(row as AnnotationRow));
    },

    /**
     * Counts per (name, label) of the annotations of the project's spans and traces that start
     * in the range (nanoseconds; start inclusive, end exclusive), notes left out.
     */
    async labelCounts(projectId: number, startTime: bigint | undefined, endTime: bigint | undefined): Promise<AnnotationLabelCount[]> {
      // Walked from the targets' (project, start time) index, with one probe per target, unless
      // SQLite holds few annotations of the kind: then from the annotations, one probe per
      // annotation (CROSS JOIN fixes SQLite's loop order), since a range of 10M spans took 1.6 to
      // 3.6 s to walk with no annotation in it (docs/performance.md). PostgreSQL plans from its
      // statistics.
      const counts = async (
        table: 'span_annotations' | 'trace_annotations',
        target: 'spans' | 'traces',
        rowid: 'span_rowid' | 'trace_rowid',
      ) => {
        const fromAnnotations =
          dialect === 'sqlite' &&
          Number(
            (
              await sql<{ n: number }>`select count(*) as n from (select 1 from ${sql.table(table)} limit ${FEW_ANNOTATIONS + 1})`.execute(
                db,
              )
            ).rows[0]?.n ?? 0,
          ) <= FEW_ANNOTATIONS;
        const from = db.selectFrom(`${table} as a` as 'span_annotations as a');
        const joined = fromAnnotations
          ? from.crossJoin(target as 'spans').whereRef(`${target}.id` as 'spans.id', '=', `a.${rowid}` as 'a.span_rowid')
          : from.innerJoin(target as 'spans', `${target}.id` as 'spans.id', `a.${rowid}` as 'a.span_rowid');
        let query = joined
          .select(['a.name', 'a.label'])
          .select((eb) => [
            eb.fn.countAll<string>().as('count'),
            eb.fn.sum<string | null>('a.score').as('score_sum'),
            eb.fn.count<string>('a.score').as('score_count'),
          ])
          .where(`${target}.project_id` as 'spans.project_id', '=', projectId)
          .where('a.name', '<>', 'note');
        if (startTime !== undefined) query = query.where(sql<boolean>`${sql.ref(`${target}.start_time`)} >= ${nanosLiteral(startTime)}`);
        if (endTime !== undefined) query = query.where(sql<boolean>`${sql.ref(`${target}.start_time`)} < ${nanosLiteral(endTime)}`);
        return query.groupBy(['a.name', 'a.label']).orderBy('a.name').orderBy('a.label').execute();
      };
      const [spanRows, traceRows] = await Promise.all([
        counts('span_annotations', 'spans', 'span_rowid'),
        counts('trace_annotations', 'traces', 'trace_rowid'),
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

    /**
     * Deletes at most `batch` of the project's span, trace or session annotations that match the
     * filter, oldest ids first; returns how many went. The caller repeats until fewer than
     * `batch` go, so no statement holds its locks for long whatever the number of matches.
     */
    async deleteMatching(kind: ListedTargetKind, filter: AnnotationDeleteFilter, batch: number): Promise<number> {
      const { table, targetTable, targetRowid } = TABLES[kind];
      // The three pairs of tables differ only in names; the casts let one statement serve them all.
      let victims = db
        .selectFrom(`${table} as a` as 'trace_annotations as a')
        .innerJoin(`${targetTable} as t` as 'traces as t', 't.id', `a.${targetRowid}` as 'a.trace_rowid')
        .select('a.id')
        .where('t.project_id', '=', filter.projectId);
      if (filter.name !== undefined) victims = victims.where('a.name', '=', filter.name);
      if (filter.identifier !== undefined) victims = victims.where('a.identifier', '=', filter.identifier);
      if (filter.annotatorKind !== undefined) victims = victims.where('a.annotator_kind', '=', filter.annotatorKind);
      if (filter.createdFrom !== undefined) victims = victims.where('a.created_at', '>=', filter.createdFrom);
      if (filter.createdBefore !== undefined) victims = victims.where('a.created_at', '<', filter.createdBefore);
      if (filter.userId !== undefined) victims = victims.where('a.user_id', '=', filter.userId);
      // One statement: the batch's ids chosen and deleted together (no parameters growing with the batch).
      const result = await db
        .deleteFrom(table as 'trace_annotations')
        .where('id', 'in', victims.orderBy('a.id').limit(batch))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
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
