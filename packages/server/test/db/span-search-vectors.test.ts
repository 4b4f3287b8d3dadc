/**
 * PostgreSQL's search words behind ingest (migration 0048, docs/search.md): the span writer queues
 * each new span's words in its transaction and leaves the GIN index to the search-vectors job;
 * the job indexes them oldest first, a batch at a time; every path that deletes spans deletes
 * their words, queued or indexed; retention's dropped day takes its words' partition and queue
 * rows; and the migration moves the words stored in `spans.search_vector` before it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { prng } from '@sightline/common/testing';
import { type Kysely, sql } from 'kysely';
import { openDatabase, type Database } from '../../src/db/database.js';
import { applyMigrations, migrateToLatest } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { dayOfMillis, partitionName } from '../../src/db/partitions.js';
import { createDataAccess } from '../../src/db/repositories/index.js';
import { PostgresSpanWriter } from '../../src/db/writer/span-writes-postgres.js';
import { createSearchVectorsJob, searchVectorsOf } from '../../src/jobs/search-vectors-job.js';
import { searchTextOf } from '../../src/span-model/search-text.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { spanRow } from '../helpers/span-row.js';
import { expectedWords, randomAttributes } from '../helpers/search-words.js';

const NOW = BigInt(Date.now()) * 1_000_000n;

// PostgreSQL only: SQLite's index is a file of its own with its own thread (search-index.test).
for (const _ of DIALECTS.filter((dialect) => dialect === 'postgres')) {
  describe('search words behind ingest [postgres]', () => {
    let test: TestDatabase;
    let database: Database;
    let writer: PostgresSpanWriter;
    const traces = ['a', 'b', 'c', 'd'].map((letter) => letter.repeat(32));

    before(async () => {
      test = await createTestDatabase('postgres');
      database = openDatabase({ dialect: 'postgres', url: test.url! });
      await migrateToLatest(database);
      writer = new PostgresSpanWriter(test.url!);
      // Three spans in each of four traces, each with its own word; the third has no text.
      await writer.write(
        traces.flatMap((traceId, t) =>
          [0, 1, 2].map((s) =>
            spanRow({
              projectName: 'words',
              traceId,
              spanId: `${t}${s}`.padStart(16, '0'),
              parentId: s === 0 ? null : `${t}0`.padStart(16, '0'),
              startTime: NOW + BigInt(t * 1000 + s),
              endTime: NOW + BigInt(t * 1000 + s + 10),
              searchText: s === 2 ? null : `word${t}${s} shared`,
              sessionId: t === 2 ? 'session-c' : null,
            }),
          ),
        ),
      );
    });
    after(async () => {
      await writer?.close();
      await database?.close();
      await test?.drop();
    });

    const count = async (table: 'span_search_queue' | 'span_search_vectors') =>
      Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(database.db)).rows[0]!.n);
    const matching = async (word: string) =>
      (
        await sql<{ id: string }>`SELECT span_rowid AS id FROM span_search_vectors WHERE search_vector @@ cast(${word} as tsquery)`.execute(
          database.db,
        )
      ).rows.length;
    const traceRowid = async (traceId: string) =>
      Number((await sql<{ id: string }>`SELECT id FROM traces WHERE trace_id = ${traceId}`.execute(database.db)).rows[0]!.id);

    it('queues the texts of the spans that have one, in the spans’ transaction, and indexes none', async () => {
      assert.equal(await count('span_search_queue'), 8);
      assert.equal(await count('span_search_vectors'), 0);
      const queued = await sql<{ search_text: string; match: boolean }>`
        SELECT q.search_text, q.span_rowid = s.id AND q.trace_rowid = s.trace_rowid AND q.project_id = s.project_id AS match
        FROM span_search_queue q JOIN spans s ON s.id = q.span_rowid WHERE s.span_id = ${'10'.padStart(16, '0')}`.execute(database.db);
      assert.deepEqual(queued.rows, [{ search_text: 'word10 shared', match: true }]);
    });

    it('a span written again is not queued again', async () => {
      await writer.write([spanRow({ projectName: 'words', traceId: traces[0]!, spanId: '00'.padStart(16, '0'), searchText: 'again' })]);
      assert.equal(await count('span_search_queue'), 8);
    });

    it('indexes the queue oldest first, a batch at a time, and takes each span once', async () => {
      const { repositories } = createDataAccess(database);
      const oldest = await sql<{ id: string }>`SELECT span_rowid AS id FROM span_search_queue ORDER BY span_rowid LIMIT 3`.execute(
        database.db,
      );
      assert.equal(await repositories.searchVectors.indexQueued(3, searchVectorsOf), 3);
      const indexed = await sql<{ id: string }>`SELECT span_rowid AS id FROM span_search_vectors ORDER BY span_rowid`.execute(database.db);
      assert.deepEqual(indexed.rows, oldest.rows);
      assert.equal(await repositories.searchVectors.queued(), 5);
      assert.equal(await repositories.searchVectors.indexQueued(100, searchVectorsOf), 5);
      assert.equal(await repositories.searchVectors.indexQueued(100, searchVectorsOf), 0);
      assert.equal(await count('span_search_vectors'), 8);
      assert.equal(await matching('word31'), 1);
      assert.equal(await matching('shared'), 8);
    });

    it('deletes a span’s, a trace’s, a session’s and retention’s words, queued or indexed', async () => {
      const { repositories, withTransaction } = createDataAccess(database);
      // Trace d's spans written again under new ids would not be queued: queue new ones for trace b instead.
      await writer.write([
        spanRow({
          projectName: 'words',
          traceId: traces[1]!,
          spanId: '13'.padStart(16, '0'),
          startTime: NOW,
          endTime: NOW + 10n,
          searchText: 'queued only',
        }),
      ]);
      assert.equal(await count('span_search_queue'), 1);
      const span = await sql<{ id: string }>`SELECT id FROM spans WHERE span_id = ${'01'.padStart(16, '0')}`.execute(database.db);
      assert.ok(await repositories.spans.deleteById(Number(span.rows[0]!.id)));
      assert.equal(await matching('word01'), 0);
      assert.equal(await matching('word00'), 1);
      assert.equal(await repositories.traces.deleteById(await traceRowid(traces[1]!)), true);
      assert.equal(await count('span_search_queue'), 0, 'the queued words of trace b');
      assert.equal(await matching('word10 | word11'), 0);
      const session = await sql<{ id: string }>`SELECT id FROM project_sessions WHERE session_id = 'session-c'`.execute(database.db);
      assert.equal(await repositories.sessions.deleteByIds([Number(session.rows[0]!.id)]), 1);
      assert.equal(await matching('word20 | word21'), 0);
      const traceD = await traceRowid(traces[3]!);
      await withTransaction((scoped) => scoped.retention.deleteTraces([traceD]));
      assert.equal(await matching('word30 | word31'), 0);
      assert.equal(await matching('shared'), 1, 'trace a’s root keeps its words');
    });

    it('indexes exactly the words SQLite’s tokenizer cuts, at their positions, on random spans', async () => {
      const { repositories } = createDataAccess(database);
      const random = prng(48);
      const expected: { spanId: string; vector: string }[] = [];
      const rows = [];
      // Every ASCII letter and digit and a separator of each range, then random spans.
      const alphabet = { 'input.value': 'ABCDEFGHIJKLMNOPQRSTUVWXYZ/abcdefghijklmnopqrstuvwxyz:0123456789[Zebra{x\u007fy' };
      for (let index = 0; index < 300; index++) {
        const attributes = index === 0 ? alphabet : randomAttributes(random);
        const searchText = searchTextOf(attributes);
        if (searchText === null) continue;
        const spanId = `r${index}`.padStart(16, '0');
        rows.push(spanRow({ projectName: 'random', traceId: 'f'.repeat(32), spanId, startTime: NOW, endTime: NOW + 10n, searchText }));
        expected.push({
          spanId,
          vector: expectedWords(attributes)
            .map((word, at) => `'${word}':${at + 1}`)
            .join(' '),
        });
      }
      assert.ok(expected.length > 200);
      assert.ok(
        rows.some((row) => row.searchText!.includes('\u0000')),
        'a text with NUL',
      );
      await writer.write(rows);
      while ((await repositories.searchVectors.indexQueued(100, searchVectorsOf)) > 0);
      const differing = await sql<{ span_id: string; stored: string; expected: string }>`
        SELECT s.span_id, v.search_vector::text AS stored, cast(e.vector AS tsvector)::text AS expected
        FROM unnest(${expected.map((row) => row.spanId)}::text[], ${expected.map((row) => row.vector)}::text[]) AS e(span_id, vector)
        JOIN spans s ON s.span_id = e.span_id
        JOIN span_search_vectors v ON v.span_rowid = s.id AND v.trace_rowid = s.trace_rowid
        WHERE v.search_vector <> cast(e.vector AS tsvector)`.execute(database.db);
      assert.deepEqual(differing.rows, []);
      const indexed = await sql<{ n: string }>`SELECT count(*) AS n FROM span_search_vectors v JOIN spans s ON s.id = v.span_rowid
        WHERE s.project_id = (SELECT id FROM projects WHERE name = 'random')`.execute(database.db);
      assert.equal(Number(indexed.rows[0]!.n), expected.length);
    });

    it('the job says when it is behind, and gathers the words’ statistics when idle, at most once an interval', async () => {
      const { repositories } = createDataAccess(database);
      let clock = 1_000_000;
      const job = createSearchVectorsJob(repositories.searchVectors, { batch: 2, analyzeEveryMs: 60_000, now: () => clock });
      await writer.write(
        ['x', 'y', 'z'].map((letter, index) =>
          spanRow({
            projectName: 'job',
            traceId: 'a'.repeat(31) + letter,
            spanId: `j${index}`.padStart(16, '0'),
            startTime: NOW,
            endTime: NOW + 10n,
            searchText: `job${letter}`,
          }),
        ),
      );
      const signal = new AbortController().signal;
      assert.equal(await job.run(signal), 'more');
      assert.equal(await repositories.searchVectors.lastAnalyzed(), null, 'not while behind');
      assert.equal(await job.run(signal), 'idle');
      const first = await repositories.searchVectors.lastAnalyzed();
      assert.ok(first instanceof Date);
      const common = await sql<{
        n: string;
      }>`SELECT count(*) AS n FROM pg_stats WHERE tablename = 'span_search_vectors' AND attname = 'search_vector'`.execute(database.db);
      assert.equal(Number(common.rows[0]!.n), 1, 'the partitioned table has statistics of its own');
      clock += 59_000;
      assert.equal(await job.run(signal), 'idle');
      assert.equal((await repositories.searchVectors.lastAnalyzed())?.getTime(), first.getTime(), 'not again within the interval');
      clock += 2_000;
      await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(await job.run(signal), 'idle');
      assert.ok((await repositories.searchVectors.lastAnalyzed())!.getTime() > first.getTime(), 'again after it');
    });

    it('retention’s dropped day takes its words’ partition and its queued words', async () => {
      const { withTransaction } = createDataAccess(database);
      await writer.write([
        spanRow({
          projectName: 'words',
          traceId: 'e'.repeat(32),
          spanId: '40'.padStart(16, '0'),
          startTime: NOW,
          endTime: NOW + 10n,
          searchText: 'doomed',
        }),
      ]);
      const day = dayOfMillis(Date.now());
      const partition = partitionName('span_search_vectors', day);
      const exists = async () =>
        (await sql<{ r: string | null }>`SELECT to_regclass(${partition})::text AS r`.execute(database.db)).rows[0]!.r !== null;
      assert.equal(await exists(), true);
      assert.equal(await count('span_search_queue'), 1);
      await withTransaction((scoped) => scoped.retention.dropDayPartition(day));
      assert.equal(await exists(), false);
      assert.equal(await count('span_search_queue'), 0);
    });
  });

  describe('migration 0048 moves the stored words [postgres]', () => {
    let test: TestDatabase;
    let database: Database;
    after(async () => {
      await database?.close();
      await test?.drop();
    });

    it('copies spans.search_vector into a partition beside each of the spans’, and drops the column', async () => {
      test = await createTestDatabase('postgres');
      database = openDatabase({ dialect: 'postgres', url: test.url! });
      const all = migrations({ dialect: 'postgres' });
      const before0048 = Object.fromEntries(Object.entries(all).filter(([name]) => name < '0048'));
      await applyMigrations(database.db as Kysely<unknown>, 'postgres', before0048);
      // One span in the legacy partition and one in a day's partition, each with stored words; one without.
      const day = dayOfMillis(Date.now());
      await sql
        .raw(
          `CREATE TABLE ${partitionName('traces', day)} PARTITION OF traces FOR VALUES FROM (${day * 2 ** 32}) TO (${(day + 1) * 2 ** 32})`,
        )
        .execute(database.db);
      await sql
        .raw(
          `CREATE TABLE ${partitionName('spans', day)} PARTITION OF spans FOR VALUES FROM (${day * 2 ** 32}) TO (${(day + 1) * 2 ** 32})`,
        )
        .execute(database.db);
      await sql`INSERT INTO projects (name, created_at, updated_at) VALUES ('old', '2026-01-01', '2026-01-01')`.execute(database.db);
      for (const [traceRowid, words] of [
        [1, "'capybara':1"],
        [day * 2 ** 32 + 1, "'wombat':1"],
        [day * 2 ** 32 + 2, null],
      ] as const) {
        await sql`INSERT INTO traces (id, project_id, trace_id, start_time, end_time) VALUES (${traceRowid}, 1, ${String(traceRowid).padStart(32, '0')}, 1, 2)`.execute(
          database.db,
        );
        await sql`INSERT INTO spans (trace_rowid, project_id, span_id, name, span_kind, start_time, end_time, status_code, status_message, attributes, events, search_vector)
          VALUES (${traceRowid}, 1, 'aaaaaaaaaaaaaaaa', 'old', 'CHAIN', 1, 2, 'OK', '', '{}', '[]', cast(${words} as tsvector))`.execute(
          database.db,
        );
      }
      await migrateToLatest(database);
      const moved = await sql<{ trace_rowid: number; words: string; partition: string }>`
        SELECT v.trace_rowid, v.search_vector::text AS words, v.tableoid::regclass::text AS partition
        FROM span_search_vectors v JOIN spans s ON s.id = v.span_rowid AND s.trace_rowid = v.trace_rowid ORDER BY v.trace_rowid`.execute(
        database.db,
      );
      assert.deepEqual(moved.rows, [
        { trace_rowid: 1, words: "'capybara':1", partition: 'span_search_vectors_legacy' },
        { trace_rowid: day * 2 ** 32 + 1, words: "'wombat':1", partition: partitionName('span_search_vectors', day) },
      ]);
      const column =
        await sql`SELECT 1 FROM information_schema.columns WHERE table_name = 'spans' AND column_name = 'search_vector'`.execute(
          database.db,
        );
      assert.equal(column.rows.length, 0);
      const indexes = await sql<{
        name: string;
      }>`SELECT indexname AS name FROM pg_indexes WHERE tablename = ${partitionName('span_search_vectors', day)} ORDER BY 1`.execute(
        database.db,
      );
      assert.equal(indexes.rows.length, 2, 'the primary key and the GIN index');
    });
  });
}
