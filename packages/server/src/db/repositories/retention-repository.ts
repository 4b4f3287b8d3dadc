/**
 * SQL for retention (docs/retention.md): the policy of each project, the retention job's reads of
 * the oldest traces past a policy's bound, its batch deletions (traces with their spans; costs and
 * annotations cascade), on PostgreSQL the drop of whole day partitions (docs/partitioning.md), the
 * clean-up of sessions left without traces, its run records and, on SQLite, the incremental
 * vacuum that returns freed pages to the file system.
 */
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Dialect } from '../../config.js';
import { partitionBounds, partitionName } from '../partitions.js';
import { DAY_PARTITIONS_LOCK_CLASS, listDayPartitions } from './partition-compaction-repository.js';
import type { DB, RetentionPoliciesTable } from '../schema.js';
import { bigintText, nanosLiteral } from '../sql-dialect.js';
import { deleteSpanDependents } from './span-dependents.js';

export interface RetentionPolicyRecord {
  projectId: number;
  maxDays: number | null;
  maxTraces: number | null;
  createdAt: string;
  updatedAt: string;
  /** When the job last applied the policy (null: not yet). */
  lastRunAt: string | null;
  lastDeletedTraces: number;
  lastDeletedSpans: number;
  totalDeletedTraces: number;
  totalDeletedSpans: number;
}

/** A position in a project's traces ordered by (start time, row id): the job deletes every trace before it. */
export interface TraceBound {
  /** Nanoseconds since the epoch. */
  startTime: bigint;
  id: number;
}

/** What one batch deletion removed. */
export interface DeletedTraces {
  traces: number;
  spans: number;
  /** Sessions the deleted traces belonged to (candidates for the clean-up). */
  sessionRowids: number[];
}

/** What dropping a day's partitions removed, by project (docs/partitioning.md). */
export interface DroppedDay {
  byProject: Map<number, { traces: number; spans: number }>;
  /** Sessions the dropped traces belonged to (candidates for the clean-up). */
  sessionRowids: number[];
}

/** The job state key of the retention job's last run (docs/retention.md). */
export const RETENTION_LAST_RUN = 'retention.last_run';

function toPolicy(row: Selectable<RetentionPoliciesTable>): RetentionPolicyRecord {
  return {
    projectId: Number(row.project_id),
    maxDays: row.max_days === null ? null : Number(row.max_days),
    maxTraces: row.max_traces === null ? null : Number(row.max_traces),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastRunAt: row.last_run_at,
    lastDeletedTraces: Number(row.last_deleted_traces),
    lastDeletedSpans: Number(row.last_deleted_spans),
    totalDeletedTraces: Number(row.total_deleted_traces),
    totalDeletedSpans: Number(row.total_deleted_spans),
  };
}

export type RetentionRepository = ReturnType<typeof createRetentionRepository>;

/** Retention repository over a Kysely connection (or transaction). */
export function createRetentionRepository(db: Kysely<DB>, dialect: Dialect) {
  const pg = dialect === 'postgres';
  return {
    async findPolicy(projectId: number): Promise<RetentionPolicyRecord | undefined> {
      const row = await db.selectFrom('retention_policies').selectAll().where('project_id', '=', projectId).executeTakeFirst();
      return row && toPolicy(row);
    },

    /** Creates or replaces the project's bounds; the run records are kept. */
    async upsertPolicy(
      projectId: number,
      bounds: { maxDays: number | null; maxTraces: number | null },
      now: string,
    ): Promise<RetentionPolicyRecord> {
      const row = await db
        .insertInto('retention_policies')
        .values({ project_id: projectId, max_days: bounds.maxDays, max_traces: bounds.maxTraces, created_at: now, updated_at: now })
        .onConflict((oc) =>
          oc.column('project_id').doUpdateSet({ max_days: bounds.maxDays, max_traces: bounds.maxTraces, updated_at: now }),
        )
        .returningAll()
        .executeTakeFirstOrThrow();
      return toPolicy(row);
    },

    /** The ids of the projects marked deleted and not yet purged, oldest deletion first. */
    async deletedProjects(): Promise<number[]> {
      const rows = await db
        .selectFrom('projects')
        .select('id')
        .where('deleted_at', 'is not', null)
        .orderBy('deleted_at')
        .orderBy('id')
        .execute();
      return rows.map((row) => Number(row.id));
    },

    /**
     * Deletes the row of a deleted project whose traces are gone; what is left (sessions, policies,
     * annotation config links) cascades. False when it still has a trace (one that ingest added
     * since) or is not marked deleted.
     */
    async purgeProject(id: number): Promise<boolean> {
      const result = await db
        .deleteFrom('projects')
        .where('id', '=', id)
        .where('deleted_at', 'is not', null)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('traces').select('traces.id').where('traces.project_id', '=', id))))
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** The policies that delete anything (at least one bound), by project id. */
    async listActivePolicies(): Promise<RetentionPolicyRecord[]> {
      const rows = await db
        .selectFrom('retention_policies')
        .selectAll()
        .where((eb) => eb.or([eb('max_days', 'is not', null), eb('max_traces', 'is not', null)]))
        .orderBy('project_id')
        .execute();
      return rows.map(toPolicy);
    },

    /**
     * The project's `count`-th newest trace by (start time, row id), or undefined when it has fewer.
     * An OFFSET scan of the traces_project_start index, once per run and project (a background cost).
     */
    async nthNewestTrace(projectId: number, count: number): Promise<TraceBound | undefined> {
      const row = await db
        .selectFrom('traces')
        .select(['id', bigintText('start_time').as('start_time')])
        .where('project_id', '=', projectId)
        .orderBy('start_time', 'desc')
        .orderBy('id', 'desc')
        .limit(1)
        .offset(count - 1)
        .executeTakeFirst();
      return row && { startTime: BigInt(row.start_time), id: Number(row.id) };
    },

    /** Row ids of the project's oldest traces before `bound` in (start time, row id) order, at most `limit`. */
    async oldestTracesBefore(projectId: number, bound: TraceBound, limit: number): Promise<number[]> {
      const start = nanosLiteral(bound.startTime);
      const rows = await db
        .selectFrom('traces')
        .select('id')
        .where('project_id', '=', projectId)
        .where((eb) =>
          eb.or([
            sql<boolean>`${sql.ref('start_time')} < ${start}`,
            eb.and([sql<boolean>`${sql.ref('start_time')} = ${start}`, eb('id', '<', bound.id)]),
          ]),
        )
        .orderBy('start_time')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => Number(row.id));
    },

    /**
     * Deletes the traces with their spans; costs and annotations of both cascade. Run it in a
     * transaction: its first statement writes, so on SQLite it takes the write lock (waiting for
     * the ingest writer) before it reads anything. SQLite deletes the spans first, so that their
     * count is exact before the traces' cascade. On PostgreSQL spans have no foreign key to traces
     * (docs/partitioning.md), so the traces go first: deleting one waits for an ingest transaction
     * that is adding a late span to it, and the spans statement, in a snapshot taken after that
     * wait, deletes that span too.
     */
    async deleteTraces(traceRowids: number[]): Promise<DeletedTraces> {
      if (traceRowids.length === 0) return { traces: 0, spans: 0, sessionRowids: [] };
      const deleteSpans = () => db.deleteFrom('spans').where('trace_rowid', 'in', traceRowids).executeTakeFirst();
      const sqliteSpans = pg ? undefined : await deleteSpans();
      const traces = await db.deleteFrom('traces').where('id', 'in', traceRowids).returning('project_session_rowid').execute();
      const spans = sqliteSpans ?? (await deleteSpans());
      await deleteSpanDependents(db, dialect, { traceRowids });
      const sessionRowids = new Set<number>();
      for (const row of traces) if (row.project_session_rowid !== null) sessionRowids.add(Number(row.project_session_rowid));
      return { traces: traces.length, spans: Number(spans.numDeletedRows), sessionRowids: [...sessionRowids].sort((a, b) => a - b) };
    },

    /** PostgreSQL: the days before `beforeDay` that have partitions, oldest first (none on SQLite, nor the legacy partition). */
    async dayPartitionsBefore(beforeDay: number): Promise<number[]> {
      if (!pg) return [];
      return (await listDayPartitions(db)).filter((day) => day < beforeDay);
    },

    /** PostgreSQL: the projects with traces in a day's partition (a loose scan of its project index). */
    async projectsOfDay(day: number): Promise<number[]> {
      const traces = sql.table(partitionName('traces', day));
      const rows = await sql<{ project_id: string }>`
        WITH RECURSIVE p AS (
          (SELECT project_id FROM ${traces} ORDER BY project_id LIMIT 1)
          UNION ALL
          SELECT (SELECT t.project_id FROM ${traces} t WHERE t.project_id > p.project_id ORDER BY t.project_id LIMIT 1)
          FROM p WHERE p.project_id IS NOT NULL)
        SELECT project_id FROM p WHERE project_id IS NOT NULL`.execute(db);
      return rows.rows.map((row) => Number(row.project_id));
    },

    /**
     * PostgreSQL: takes the day's partitions lock for the transaction, unless the compaction holds
     * it (rebuilding the day's indexes): then false, and the day is better left for the next run
     * than waited for while detaching holds `traces` and `spans` (docs/partitioning.md).
     */
    async tryLockDayPartitions(day: number): Promise<boolean> {
      const { rows } = await sql<{ locked: boolean }>`
        SELECT pg_try_advisory_xact_lock(${DAY_PARTITIONS_LOCK_CLASS}, ${day}) AS locked`.execute(db);
      return rows[0]?.locked === true;
    },

    /**
     * PostgreSQL: drops a day's traces, spans and search words partitions whole, after the rows
     * that reference them (trace ids, costs, annotations), which their foreign
     * keys would otherwise refuse to lose or which would outlive them. Detaching locks each parent
     * for a moment; it gives up after 5 s rather than queue every reader behind a long query (the
     * next run tries again). Run it in a transaction.
     */
    async dropDayPartition(day: number): Promise<DroppedDay> {
      const traces = partitionName('traces', day);
      const spans = partitionName('spans', day);
      const { from, to } = partitionBounds(day);
      const inDay = (column: string) => sql.raw(`${column} >= ${from} AND ${column} < ${to}`);
      await sql`SET LOCAL lock_timeout = '5s'`.execute(db);
      const byProject = new Map<number, { traces: number; spans: number }>();
      const traceCounts = await sql<{ project_id: string; n: string }>`
        SELECT project_id, count(*) AS n FROM ${sql.table(traces)} GROUP BY project_id`.execute(db);
      for (const row of traceCounts.rows) byProject.set(Number(row.project_id), { traces: Number(row.n), spans: 0 });
      const spanCounts = await sql<{ project_id: string; n: string }>`
        SELECT project_id, count(*) AS n FROM ${sql.table(spans)} GROUP BY project_id`.execute(db);
      for (const row of spanCounts.rows) {
        const counts = byProject.get(Number(row.project_id)) ?? { traces: 0, spans: 0 };
        counts.spans = Number(row.n);
        byProject.set(Number(row.project_id), counts);
      }
      const sessions = await sql<{ id: string }>`
        SELECT DISTINCT project_session_rowid AS id FROM ${sql.table(traces)} WHERE project_session_rowid IS NOT NULL`.execute(db);
      const referencing = ['trace_ids', 'trace_annotations', 'span_annotations', 'document_annotations', 'span_costs'];
      for (const table of referencing) await sql`DELETE FROM ${sql.table(table)} WHERE ${inDay('trace_rowid')}`.execute(db);
      // The spans before their words: the search-vectors job may be indexing the day's last spans,
      // which it reads before it writes their words, and detaching the spans waits for its commit.
      // The other order could deadlock with it. Notes of the day's spans stay: the job finds no span.
      for (const table of ['spans', 'span_search_vectors', 'traces'] as const) {
        const partition = sql.table(partitionName(table, day));
        await sql`ALTER TABLE ${sql.table(table)} DETACH PARTITION ${partition}`.execute(db);
        await sql`DROP TABLE ${partition}`.execute(db);
      }
      return { byProject, sessionRowids: sessions.rows.map((row) => Number(row.id)).sort((a, b) => a - b) };
    },

    /**
     * Deletes a project's span rollups (migration 0044) of the minutes before `minute`: the
     * dashboards' counts go with the spans retention deleted (docs/dashboards.md).
     */
    async deleteRollupsBefore(projectId: number, minute: number): Promise<number> {
      const result = await db
        .deleteFrom('span_rollups')
        .where('project_id', '=', projectId)
        .where('minute', '<', minute)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /**
     * Deletes those of the sessions that no trace refers to (their annotations cascade); returns how
     * many. On PostgreSQL it locks the sessions first, in id order, so the check runs in a new
     * snapshot after any ingest transaction linking a trace to one of them has committed (the
     * ingest writer upserts a session, locking it, before it links a trace). Run it in a transaction.
     */
    async deleteSessionsWithoutTraces(sessionRowids: number[]): Promise<number> {
      if (sessionRowids.length === 0) return 0;
      if (pg) {
        await db.selectFrom('project_sessions').select('id').where('id', 'in', sessionRowids).orderBy('id').forUpdate().execute();
      }
      const result = await db
        .deleteFrom('project_sessions')
        .where('id', 'in', sessionRowids)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('traces').select('traces.id').whereRef('traces.project_session_rowid', '=', 'project_sessions.id'))),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Records what a run did to the project's traces (last run and running totals). */
    async recordRun(projectId: number, run: { at: string; traces: number; spans: number }): Promise<void> {
      await db
        .updateTable('retention_policies')
        .set({
          last_run_at: run.at,
          last_deleted_traces: run.traces,
          last_deleted_spans: run.spans,
          total_deleted_traces: sql<number>`${sql.ref('total_deleted_traces')} + ${run.traces}`,
          total_deleted_spans: sql<number>`${sql.ref('total_deleted_spans')} + ${run.spans}`,
        })
        .where('project_id', '=', projectId)
        .execute();
    },

    async readLastRun(): Promise<string | undefined> {
      return (await db.selectFrom('job_state').select('value').where('name', '=', RETENTION_LAST_RUN).executeTakeFirst())?.value;
    },
    async writeLastRun(value: string): Promise<void> {
      await db
        .insertInto('job_state')
        .values({ name: RETENTION_LAST_RUN, value })
        .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
        .execute();
    },

    /** SQLite: true when the file is in incremental auto-vacuum mode; always false on PostgreSQL (autovacuum). */
    async incrementalVacuumEnabled(): Promise<boolean> {
      if (pg) return false;
      const result = await sql<{ auto_vacuum: number }>`PRAGMA auto_vacuum`.execute(db);
      return Number(result.rows[0]?.auto_vacuum) === 2;
    },
    /** SQLite: pages on the free list (0 on PostgreSQL). */
    async freePages(): Promise<number> {
      if (pg) return 0;
      const result = await sql<{ freelist_count: number }>`PRAGMA freelist_count`.execute(db);
      return Number(result.rows[0]?.freelist_count ?? 0);
    },
    /** SQLite: returns up to `pages` free pages to the file system (one short write transaction). */
    async incrementalVacuum(pages: number): Promise<void> {
      if (pg) return;
      await sql.raw(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(pages))})`).execute(db);
    },
  };
}
