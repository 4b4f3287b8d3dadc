/**
 * The partition compaction job (PostgreSQL; docs/partitioning.md, "Compaction"): it rebuilds the
 * indexes of each day partition before yesterday once, oldest first, leaving today's and
 * yesterday's alone; the rebuilt indexes are smaller, valid, still attached to the parent
 * indexes and answer the same queries; one replica compacts at a time; a rebuild interrupted by
 * stop() leaves invalid indexes that the next run drops before it compacts the day again; the
 * retention job leaves a day being rebuilt for its next run; a day out of retention is not rebuilt;
 * a server starts the job unless SERVICE_PARTITION_COMPACTION turns it off.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPgPool } from '@sightline/common';
import { type Kysely, sql } from 'kysely';
import { type Database, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { dayOfMillis, partitionName, ROWIDS_PER_DAY } from '../../src/db/partitions.js';
import { createRepositories, type Repositories } from '../../src/db/repositories/index.js';
import {
  COMPACTED_THROUGH,
  createPartitionCompactionRepository,
  DAY_PARTITIONS_LOCK_CLASS,
} from '../../src/db/repositories/partition-compaction-repository.js';
import { createDayPartitions } from '../../src/db/repositories/partitions-postgres.js';
import type { DB } from '../../src/db/schema.js';
import { createPartitionCompactionJob } from '../../src/retention/partition-compaction-job.js';
import { dayOutOfRetention, createRetentionJob } from '../../src/retention/retention-job.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { startServerOn } from '../helpers/server.js';
import { insertProject } from '../helpers/stored.js';

const NANOS_PER_DAY = 86_400_000_000_000n;
const SPANS_PER_DAY = 20_000;
const TIME_INDEX = 'spans_project_start_id';

// PostgreSQL only: SQLite has no partitions.
for (const _ of DIALECTS.filter((dialect) => dialect === 'postgres')) {
  describe('partition compaction [postgres]', () => {
    let database: TestDatabase;
    let opened: Database;
    let db: Kysely<DB>;
    let projectId: number;
    const today = dayOfMillis(Date.now());
    const [oldest, older, yesterday] = [today - 5, today - 4, today - 1];

    /** The partition of `TIME_INDEX` on a day's spans, and its size in bytes. */
    const timeIndexOf = async (day: number) => {
      const { rows } = await sql<{ name: string; bytes: string }>`
      SELECT c.relname AS name, pg_relation_size(c.oid) AS bytes FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = ${TIME_INDEX}::regclass AND c.relname LIKE ${`${partitionName('spans', day)}%`}`.execute(db);
      assert.equal(rows.length, 1, `one partition of ${TIME_INDEX} on day ${day}`);
      return { name: rows[0]!.name, bytes: Number(rows[0]!.bytes) };
    };
    /** Every index of a day's partitions: name, valid, and the parent index it is attached to (null: none). */
    const indexesOf = async (day: number) =>
      (
        await sql<{ name: string; valid: boolean; parent: string | null }>`
        SELECT c.relname AS name, x.indisvalid AS valid, p.relname AS parent
        FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
        LEFT JOIN pg_inherits i ON i.inhrelid = x.indexrelid LEFT JOIN pg_class p ON p.oid = i.inhparent
        WHERE x.indrelid IN (to_regclass(${partitionName('spans', day)}), to_regclass(${partitionName('traces', day)}))
        ORDER BY 1`.execute(db)
      ).rows;
    /** The newest spans of the project in a day, read through the time index. */
    const newestOf = async (day: number) => {
      const from = BigInt(day) * NANOS_PER_DAY;
      return (
        await sql<{ id: string }>`SELECT id FROM spans WHERE project_id = ${projectId} AND start_time >= ${from}
        AND start_time < ${from + NANOS_PER_DAY} ORDER BY start_time DESC, id DESC LIMIT 100`.execute(db)
      ).rows.map((row) => row.id);
    };
    const exists = async (table: string) =>
      (await sql<{ oid: string | null }>`SELECT to_regclass(${table}) AS oid`.execute(db)).rows[0]!.oid !== null;
    const retentionAccess = () => ({
      repositories: createRepositories(db, 'postgres'),
      withTransaction: <T>(work: (repositories: Repositories) => Promise<T>) =>
        db.transaction().execute((trx) => work(createRepositories(trx, 'postgres'))),
    });
    const watermark = async () =>
      (await db.selectFrom('job_state').select('value').where('name', '=', COMPACTED_THROUGH).executeTakeFirst())?.value;

    before(async () => {
      database = await createTestDatabase('postgres');
      opened = openDatabase({ dialect: 'postgres', url: database.url! });
      db = opened.db;
      await migrateToLatest(opened);
      const pool = createPgPool(database.url!, 1);
      try {
        await createDayPartitions(pool, [oldest, older, yesterday]);
      } finally {
        await pool.end();
      }
      projectId = await insertProject(db, 'compaction');
      // Each day: a trace per 10 spans; spans inserted in start-time order, as live traffic adds
      // them, so the newest-first time index takes every entry at its left end and splits pages in halves.
      for (const day of [oldest, older, yesterday]) {
        const first = day * ROWIDS_PER_DAY;
        const start = BigInt(day) * NANOS_PER_DAY;
        await sql`INSERT INTO traces (id, project_id, trace_id, start_time, end_time)
        SELECT ${first}::bigint + g, ${projectId}, md5(${String(day)} || g::text), ${start}::bigint + g * 10000000, ${start}::bigint + g * 10000000 + 1000
        FROM generate_series(0::bigint, ${SPANS_PER_DAY / 10 - 1}) g`.execute(db);
        await sql`INSERT INTO trace_ids (trace_id, trace_rowid) SELECT trace_id, id FROM traces WHERE id >= ${first} AND id < ${first + ROWIDS_PER_DAY}`.execute(
          db,
        );
        await sql`INSERT INTO spans (trace_rowid, project_id, span_id, name, span_kind, start_time, end_time, status_code, status_message, attributes, events)
        SELECT ${first}::bigint + g / 10, ${projectId}, lpad(to_hex(g), 16, '0'), 'step', 'CHAIN', ${start}::bigint + g * 1000000,
          ${start}::bigint + g * 1000000 + 500,
          'OK', '', '{}', '[]'
        FROM generate_series(0::bigint, ${SPANS_PER_DAY - 1}) g ORDER BY g`.execute(db);
      }
    });

    after(async () => {
      await opened?.close();
      await database?.drop();
    });

    it('rebuilds the indexes of each day before yesterday once, smaller, valid and attached', async () => {
      const before = { oldest: await timeIndexOf(oldest), yesterday: await timeIndexOf(yesterday) };
      const indexesBefore = await indexesOf(oldest);
      const newestBefore = await newestOf(oldest);
      assert.ok(indexesBefore.length >= 10, `the day's partitions have their indexes: ${JSON.stringify(indexesBefore)}`);

      const job = createPartitionCompactionJob({ partitions: createPartitionCompactionRepository(db), firstRunDelayMs: 3_600_000 });
      try {
        const run = await job.runNow();
        assert.deepEqual(run, { days: [oldest, older], skipped: false });
        assert.equal(await watermark(), String(older));

        const after = { oldest: await timeIndexOf(oldest), yesterday: await timeIndexOf(yesterday) };
        assert.ok(
          after.oldest.bytes < before.oldest.bytes * 0.7,
          `the rebuilt time index is smaller: ${before.oldest.bytes} → ${after.oldest.bytes} bytes`,
        );
        assert.deepEqual(after.yesterday, before.yesterday, 'yesterday, still written, is left alone');
        const indexesAfter = await indexesOf(oldest);
        assert.deepEqual(
          indexesAfter.map(({ valid, parent }) => ({ valid, parent })),
          indexesBefore.map(({ valid, parent }) => ({ valid, parent })),
          'as many indexes, each valid and attached to the same parent',
        );
        assert.ok(indexesAfter.every((index) => index.valid));
        assert.deepEqual(await newestOf(oldest), newestBefore);

        assert.deepEqual(await job.runNow(), { days: [], skipped: false }, 'a day is compacted once');
      } finally {
        await job.stop();
      }
    });

    it('does nothing while another replica holds the compaction lock', async () => {
      const day = today - 3;
      const pool = createPgPool(database.url!, 2);
      const other = await pool.connect();
      try {
        await createDayPartitions(pool, [day]);
        await other.query('SELECT pg_advisory_lock(7303822012)');
        const job = createPartitionCompactionJob({ partitions: createPartitionCompactionRepository(db), firstRunDelayMs: 3_600_000 });
        try {
          assert.deepEqual(await job.runNow(), { days: [], skipped: true });
          assert.equal(await watermark(), String(older));
          await other.query('SELECT pg_advisory_unlock(7303822012)');
          assert.deepEqual(await job.runNow(), { days: [day], skipped: false });
        } finally {
          await job.stop();
        }
      } finally {
        other.release();
        await pool.end();
      }
    });

    it('stop() interrupts a rebuild; the next run drops its leftovers and compacts the day', async () => {
      const day = today - 2;
      const pool = createPgPool(database.url!, 2);
      const reader = await pool.connect();
      try {
        await createDayPartitions(pool, [day]);
        // An open snapshot: REINDEX CONCURRENTLY waits for it before it can finish the new indexes.
        await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
        await reader.query('SELECT count(*) FROM spans');
        const job = createPartitionCompactionJob({ partitions: createPartitionCompactionRepository(db), firstRunDelayMs: 3_600_000 });
        const run = job.runNow();
        // The new (invalid) index must exist before stop(): REINDEX CONCURRENTLY shows in
        // pg_stat_progress_create_index before it commits that index, and a stop in between leaves
        // nothing behind (seen on a loaded machine), which is not the case this test is about.
        const rebuilding = async () => (await indexesOf(day)).some((index) => !index.valid && /_ccnew\d*$/.test(index.name));
        for (let waited = 0; !(await rebuilding()); waited += 20) {
          assert.ok(waited < 10_000, 'the rebuild started');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const stopping = performance.now();
        await job.stop();
        assert.ok(performance.now() - stopping < 5_000, 'stop() did not wait for the open snapshot');
        await assert.rejects(run, /cancel/i);
        await reader.query('COMMIT');
        const leftovers = (await indexesOf(day)).filter((index) => !index.valid);
        assert.ok(leftovers.length > 0, 'the interrupted rebuild left invalid indexes');
        assert.notEqual(await watermark(), String(day));

        const next = createPartitionCompactionJob({ partitions: createPartitionCompactionRepository(db), firstRunDelayMs: 3_600_000 });
        try {
          assert.deepEqual(await next.runNow(), { days: [day], skipped: false });
        } finally {
          await next.stop();
        }
        const indexes = await indexesOf(day);
        assert.ok(
          indexes.every((index) => index.valid && index.parent !== null),
          `no leftover, every index valid and attached: ${JSON.stringify(indexes)}`,
        );
        assert.equal(await watermark(), String(day));
      } finally {
        await reader.query('ROLLBACK').catch(() => {});
        reader.release();
        await pool.end();
      }
    });
    it('retention leaves a day the compaction is rebuilding for its next run, without an error', async () => {
      const day = today - 6;
      const pool = createPgPool(database.url!, 2);
      const compaction = await pool.connect();
      const errors: unknown[] = [];
      try {
        await createDayPartitions(pool, [day]);
        const aged = await insertProject(db, 'aged');
        await sql`INSERT INTO retention_policies (project_id, max_days, created_at, updated_at) VALUES (${aged}, 1, 'now', 'now')`.execute(
          db,
        );
        const id = day * ROWIDS_PER_DAY;
        const start = BigInt(day) * NANOS_PER_DAY;
        await sql`INSERT INTO traces (id, project_id, trace_id, start_time, end_time) VALUES (${id}, ${aged}, ${'a'.repeat(32)}, ${start}, ${start})`.execute(
          db,
        );
        // As compactDay holds it while it rebuilds the day.
        await compaction.query('SELECT pg_advisory_lock($1, $2)', [DAY_PARTITIONS_LOCK_CLASS, day]);
        const job = createRetentionJob({ ...retentionAccess(), intervalMs: 3_600_000, onError: (error) => errors.push(error) });
        try {
          await job.runNow();
          assert.ok(await exists(partitionName('spans', day)), 'the day is kept while it is rebuilt');
          await compaction.query('SELECT pg_advisory_unlock($1, $2)', [DAY_PARTITIONS_LOCK_CLASS, day]);
          await job.runNow();
          assert.ok(
            !(await exists(partitionName('spans', day))) && !(await exists(partitionName('traces', day))),
            'dropped by the next run',
          );
        } finally {
          await job.stop();
        }
        assert.deepEqual(errors, []);
      } finally {
        compaction.release();
        await pool.end();
      }
    });

    it('leaves alone a closed day that retention is about to drop', async () => {
      // Two days ahead, yesterday is closed; under a max_days of 1 it is also out of retention.
      const clock = () => Date.now() + 2 * 86_400_000;
      const repositories = createRepositories(db, 'postgres');
      const skipDay = async (day: number, nowMs: number) =>
        dayOutOfRetention(await repositories.retention.projectsOfDay(day), await repositories.retention.listActivePolicies(), day, nowMs);
      const run = async () => {
        const job = createPartitionCompactionJob({
          partitions: createPartitionCompactionRepository(db),
          clock,
          skipDay,
          firstRunDelayMs: 3_600_000,
        });
        try {
          return await job.runNow();
        } finally {
          await job.stop();
        }
      };
      const before = await timeIndexOf(yesterday);
      await sql`INSERT INTO retention_policies (project_id, max_days, created_at, updated_at) VALUES (${projectId}, 1, 'now', 'now')`.execute(
        db,
      );
      assert.deepEqual(await run(), { days: [], skipped: false });
      assert.deepEqual(await timeIndexOf(yesterday), before, 'not rebuilt');
      await sql`DELETE FROM retention_policies WHERE project_id = ${projectId}`.execute(db);
      assert.deepEqual(await run(), { days: [yesterday], skipped: false });
      assert.ok((await timeIndexOf(yesterday)).bytes < before.bytes * 0.7, 'rebuilt once retention keeps it');
    });
    it('runs in a server on PostgreSQL unless SERVICE_PARTITION_COMPACTION is false', async () => {
      for (const [env, runs] of [
        [{}, true],
        [{ SERVICE_PARTITION_COMPACTION: 'false' }, false],
      ] as const) {
        const server = await startServerOn(database, env);
        try {
          assert.equal(
            server.jobs.status().some((job) => job.name === 'partition-compaction'),
            runs,
            JSON.stringify(env),
          );
        } finally {
          await server.close();
        }
      }
    });
  });
}
