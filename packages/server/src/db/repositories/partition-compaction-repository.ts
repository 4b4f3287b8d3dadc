/**
 * SQL of the partition compaction job (PostgreSQL; docs/partitioning.md, "Compaction"): the day
 * partitions that exist, the job's watermark in `job_state`, and the online rebuild of a closed
 * day's indexes. Index entries of a day arrive in start-time order from many traces at once, so
 * PostgreSQL's B-tree splits leave the day's time-keyed indexes about half empty; once nothing
 * writes the day any more, `REINDEX ... CONCURRENTLY` packs them without blocking reads or writes.
 */
import { type Kysely, sql } from 'kysely';
import { dayOfDate, PARTITIONED_TABLES, partitionName } from '../partitions.js';
import type { DB } from '../schema.js';

/** pg_advisory_lock key of the compaction ("sightline.compaction"): one replica compacts at a time. */
const COMPACTION_LOCK = 7_303_822_012;

/**
 * pg_advisory_lock class of one day's partitions (the day is the second key): held while the
 * compaction rebuilds the day, tried by retention before it drops the day. Dropping detaches the
 * partitions, which locks `traces` and `spans` whole; waiting there for a rebuild to let go of the
 * partition would hold up every query on them.
 */
export const DAY_PARTITIONS_LOCK_CLASS = 73_038_220;

/** job_state row: the newest day whose partitions are compacted (days go oldest first). */
export const COMPACTED_THROUGH = 'partitions.compacted_through';

const DAY_PARTITION = /^traces_p(\d{4})(\d{2})(\d{2})$/;

/** What an interrupted `REINDEX CONCURRENTLY` leaves behind: invalid indexes named `<index>_ccnew` or `_ccold` (a digit may follow). */
const REBUILD_LEFTOVER = /_cc(new|old)\d*$/;

/** The days that have `traces` partitions, oldest first (not the legacy partition). */
export async function listDayPartitions(db: Kysely<DB>): Promise<number[]> {
  const rows = await sql<{ name: string }>`
    SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'traces'::regclass`.execute(db);
  const days: number[] = [];
  for (const { name } of rows.rows) {
    const match = DAY_PARTITION.exec(name);
    if (match) days.push(dayOfDate(Number(match[1]), Number(match[2]), Number(match[3])));
  }
  return days.sort((a, b) => a - b);
}

/** The compaction's statements, on the one connection that holds its lock. */
export interface CompactionSession {
  /** The connection's backend process id (`cancel` interrupts its statement). */
  readonly pid: number;
  /** Days with partitions before `beforeDay`, oldest first. */
  daysBefore(beforeDay: number): Promise<number[]>;
  /** The newest day compacted so far (null: none yet). */
  compactedThrough(): Promise<number | null>;
  recordCompacted(day: number): Promise<void>;
  /**
   * Rebuilds every index of the day's `traces` and `spans` partitions online, after dropping what
   * an interrupted rebuild left, holding the day's lock (it waits for a retention drop in progress).
   */
  compactDay(day: number): Promise<void>;
}

/** Partition compaction SQL over a Kysely instance (PostgreSQL only). */
export function createPartitionCompactionRepository(db: Kysely<DB>) {
  return {
    /**
     * Runs `work` on one connection that holds the compaction lock; resolves to false at once,
     * without running it, while another replica holds the lock.
     */
    async withCompactionLock(work: (session: CompactionSession) => Promise<void>): Promise<boolean> {
      return db.connection().execute(async (connection) => {
        const { rows } = await sql<{ locked: boolean; pid: number }>`
          SELECT pg_try_advisory_lock(${COMPACTION_LOCK}) AS locked, pg_backend_pid() AS pid`.execute(connection);
        if (!rows[0]?.locked) return false;
        try {
          await work(compactionSession(connection, Number(rows[0].pid)));
        } finally {
          await sql`SELECT pg_advisory_unlock(${COMPACTION_LOCK})`.execute(connection);
        }
        return true;
      });
    },

    /** Cancels the statement a compaction session runs now (for a prompt shutdown); its rebuild's leftovers go in the next run. */
    async cancel(pid: number): Promise<void> {
      await sql`SELECT pg_cancel_backend(${pid})`.execute(db);
    },
  };
}

function compactionSession(connection: Kysely<DB>, pid: number): CompactionSession {
  return {
    pid,
    async daysBefore(beforeDay) {
      return (await listDayPartitions(connection)).filter((day) => day < beforeDay);
    },

    async compactedThrough() {
      const row = await connection.selectFrom('job_state').select('value').where('name', '=', COMPACTED_THROUGH).executeTakeFirst();
      return row === undefined ? null : Number(row.value);
    },

    async recordCompacted(day) {
      const value = String(day);
      await connection
        .insertInto('job_state')
        .values({ name: COMPACTED_THROUGH, value })
        .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
        .execute();
    },

    async compactDay(day) {
      await sql`SELECT pg_advisory_lock(${DAY_PARTITIONS_LOCK_CLASS}, ${day})`.execute(connection);
      try {
        // One process builds each index: parallel workers take every core from ingest for a job
        // that has the whole day to finish (docs/performance.md, "Compacting closed days").
        await sql`SET max_parallel_maintenance_workers = 0`.execute(connection);
        await rebuildDay(connection, day);
      } finally {
        await sql`RESET max_parallel_maintenance_workers`.execute(connection);
        await sql`SELECT pg_advisory_unlock(${DAY_PARTITIONS_LOCK_CLASS}, ${day})`.execute(connection);
      }
    },
  };
}

/** REINDEX CONCURRENTLY of a day's partitions that still exist, after dropping an interrupted rebuild's leftovers. */
async function rebuildDay(connection: Kysely<DB>, day: number): Promise<void> {
  for (const table of PARTITIONED_TABLES) {
    const partition = partitionName(table, day);
    const { rows } = await sql<{ name: string; valid: boolean }>`
      SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = to_regclass(${partition})`.execute(connection);
    // A partition dropped by retention meanwhile has no indexes left to rebuild.
    if (rows.length === 0) continue;
    for (const { name } of rows.filter((row) => !row.valid && REBUILD_LEFTOVER.test(row.name))) {
      await sql`DROP INDEX CONCURRENTLY IF EXISTS ${sql.id(name)}`.execute(connection);
    }
    await sql`REINDEX TABLE CONCURRENTLY ${sql.id(partition)}`.execute(connection);
  }
}

export type PartitionCompactionRepository = ReturnType<typeof createPartitionCompactionRepository>;
