/**
 * Span ids unique per trace (migration 0021, db/span-ids.ts): the migration keeps every span,
 * every row that references one and the id sequence; both writers drop a span repeated in its
 * trace and keep the same span id in another trace; lookups by span id alone find spans in any
 * row-id bucket, the newest first, through the bucketed index.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { applyMigrations } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { createRepositories } from '../../src/db/repositories/index.js';
import type { DB } from '../../src/db/schema.js';
import { SPAN_ID_BUCKET_BITS } from '../../src/db/span-ids.js';
import type { SpanRow } from '../../src/span-model/span-rows.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { spanRow } from '../helpers/span-row.js';
import { openLoggedKysely, openSpanWriter } from '../helpers/span-writer.js';
import { insertProject } from '../helpers/stored.js';

const PROJECT = 'span-ids';
const OTHER_PROJECT = 'span-ids-other';
const BUCKET = 2 ** SPAN_ID_BUCKET_BITS;
const traceId = (name: string) => Buffer.from(name).toString('hex').padEnd(32, '0').slice(0, 32);
const spanId = (n: number) => n.toString(16).padStart(16, '0');

interface StoredRow {
  id: number;
  trace_id: string;
  span_id: string;
}

for (const dialect of DIALECTS) {
  describe(`span ids unique per trace (migration 0021) [${dialect}]`, () => {
    let database: TestDatabase;
    let db: Kysely<DB>;
    let statements: CompiledQuery[] = [];
    let write: (rows: SpanRow[]) => Promise<void>;
    let closeWriter: () => Promise<void>;
    let projectId: number;
    let before0021: StoredRow[];
    let deletedId: number;

    const storedRows = async () =>
      (
        await sql<StoredRow>`SELECT s.id, t.trace_id, s.span_id FROM spans s JOIN traces t ON t.id = s.trace_rowid ORDER BY s.id`.execute(
          db,
        )
      ).rows.map((row) => ({ ...row, id: Number(row.id) }));
    const setNextSpanId = async (next: number) => {
      if (dialect === 'sqlite') await sql`UPDATE sqlite_sequence SET seq = ${next - 1} WHERE name = 'spans'`.execute(db);
      else await sql`SELECT setval(pg_get_serial_sequence('spans', 'id'), ${next - 1})`.execute(db);
    };
    const row = (trace: string, n: number, project = PROJECT) =>
      spanRow({ projectName: project, traceId: traceId(trace), spanId: spanId(n), startTime: BigInt(n), endTime: BigInt(n) });

    before(async () => {
      database = await createTestDatabase(dialect);
      const file = path.join(database.workingDir, 'sightline.db');
      db = openLoggedKysely(database, file, () => statements);
      const all = migrations({ dialect });
      assert.ok('0021-span-ids-per-trace' in all);
      await applyMigrations(db as Kysely<unknown>, dialect, Object.fromEntries(Object.entries(all).filter(([name]) => name < '0021')));

      // As the release before 0021 stored them: three spans, an annotation and a cost on two of them,
      // and a newest span deleted since (its id must not come back).
      projectId = await insertProject(db, PROJECT);
      const trace = await sql<{ id: number }>`INSERT INTO traces (project_id, trace_id, start_time, end_time)
        VALUES (${projectId}, ${traceId('old')}, 1, 4) RETURNING id`.execute(db);
      const traceRowid = Number(trace.rows[0]!.id);
      const spanRowids: number[] = [];
      for (const n of [1, 2, 3, 4]) {
        const inserted = await sql<{
          id: number;
        }>`INSERT INTO spans (trace_rowid, project_id, span_id, name, span_kind, start_time, end_time,
            status_code, status_message, attributes, events)
          VALUES (${traceRowid}, ${projectId}, ${spanId(n)}, 'chat', 'LLM', ${n}, ${n}, 'OK', '', '{}', '[]') RETURNING id`.execute(db);
        spanRowids.push(Number(inserted.rows[0]!.id));
      }
      await sql`INSERT INTO span_annotations (span_rowid, name, label, metadata, annotator_kind, identifier, source, created_at, updated_at)
        VALUES (${spanRowids[1]}, 'quality', 'good', '{}', 'HUMAN', '', 'API', 'now', 'now')`.execute(db);
      await sql`INSERT INTO span_costs (span_rowid, trace_rowid, project_id, model_id, start_time, prompt_cost, completion_cost, total_cost)
        VALUES (${spanRowids[0]}, ${traceRowid}, ${projectId}, NULL, 1, 0.5, 0.25, 0.75)`.execute(db);
      deletedId = spanRowids[3]!;
      await sql`DELETE FROM spans WHERE id = ${deletedId}`.execute(db);
      before0021 = await storedRows();

      await applyMigrations(db as Kysely<unknown>, dialect, all);
      const writer = openSpanWriter(database, file);
      write = writer.write;
      closeWriter = writer.close;
    });
    after(async () => {
      await closeWriter?.();
      await db?.destroy();
      await database?.drop();
    });

    it('keeps every span, the rows that reference them and the id sequence', async () => {
      assert.equal(before0021.length, 3);
      assert.deepEqual((await storedRows()).slice(0, 3), before0021);
      const annotations = await sql<{ span_rowid: number; label: string }>`SELECT span_rowid, label FROM span_annotations`.execute(db);
      assert.deepEqual(
        annotations.rows.map((r) => [Number(r.span_rowid), r.label]),
        [[before0021[1]!.id, 'good']],
      );
      const costs = await sql<{ span_rowid: number; total_cost: number }>`SELECT span_rowid, total_cost FROM span_costs`.execute(db);
      assert.deepEqual(
        costs.rows.map((r) => [Number(r.span_rowid), Number(r.total_cost)]),
        [[before0021[0]!.id, 0.75]],
      );
      await write([row('after-migration', 100)]);
      const added = (await storedRows()).find((r) => r.span_id === spanId(100))!;
      assert.ok(added.id > deletedId, `a new span takes id ${added.id}, after the deleted ${deletedId}`);
      if (dialect === 'sqlite') {
        const check = await sql`PRAGMA foreign_key_check`.execute(db);
        assert.deepEqual(check.rows, []);
      }
    });

    it('indexes spans by (trace, span id) uniquely and no longer by span id alone', async () => {
      const indexes =
        dialect === 'sqlite'
          ? (
              await sql<{
                sql: string | null;
                name: string;
              }>`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'spans'`.execute(db)
            ).rows
          : (
              await sql<{
                sql: string;
                name: string;
              }>`SELECT indexname AS name, indexdef AS sql FROM pg_indexes WHERE tablename = 'spans'`.execute(db)
            ).rows;
      const byName = new Map(indexes.map((index) => [index.name, (index.sql ?? '').replace(/"/g, '')]));
      assert.match(byName.get('spans_trace_span') ?? '', /UNIQUE INDEX spans_trace_span ON .*spans.*\(trace_rowid, span_id\)/);
      assert.match(byName.get('spans_span_id') ?? '', /INDEX spans_span_id ON .*spans.*\(\(+id >> 14\)+, span_id\)/);
      assert.ok(
        ![...byName.keys()].some((name) => name.startsWith('sqlite_autoindex_spans') || name === 'spans_span_id_key'),
        [...byName.keys()].join(),
      );
      assert.ok(!byName.has('spans_trace_start'), 'the unique index leads with the trace instead');
      // Every other index the table had before is back (0023 keys SQLite's name index by start second since).
      const nameIndex = dialect === 'sqlite' ? 'spans_project_name_second' : 'spans_project_name_start';
      for (const name of ['spans_project_start_id', 'spans_project_roots', 'spans_project_errors', nameIndex]) {
        assert.ok(byName.has(name), name);
      }
    });

    it('drops a span repeated in its trace and keeps the same span id in another trace', async () => {
      await write([row('dup-a', 200), row('dup-a', 200), row('dup-a', 201)]);
      await write([row('dup-a', 200), row('dup-b', 200)]);
      const stored = (await storedRows()).filter((r) => r.span_id === spanId(200) || r.span_id === spanId(201));
      assert.deepEqual(
        stored.map((r) => [r.trace_id, r.span_id]),
        [
          [traceId('dup-a'), spanId(200)],
          [traceId('dup-a'), spanId(201)],
          [traceId('dup-b'), spanId(200)],
        ],
      );
      const repositories = createRepositories(db, dialect);
      const newest = stored[2]!.id;
      assert.equal((await repositories.spans.rowidsBySpanId([spanId(200)])).get(spanId(200)), newest);
      assert.equal((await repositories.spans.findBySpanId(spanId(200)))?.traceId, traceId('dup-b'));
      // Filters find every span with the id: both spans 200, and the child of the older one.
      await write([spanRow({ ...row('dup-a', 202), parentId: spanId(200) })]);
      const listed = await repositories.spans.list({ projectId, spanIds: [spanId(200)] }, { limit: 10, order: 'desc' });
      assert.deepEqual(listed.map((span) => span.traceId).sort(), [traceId('dup-a'), traceId('dup-b')]);
      const children = await repositories.spans.list({ projectId, parentId: spanId(200) }, { limit: 10, order: 'desc' });
      assert.deepEqual(
        children.map((span) => span.spanId),
        [spanId(202)],
      );
    });

    it('finds spans by span id in any row-id bucket, newest bucket first', async () => {
      // Spans far apart: more buckets between them than one statement probes.
      const firstId = 300 * BUCKET + 5;
      await setNextSpanId(firstId);
      await write([row('far', 300), row('far-child', 301)]);
      await setNextSpanId(firstId + 150 * BUCKET);
      await write([spanRow({ ...row('far-child', 302), parentId: spanId(301) }), spanRow({ ...row('other', 303, OTHER_PROJECT) })]);
      const stored = new Map((await storedRows()).map((r) => [r.span_id, r.id]));
      assert.equal(stored.get(spanId(300)), firstId);
      assert.ok(stored.get(spanId(302))! >= firstId + 150 * BUCKET);

      const repositories = createRepositories(db, dialect);
      const wanted = [spanId(1), spanId(300), spanId(302), spanId(303), spanId(999)];
      const found = await repositories.spans.rowidsBySpanId(wanted);
      assert.deepEqual(
        [...found.entries()].sort(),
        [
          [spanId(1), stored.get(spanId(1))],
          [spanId(300), stored.get(spanId(300))],
          [spanId(302), stored.get(spanId(302))],
          [spanId(303), stored.get(spanId(303))],
        ].sort(),
      );
      assert.equal((await repositories.spans.findBySpanId(spanId(300)))?.id, firstId);
      assert.equal(await repositories.spans.findBySpanId(spanId(999)), undefined);
      assert.equal(await repositories.spans.anyInProject(projectId, [spanId(303)]), false, 'span 303 is in the other project');
      assert.equal(await repositories.spans.anyInProject(projectId, [spanId(303), spanId(1)]), true);

      const list = async (filters: { spanIds?: string[]; parentId?: string }) =>
        (await repositories.spans.list({ projectId, ...filters }, { limit: 10, order: 'desc' })).map((span) => span.spanId);
      assert.deepEqual(await list({ spanIds: [spanId(1), spanId(302), spanId(303), spanId(999)] }), [spanId(302), spanId(1)]);
      assert.deepEqual(await list({ spanIds: [spanId(999)] }), []);
      assert.deepEqual(await list({ parentId: spanId(301) }), [spanId(302)]);

      const annotations = await repositories.annotations.list('span', { projectId, targets: [spanId(2), spanId(300)], limit: 10 });
      assert.deepEqual(
        annotations.map((annotation) => [annotation.target, annotation.label]),
        [[spanId(2), 'good']],
      );
    });

    if (dialect === 'sqlite') {
      it('looks span ids up through the bucketed index', async () => {
        statements = [];
        await createRepositories(db, dialect).spans.rowidsBySpanId([spanId(1)]);
        const ran = [...statements];
        const lookups = ran.filter((statement) => statement.sql.includes('>> 14'));
        assert.ok(lookups.length > 1, 'the lookup went through every bucket down to span 1');
        for (const statement of ran) {
          const plan = await db.executeQuery(CompiledQuery.raw(`explain query plan ${statement.sql}`, [...statement.parameters]));
          const detail = plan.rows.map((r) => (r as { detail: string }).detail).join('\n');
          // No statement reads the whole table (min and max together in one query would).
          assert.doesNotMatch(detail, /SCAN spans/, detail);
          if (lookups.includes(statement)) assert.match(detail, /USING COVERING INDEX spans_span_id/, detail);
        }
      });
    }
  });
}
