/**
 * PostgreSQL's search words behind ingest (migrations 0048 and 0049, docs/search.md): the span
 * writer notes the spans each transaction stored and leaves their words and the GIN index to the
 * search-vectors job; the job reads the noted spans' attributes and indexes their words, oldest
 * notes first, about a batch at a time; every path that deletes spans deletes their words, pending
 * or indexed, even while the job is indexing them; retention's dropped day takes its words'
 * partition; and the migrations move the words stored before them.
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
import { createSearchVectorsJob, indexAllQueued, searchVectorsOf } from '../../src/jobs/search-vectors-job.js';
import type { Attributes } from '../../src/span-model/decoded-spans.js';
import { storableString } from '../../src/span-model/decoded-spans.js';
import { storeAttributes } from '../../src/span-model/long-attributes.js';
import type { SpanRow } from '../../src/span-model/span-rows.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { spanRow } from '../helpers/span-row.js';
import { expectedWords, randomAttributes } from '../helpers/search-words.js';

const NOW = BigInt(Date.now()) * 1_000_000n;

/** A span row whose attributes are stored as ingest stores them (a long value compressed apart). */
function row(overrides: Partial<SpanRow> & Pick<SpanRow, 'traceId' | 'spanId'>, attributes: Attributes): SpanRow {
  const stored = storeAttributes(attributes);
  return spanRow({ startTime: NOW, endTime: NOW + 10n, attributes: stored.json, longAttributes: stored.long, ...overrides });
}

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
            row(
              {
                projectName: 'words',
                traceId,
                spanId: `${t}${s}`.padStart(16, '0'),
                parentId: s === 0 ? null : `${t}0`.padStart(16, '0'),
                startTime: NOW + BigInt(t * 1000 + s),
                endTime: NOW + BigInt(t * 1000 + s + 10),
                sessionId: t === 2 ? 'session-c' : null,
              },
              s === 2 ? { 'llm.model_name': 'gpt-4o' } : { 'input.value': `word${t}${s} shared` },
            ),
          ),
        ),
      );
    });
    after(async () => {
      await writer?.close();
      await database?.close();
      await test?.drop();
    });

    const count = async (table: 'span_search_pending' | 'span_search_vectors') =>
      Number((await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(database.db)).rows[0]!.n);
    const matching = async (word: string) =>
      (
        await sql<{ id: string }>`SELECT span_rowid AS id FROM span_search_vectors WHERE search_vector @@ cast(${word} as tsquery)`.execute(
          database.db,
        )
      ).rows.length;
    const traceRowid = async (traceId: string) =>
      Number((await sql<{ id: string }>`SELECT id FROM traces WHERE trace_id = ${traceId}`.execute(database.db)).rows[0]!.id);
    const spanRowid = async (spanId: string) =>
      Number((await sql<{ id: string }>`SELECT id FROM spans WHERE span_id = ${spanId}`.execute(database.db)).rows[0]!.id);

    it('notes the spans a transaction stored in one row, in the spans’ transaction, and indexes none', async () => {
      const notes = await sql<{ span_count: number; same: boolean }>`
        SELECT p.span_count, (SELECT array_agg(s.id ORDER BY s.id) FROM spans s) = p.span_rowids
          AND (SELECT array_agg(s.trace_rowid ORDER BY s.id) FROM spans s) = p.trace_rowids AS same
        FROM span_search_pending p`.execute(database.db);
      assert.deepEqual(notes.rows, [{ span_count: 12, same: true }]);
      assert.equal(await count('span_search_vectors'), 0);
    });

    it('a span written again is not noted again', async () => {
      await writer.write([row({ projectName: 'words', traceId: traces[0]!, spanId: '00'.padStart(16, '0') }, { 'input.value': 'again' })]);
      assert.equal(await count('span_search_pending'), 1);
    });

    it('indexes the oldest notes first, whole, about a batch of spans at a time', async () => {
      const { repositories } = createDataAccess(database);
      // Three more notes of one span each, after the first of twelve.
      for (const letter of ['x', 'y', 'z']) {
        await writer.write([
          row({ projectName: 'words', traceId: traces[0]!, spanId: `n${letter}`.padStart(16, '0') }, { 'input.value': `note${letter}` }),
        ]);
      }
      assert.equal(await repositories.searchVectors.queued(), 15);
      assert.equal(
        await repositories.searchVectors.indexQueued(3, searchVectorsOf),
        12,
        'the first note whole, though larger than the batch',
      );
      assert.equal(await count('span_search_vectors'), 8, 'the spans with words');
      assert.equal(await matching('notex'), 0);
      assert.equal(await repositories.searchVectors.indexQueued(2, searchVectorsOf), 2);
      assert.equal(await matching('notex | notey'), 2);
      assert.equal(await matching('notez'), 0);
      assert.equal(await repositories.searchVectors.queued(), 1);
      assert.equal(await repositories.searchVectors.indexQueued(100, searchVectorsOf), 1);
      assert.equal(await repositories.searchVectors.indexQueued(100, searchVectorsOf), 0);
      assert.equal(await count('span_search_pending'), 0);
      assert.equal(await matching('word31'), 1);
      assert.equal(await matching('shared'), 8);
    });

    it('deletes a span’s, a trace’s, a session’s and retention’s words; a deleted pending span is never indexed', async () => {
      const { repositories, withTransaction } = createDataAccess(database);
      await writer.write([
        row({ projectName: 'words', traceId: traces[1]!, spanId: '13'.padStart(16, '0') }, { 'input.value': 'pending only' }),
      ]);
      assert.ok(await repositories.spans.deleteById(await spanRowid('01'.padStart(16, '0'))));
      assert.equal(await matching('word01'), 0);
      assert.equal(await matching('word00'), 1);
      assert.equal(await repositories.traces.deleteById(await traceRowid(traces[1]!)), true);
      assert.equal(await matching('word10 | word11'), 0);
      await indexAllQueued(repositories.searchVectors);
      assert.equal(await count('span_search_pending'), 0);
      assert.equal(await matching('pending'), 0, 'trace b’s pending span went with it');
      const session = await sql<{ id: string }>`SELECT id FROM project_sessions WHERE session_id = 'session-c'`.execute(database.db);
      assert.equal(await repositories.sessions.deleteByIds([Number(session.rows[0]!.id)]), 1);
      assert.equal(await matching('word20 | word21'), 0);
      const traceD = await traceRowid(traces[3]!);
      await withTransaction((scoped) => scoped.retention.deleteTraces([traceD]));
      assert.equal(await matching('word30 | word31'), 0);
      assert.equal(await matching('shared'), 1, 'trace a’s root keeps its words');
    });

    for (const path of ['span', 'trace', 'session'] as const) {
      it(`a ${path} deleted while the job indexes its span leaves no words: the delete waits for the job’s commit`, async () => {
        const { repositories } = createDataAccess(database);
        const traceId = { span: 'e', trace: '7', session: '8' }[path].repeat(32);
        const sessionId = `race-${path}`;
        await writer.write([
          row({ projectName: 'words', traceId, spanId: `race-${path}`.padStart(16, '0'), sessionId }, { 'input.value': `racing${path}` }),
        ]);
        const spanId = await spanRowid(`race-${path}`.padStart(16, '0'));
        const traceRowidOf = await traceRowid(traceId);
        const session = await sql<{ id: string }>`SELECT id FROM project_sessions WHERE session_id = ${sessionId}`.execute(database.db);
        let deleted: Promise<unknown> | undefined;
        await repositories.searchVectors.indexQueued(100, async (spans) => {
          // The job has read the span; a delete from another connection must now wait for its commit.
          const other = openDatabase({ dialect: 'postgres', url: test.url! });
          const { repositories: theirs } = createDataAccess(other);
          const deleting =
            path === 'span'
              ? theirs.spans.deleteById(spanId)
              : path === 'trace'
                ? theirs.traces.deleteById(traceRowidOf)
                : theirs.sessions.deleteByIds([Number(session.rows[0]!.id)]);
          deleted = deleting.finally(() => other.close());
          for (let waited = 0; ; waited += 20) {
            const waiting = await sql<{ n: string }>`SELECT count(*) AS n FROM pg_locks WHERE NOT granted`.execute(database.db);
            if (Number(waiting.rows[0]!.n) > 0) break;
            assert.ok(waited < 5_000, 'the delete waits for the job');
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          return searchVectorsOf(spans);
        });
        assert.ok(await deleted);
        assert.equal(await matching(`racing${path}`), 0);
      });
    }

    it('indexes exactly the words SQLite’s tokenizer cuts, at their positions, on random spans', async () => {
      const { repositories } = createDataAccess(database);
      const random = prng(48);
      const expected: { spanId: string; vector: string }[] = [];
      const rows = [];
      // Every ASCII letter and digit and a separator of each range, then random spans, their
      // strings made storable as ingest makes them (NUL becomes U+FFFD); some long values are
      // stored apart, and their messages come back from jsonb in another order.
      const alphabet = { 'input.value': 'ABCDEFGHIJKLMNOPQRSTUVWXYZ/abcdefghijklmnopqrstuvwxyz:0123456789[Zebra{x\u007fy' };
      for (let index = 0; index < 300; index++) {
        const attributes: Attributes = {};
        for (const [key, value] of Object.entries(index === 0 ? alphabet : randomAttributes(random)))
          attributes[key] = typeof value === 'string' ? storableString(value) : value;
        const words = expectedWords(attributes);
        if (words.length === 0) continue;
        const spanId = `r${index}`.padStart(16, '0');
        rows.push(row({ projectName: 'random', traceId: 'f'.repeat(32), spanId }, attributes));
        expected.push({ spanId, vector: words.map((word, at) => `'${word}':${at + 1}`).join(' ') });
      }
      assert.ok(expected.length > 200);
      assert.ok(
        rows.some((stored) => stored.longAttributes !== null),
        'a span with a value stored apart',
      );
      await writer.write(rows);
      await indexAllQueued(repositories.searchVectors);
      const differing = await sql<{ span_id: string; stored: string; expected: string }>`
        SELECT s.span_id, v.search_vector::text AS stored, cast(e.vector AS tsvector)::text AS expected
        FROM unnest(${expected.map((one) => one.spanId)}::text[], ${expected.map((one) => one.vector)}::text[]) AS e(span_id, vector)
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
      for (const [index, letter] of ['x', 'y', 'z'].entries()) {
        await writer.write([
          row(
            { projectName: 'job', traceId: 'a'.repeat(31) + letter, spanId: `j${index}`.padStart(16, '0') },
            { 'input.value': `job${letter}` },
          ),
        ]);
      }
      const signal = new AbortController().signal;
      assert.equal(await job.run(signal), 'more');
      assert.equal(await repositories.searchVectors.lastAnalyzed(), null, 'not while behind');
      assert.equal(await job.run(signal), 'idle');
      assert.equal(await matching('jobx | joby | jobz'), 3);
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

    it('retention’s dropped day takes its words’ partition; the job passes over its pending spans', async () => {
      const { repositories, withTransaction } = createDataAccess(database);
      await writer.write([
        row({ projectName: 'words', traceId: 'e'.repeat(32), spanId: '40'.padStart(16, '0') }, { 'input.value': 'doomed' }),
      ]);
      const day = dayOfMillis(Date.now());
      const partition = partitionName('span_search_vectors', day);
      const exists = async () =>
        (await sql<{ r: string | null }>`SELECT to_regclass(${partition})::text AS r`.execute(database.db)).rows[0]!.r !== null;
      assert.equal(await exists(), true);
      assert.equal(await count('span_search_pending'), 1);
      await withTransaction((scoped) => scoped.retention.dropDayPartition(day));
      assert.equal(await exists(), false);
      assert.equal(await repositories.searchVectors.indexQueued(100, searchVectorsOf), 1);
      assert.equal(await count('span_search_pending'), 0);
    });

    it('SERVICE_FULL_TEXT_SEARCH=false: the writer notes nothing', async () => {
      const off = new PostgresSpanWriter(test.url!, { searchIndex: false });
      try {
        await off.write([
          row({ projectName: 'off', traceId: '9'.repeat(32), spanId: 'off'.padStart(16, '0') }, { 'input.value': 'unindexed' }),
        ]);
      } finally {
        await off.close();
      }
      assert.equal(await count('span_search_pending'), 0);
      assert.ok(await spanRowid('off'.padStart(16, '0')));
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

  describe('migration 0049 turns the queued texts into pending spans [postgres]', () => {
    let test: TestDatabase;
    let database: Database;
    after(async () => {
      await database?.close();
      await test?.drop();
    });

    it('notes the queued spans in order, a thousand to a row, and the job indexes them from their attributes', async () => {
      test = await createTestDatabase('postgres');
      database = openDatabase({ dialect: 'postgres', url: test.url! });
      const all = migrations({ dialect: 'postgres' });
      await applyMigrations(
        database.db as Kysely<unknown>,
        'postgres',
        Object.fromEntries(Object.entries(all).filter(([name]) => name < '0049')),
      );
      await sql`INSERT INTO projects (name, created_at, updated_at) VALUES ('old', '2026-01-01', '2026-01-01')`.execute(database.db);
      await sql`INSERT INTO traces (id, project_id, trace_id, start_time, end_time) VALUES (1, 1, ${'1'.padStart(32, '0')}, 1, 2)`.execute(
        database.db,
      );
      const span = await sql<{ id: string }>`
        INSERT INTO spans (trace_rowid, project_id, span_id, name, span_kind, start_time, end_time, status_code, status_message, attributes, events)
        VALUES (1, 1, 'aaaaaaaaaaaaaaaa', 'old', 'CHAIN', 1, 2, 'OK', '', ${JSON.stringify({ 'input.value': 'migrated words' })}::jsonb, '[]')
        RETURNING id`.execute(database.db);
      const spanId = Number(span.rows[0]!.id);
      // The stored span's text, and 1,500 texts of spans since deleted, as the release before 0049 queued them.
      await sql`INSERT INTO span_search_queue (span_rowid, trace_rowid, project_id, search_text)
        SELECT ${spanId}, 1, 1, 'migrated words' UNION ALL SELECT 10000 + n, 1, 1, 'gone' FROM generate_series(1, 1500) AS n`.execute(
        database.db,
      );
      await migrateToLatest(database);
      const notes = await sql<{ span_count: number; first: string; last: string; ordered: boolean; in_step: boolean }>`
        SELECT span_count, span_rowids[1] AS first, span_rowids[span_count] AS last,
          span_rowids = (SELECT array_agg(x ORDER BY x) FROM unnest(span_rowids) AS x) AS ordered,
          cardinality(trace_rowids) = span_count AS in_step
        FROM span_search_pending ORDER BY id`.execute(database.db);
      const expected = [spanId, ...Array.from({ length: 1500 }, (_, index) => 10_001 + index)].sort((a, b) => a - b);
      assert.equal(
        notes.rows.reduce((sum, note) => sum + note.span_count, 0),
        1501,
      );
      assert.ok(notes.rows.length >= 2 && notes.rows.every((note) => note.span_count <= 1000 && note.ordered && note.in_step));
      assert.equal(Number(notes.rows[0]!.first), expected[0]);
      assert.equal(Number(notes.rows.at(-1)!.last), expected.at(-1));
      const queue = await sql<{ r: string | null }>`SELECT to_regclass('span_search_queue')::text AS r`.execute(database.db);
      assert.equal(queue.rows[0]!.r, null);
      const { repositories } = createDataAccess(database);
      await indexAllQueued(repositories.searchVectors);
      const words = await sql<{ words: string }>`SELECT search_vector::text AS words FROM span_search_vectors`.execute(database.db);
      assert.deepEqual(words.rows, [{ words: "'migrated':1 'words':2" }]);
    });
  });
}
