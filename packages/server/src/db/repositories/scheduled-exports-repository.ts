/**
 * SQL for scheduled exports (docs/export.md, "Scheduled exports"): a project's definitions, the
 * scan of spans and traces that arrived past a definition's cursor, and the history of its runs.
 *
 * The end of a run (its history row, the cursor moved past what the file holds, the next run's
 * time) is compiled here and run by the caller in one transaction: on SQLite by the writer thread
 * (db/writer/statement-writes-sqlite.ts), on PostgreSQL on a connection.
 */
import { type Kysely, type SqlBool, sql } from 'kysely';
import type { Dialect } from '../../config.js';
import type { DB } from '../schema.js';
import { maxSpanRowid } from '../span-ids.js';
import type { CompiledStatement } from '../writer/statement-writes-sqlite.js';
import { type SpanCondition, spanConditionSql } from './span-condition-sql.js';

export type ExportTarget = 'span' | 'trace';
export type ExportFormat = 'csv' | 'jsonl' | 'parquet';

export interface ScheduledExportFields {
  name: string;
  target: ExportTarget;
  filter: string;
  format: ExportFormat;
  intervalMinutes: number;
  enabled: boolean;
}

export interface ScheduledExportRecord extends ScheduledExportFields {
  id: number;
  projectId: number;
  /** Its project's name: the first folder of its files. */
  projectName: string;
  /** The span row id the export has written up to. */
  cursor: string;
  nextRunAt: string;
  createdAt: string;
  updatedAt: string;
}

export interface ExportRunRecord {
  id: number;
  exportId: number;
  startedAt: string;
  finishedAt: string;
  rowCount: number;
  /** Relative to SERVICE_EXPORT_DIR; null when nothing was written. */
  file: string | null;
  byteCount: number | null;
  error: string | null;
  cursorFrom: string;
  cursorTo: string;
}

export type NewExportRun = Omit<ExportRunRecord, 'id'>;

/** A span that arrived past a cursor: its row id and its trace's. */
export interface ArrivedSpan {
  id: number;
  traceRowid: number;
}

type ExportRow = {
  id: number;
  project_id: number;
  project_name: string;
  name: string;
  target: string;
  filter: string;
  format: string;
  interval_minutes: number;
  enabled: number;
  cursor: string;
  next_run_at: string;
  created_at: string;
  updated_at: string;
};

const toRecord = (row: ExportRow): ScheduledExportRecord => ({
  id: Number(row.id),
  projectId: Number(row.project_id),
  projectName: row.project_name,
  name: row.name,
  target: row.target as ExportTarget,
  filter: row.filter,
  format: row.format as ExportFormat,
  intervalMinutes: Number(row.interval_minutes),
  enabled: Number(row.enabled) === 1,
  cursor: row.cursor,
  nextRunAt: row.next_run_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const COLUMNS = [
  'e.id',
  'e.project_id',
  'e.name',
  'e.target',
  'e.filter',
  'e.format',
  'e.interval_minutes',
  'e.enabled',
  'e.cursor',
  'e.next_run_at',
  'e.created_at',
  'e.updated_at',
] as const;

/** Runs kept per export: older ones are deleted as new ones are written. */
export const KEPT_RUNS = 500;

export type ScheduledExportsRepository = ReturnType<typeof createScheduledExportsRepository>;

export function createScheduledExportsRepository(db: Kysely<DB>, dialect: Dialect) {
  const exports = () =>
    db
      .selectFrom('scheduled_exports as e')
      .innerJoin('projects as p', 'p.id', 'e.project_id')
      .select([...COLUMNS, 'p.name as project_name']);
  const columns = (fields: Partial<ScheduledExportFields>) => ({
    ...(fields.name !== undefined ? { name: fields.name } : {}),
    ...(fields.filter !== undefined ? { filter: fields.filter } : {}),
    ...(fields.format !== undefined ? { format: fields.format } : {}),
    ...(fields.intervalMinutes !== undefined ? { interval_minutes: fields.intervalMinutes } : {}),
    ...(fields.enabled !== undefined ? { enabled: fields.enabled ? 1 : 0 } : {}),
  });

  return {
    /** Creates the export reading past `cursor`; undefined when the project has an export of that name. */
    async insert(
      projectId: number,
      fields: ScheduledExportFields,
      cursor: string,
      nextRunAt: string,
      userId: number | null,
      now: string,
    ): Promise<number | undefined> {
      const row = await db
        .insertInto('scheduled_exports')
        .values({
          project_id: projectId,
          name: fields.name,
          target: fields.target,
          filter: fields.filter,
          format: fields.format,
          interval_minutes: fields.intervalMinutes,
          enabled: fields.enabled ? 1 : 0,
          cursor,
          next_run_at: nextRunAt,
          user_id: userId,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.columns(['project_id', 'name']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return row ? Number(row.id) : undefined;
    },

    /** Changes the export (and its next run, when given); false when the new name is another export's of the project. */
    async update(id: number, fields: Partial<ScheduledExportFields>, nextRunAt: string | undefined, now: string): Promise<boolean> {
      if (fields.name !== undefined) {
        const taken = await db
          .selectFrom('scheduled_exports as e')
          .innerJoin('scheduled_exports as other', 'other.project_id', 'e.project_id')
          .select('other.id')
          .where('e.id', '=', id)
          .where('other.name', '=', fields.name)
          .where('other.id', '<>', id)
          .executeTakeFirst();
        if (taken) return false;
      }
      await db
        .updateTable('scheduled_exports')
        .set({ ...columns(fields), ...(nextRunAt !== undefined ? { next_run_at: nextRunAt } : {}), updated_at: now })
        .where('id', '=', id)
        .execute();
      return true;
    },

    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('scheduled_exports').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async findById(id: number): Promise<ScheduledExportRecord | undefined> {
      const row = await exports().where('e.id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },

    /** A project's exports by id from `fromId` (inclusive). */
    async list(projectId: number, query: { limit: number; fromId?: number | undefined }): Promise<ScheduledExportRecord[]> {
      let select = exports().where('e.project_id', '=', projectId);
      if (query.fromId !== undefined) select = select.where('e.id', '>=', query.fromId);
      return (await select.orderBy('e.id').limit(query.limit).execute()).map(toRecord);
    },

    /** Enabled exports due at `now` (oldest due first), of projects not being deleted. */
    async due(now: string, limit: number): Promise<ScheduledExportRecord[]> {
      const rows = await exports()
        .where('e.enabled', '=', 1)
        .where('e.next_run_at', '<=', now)
        .where('p.deleted_at', 'is', null)
        .orderBy('e.next_run_at')
        .orderBy('e.id')
        .limit(limit)
        .execute();
      return rows.map(toRecord);
    },

    /** The newest span's row id (0 without spans). */
    maxSpanId: () => maxSpanRowid(db),

    /**
     * A project's spans with row ids in (afterId, upToId], in id order: those that meet the
     * condition, or, with `rootsOnly`, the root spans of traces with a span that meets it.
     */
    async arrivedSpans(
      projectId: number,
      range: { afterId: number; upToId: number },
      filter: { condition: SpanCondition | null; rootsOnly: boolean },
      limit: number,
    ): Promise<ArrivedSpan[]> {
      const condition = filter.condition;
      // The unary plus keeps the planner off the project's indexes: the row-id range is the narrow part.
      const inProject = (table: 'spans' | 'r') =>
        dialect === 'sqlite'
          ? sql<SqlBool>`+${sql.ref(`${table}.project_id`)} = ${projectId}`
          : sql<SqlBool>`(${sql.ref(`${table}.project_id`)} + 0) = ${projectId}`;
      if (filter.rootsOnly) {
        // The condition names `spans` and `traces`: the subquery's, a span of the root's trace.
        let roots = db
          .selectFrom('spans as r')
          .select(['r.id', 'r.trace_rowid'])
          .where(inProject('r'))
          .where('r.id', '>', range.afterId)
          .where('r.id', '<=', range.upToId)
          .where('r.parent_id', 'is', null);
        if (condition)
          roots = roots.where((eb) =>
            eb.exists(
              eb
                .selectFrom('spans')
                .innerJoin('traces', 'traces.id', 'spans.trace_rowid')
                .select(sql.lit(1).as('one'))
                .whereRef('spans.trace_rowid', '=', 'r.trace_rowid')
                .where(spanConditionSql(dialect, condition)),
            ),
          );
        const rows = await roots.orderBy('r.id').limit(limit).execute();
        return rows.map((row) => ({ id: Number(row.id), traceRowid: Number(row.trace_rowid) }));
      }
      let select = db
        .selectFrom('spans')
        .innerJoin('traces', 'traces.id', 'spans.trace_rowid')
        .select(['spans.id', 'spans.trace_rowid'])
        .where(inProject('spans'))
        .where('spans.id', '>', range.afterId)
        .where('spans.id', '<=', range.upToId);
      if (condition) select = select.where(spanConditionSql(dialect, condition));
      const rows = await select.orderBy('spans.id').limit(limit).execute();
      return rows.map((row) => ({ id: Number(row.id), traceRowid: Number(row.trace_rowid) }));
    },

    /**
     * The end of a run as statements for one transaction: its history row, the cursor moved from
     * the value the run read to `cursorTo` (only when the run wrote its file, or found nothing), the
     * next run's time, and the history past KEPT_RUNS deleted.
     */
    finishRunStatements(run: NewExportRun, advance: boolean, nextRunAt: string): CompiledStatement[] {
      const statements: CompiledStatement[] = [
        db
          .insertInto('scheduled_export_runs')
          .values({
            export_id: run.exportId,
            started_at: run.startedAt,
            finished_at: run.finishedAt,
            row_count: run.rowCount,
            file: run.file,
            byte_count: run.byteCount,
            error: run.error,
            cursor_from: run.cursorFrom,
            cursor_to: run.cursorTo,
          })
          .compile(),
      ];
      let update = db
        .updateTable('scheduled_exports')
        .set(advance ? { cursor: run.cursorTo, next_run_at: nextRunAt } : { next_run_at: nextRunAt });
      update = update.where('id', '=', run.exportId);
      // A cursor moved meanwhile (the export was recreated or changed) is not overwritten.
      if (advance) update = update.where('cursor', '=', run.cursorFrom);
      statements.push(update.compile());
      statements.push(
        db
          .deleteFrom('scheduled_export_runs')
          .where('export_id', '=', run.exportId)
          .where('id', '<', (eb) =>
            eb
              .selectFrom('scheduled_export_runs as r')
              .select('r.id')
              .where('r.export_id', '=', run.exportId)
              .orderBy('r.id', 'desc')
              .offset(KEPT_RUNS - 1)
              .limit(1),
          )
          .compile(),
      );
      return statements;
    },

    /** An export's runs, newest first, from `fromId` down (inclusive). */
    async runs(exportId: number, query: { limit: number; fromId?: number | undefined }): Promise<ExportRunRecord[]> {
      let select = db.selectFrom('scheduled_export_runs').selectAll().where('export_id', '=', exportId);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      const rows = await select.orderBy('id', 'desc').limit(query.limit).execute();
      return rows.map((row) => ({
        id: Number(row.id),
        exportId: Number(row.export_id),
        startedAt: row.started_at,
        finishedAt: row.finished_at,
        rowCount: Number(row.row_count),
        file: row.file,
        byteCount: row.byte_count === null ? null : Number(row.byte_count),
        error: row.error,
        cursorFrom: row.cursor_from,
        cursorTo: row.cursor_to,
      }));
    },
  };
}
