/**
 * Time-partitioned traces and spans on PostgreSQL (migration 0022, docs/partitioning.md): the
 * migration turns a database written by the release before it into the partitioned layout in
 * place, keeping every row id and every row that references one; the writer puts a new trace
 * and its spans in the partition of the trace's day (within a day of today), keeps a trace that
 * arrives in several batches in one row, and continues traces stored before the migration in the
 * legacy partition; replicas racing on new traces store each once; deleting a trace or a
 * session deletes its spans, which have no foreign key to traces on PostgreSQL. On SQLite the migration only gives span and document annotations their trace.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createPgPool } from '@sightline/common';
import { type CompiledQuery, type Kysely, sql } from 'kysely';
import { applyMigrations } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { dayOfMillis, dayOfRowid, partitionName, ROWIDS_PER_DAY } from '../../src/db/partitions.js';
import { createRepositories } from '../../src/db/repositories/index.js';
import { createDayPartitions } from '../../src/db/repositories/partitions-postgres.js';
import { createRetentionJob } from '../../src/retention/retention-job.js';
import type { DB } from '../../src/db/schema.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { spanRow } from '../helpers/span-row.js';
import { openLoggedKysely, openSpanWriter, type TestSpanWriter } from '../helpers/span-writer.js';
import { insertProject } from '../helpers/stored.js';

const PROJECT = 'partitions';
const NANOS_PER_DAY = 86_400_000_000_000n;
const traceId = (name: string) => Buffer.from(name).toString('hex').padEnd(32, '0').slice(0, 32);
const spanId = (n: number) => n.toString(16).padStart(16, '0');
/** Nanoseconds at `days` from now (negative: in the past). */
const daysFromNow = (days: number) => BigInt(Date.now()) * 1_000_000n + BigInt(days) * NANOS_PER_DAY;

const annotation = {
  name: 'quality',
  annotatorKind: 'HUMAN' as const,
  label: 'good',
  score: 1,
  explanation: null,
  metadata: {},
  identifier: '',
  source: 'API' as const,
  userId: null,
};

for (const dialect of DIALECTS) {
  describe(`time partitions (migration 0022) [${dialect}]`, () => {
    let database: TestDatabase;
    let db: Kysely<DB>;
    let writer: TestSpanWriter;
    let legacyTraceRowid: number;
    let legacySpanRowids: number[];
    const statements: CompiledQuery[] = [];

    const row = (trace: string, n: number, start: bigint, extra: Partial<Parameters<typeof spanRow>[0]> = {}) =>
      spanRow({ projectName: PROJECT, traceId: traceId(trace), spanId: spanId(n), startTime: start, endTime: start + 1000n, ...extra });
    /** trace id → (row id, partition) of every stored trace, and span id → (trace row id, partition) of every span. */
    const stored = async () => {
      const partition = dialect === 'postgres' ? sql<string>`tableoid::regclass::text` : sql<string>`'main'`;
      const traces = await sql<{ trace_id: string; id: string; part: string }>`
        SELECT trace_id, id, ${partition} AS part FROM traces ORDER BY id`.execute(db);
      const spans = await sql<{ span_id: string; id: string; trace_rowid: string; part: string }>`
        SELECT span_id, id, trace_rowid, ${partition} AS part FROM spans ORDER BY id`.execute(db);
      return {
        traces: traces.rows.map((r) => ({ traceId: r.trace_id, id: Number(r.id), part: r.part })),
        spans: spans.rows.map((r) => ({ spanId: r.span_id, id: Number(r.id), traceRowid: Number(r.trace_rowid), part: r.part })),
      };
    };

    before(async () => {
      database = await createTestDatabase(dialect);
      const file = path.join(database.workingDir, 'sightline.db');
      db = openLoggedKysely(database, file, () => statements);
      const all = migrations({ dialect });
      await applyMigrations(db as Kysely<unknown>, dialect, Object.fromEntries(Object.entries(all).filter(([name]) => name < '0022')));

      // As the release before 0022 stored them: a trace of two spans, an annotation of each kind
      // on them and a cost.
      const projectId = await insertProject(db, PROJECT);
      const trace = await sql<{ id: string }>`INSERT INTO traces (project_id, trace_id, start_time, end_time)
        VALUES (${projectId}, ${traceId('legacy')}, 1, 2) RETURNING id`.execute(db);
      legacyTraceRowid = Number(trace.rows[0]!.id);
      legacySpanRowids = [];
      for (const n of [1, 2]) {
        const span = await sql<{ id: string }>`INSERT INTO spans (trace_rowid, project_id, span_id, name, span_kind, start_time,
            end_time, status_code, status_message, attributes, events)
          VALUES (${legacyTraceRowid}, ${projectId}, ${spanId(n)}, 'chat', 'LLM', ${n}, ${n}, 'OK', '', '{}', '[]') RETURNING id`.execute(
          db,
        );
        legacySpanRowids.push(Number(span.rows[0]!.id));
      }
      await sql`INSERT INTO span_annotations (span_rowid, name, label, metadata, annotator_kind, identifier, source, created_at, updated_at)
        VALUES (${legacySpanRowids[0]}, 'quality', 'good', '{}', 'HUMAN', '', 'API', 'now', 'now')`.execute(db);
      await sql`INSERT INTO document_annotations (span_rowid, document_position, name, label, metadata, annotator_kind, identifier,
          source, created_at, updated_at)
        VALUES (${legacySpanRowids[1]}, 0, 'relevance', 'yes', '{}', 'HUMAN', '', 'API', 'now', 'now')`.execute(db);
      await sql`INSERT INTO span_costs (span_rowid, trace_rowid, project_id, model_id, start_time, prompt_cost, completion_cost, total_cost)
        VALUES (${legacySpanRowids[0]}, ${legacyTraceRowid}, ${projectId}, NULL, 1, 0.5, 0.25, 0.75)`.execute(db);

      await applyMigrations(db as Kysely<unknown>, dialect, all);
      writer = openSpanWriter(database, file);
    });
    after(async () => {
      await writer?.close();
      await db?.destroy();
      await database?.drop();
    });

    it('keeps every row id and gives span and document annotations their trace', async () => {
      const { traces, spans } = await stored();
      assert.deepEqual(
        traces.map((t) => t.id),
        [legacyTraceRowid],
      );
      assert.deepEqual(
        spans.map((s) => [s.id, s.traceRowid]),
        legacySpanRowids.map((id) => [id, legacyTraceRowid]),
      );
      const spanAnnotations = await sql<{
        span_rowid: string;
        trace_rowid: string;
      }>`SELECT span_rowid, trace_rowid FROM span_annotations`.execute(db);
      assert.deepEqual(
        spanAnnotations.rows.map((r) => [Number(r.span_rowid), Number(r.trace_rowid)]),
        [[legacySpanRowids[0], legacyTraceRowid]],
      );
      const documents = await sql<{
        span_rowid: string;
        trace_rowid: string;
      }>`SELECT span_rowid, trace_rowid FROM document_annotations`.execute(db);
      assert.deepEqual(
        documents.rows.map((r) => [Number(r.span_rowid), Number(r.trace_rowid)]),
        [[legacySpanRowids[1], legacyTraceRowid]],
      );
      if (dialect === 'postgres') {
        assert.deepEqual(
          traces.map((t) => t.part),
          ['traces_legacy'],
        );
        assert.deepEqual(
          spans.map((s) => s.part),
          ['spans_legacy', 'spans_legacy'],
        );
        const ids = await sql<{ trace_id: string; trace_rowid: string }>`SELECT trace_id, trace_rowid FROM trace_ids`.execute(db);
        assert.deepEqual(
          ids.rows.map((r) => [r.trace_id, Number(r.trace_rowid)]),
          [[traceId('legacy'), legacyTraceRowid]],
        );
        const partitioned = await sql<{ name: string; key: string }>`
          SELECT c.relname AS name, pg_get_partkeydef(c.oid) AS key FROM pg_class c
          WHERE c.relkind = 'p' AND c.relname IN ('traces', 'spans') ORDER BY 1`.execute(db);
        assert.deepEqual(partitioned.rows, [
          { name: 'spans', key: 'RANGE (trace_rowid)' },
          { name: 'traces', key: 'RANGE (id)' },
        ]);
      }
    });

    it('puts a new trace and its spans in the partition of its day, within a day of today', async () => {
      const today = dayOfMillis(Date.now());
      await writer.write([row('today', 10, daysFromNow(0)), row('today', 11, daysFromNow(0)), row('old', 12, daysFromNow(-40))]);
      await writer.write([row('future', 13, daysFromNow(30)), row('yesterday', 14, daysFromNow(-1))]);
      const { traces, spans } = await stored();
      const byTrace = new Map(traces.map((t) => [t.traceId, t]));
      for (const [name, offset] of [
        ['today', 0],
        ['old', -1],
        ['future', 1],
        ['yesterday', -1],
      ] as const) {
        const trace = byTrace.get(traceId(name))!;
        if (dialect === 'sqlite') {
          assert.ok(trace.id < 2 ** 32, `SQLite keeps its row ids (${name})`);
          continue;
        }
        assert.equal(dayOfRowid(trace.id), today + offset, name);
        assert.equal(trace.part, partitionName('traces', today + offset), name);
        for (const span of spans.filter((s) => s.traceRowid === trace.id))
          assert.equal(span.part, partitionName('spans', today + offset), name);
      }
      assert.equal(spans.filter((s) => s.traceRowid === byTrace.get(traceId('today'))!.id).length, 2);
      // Span row ids stay dense: each new span takes the next one.
      const newSpanIds = spans.filter((s) => s.id > legacySpanRowids[1]!).map((s) => s.id);
      assert.equal(newSpanIds.length, 5);
      assert.equal(newSpanIds[4]! - newSpanIds[0]!, 4);
    });

    it('keeps a trace that arrives in several batches in one row, and a repeated span once', async () => {
      await writer.write([row('batches', 20, daysFromNow(0))]);
      // An earlier span of the same trace, from the day before: the trace keeps its row and partition.
      const earlier = daysFromNow(-1);
      await writer.write([row('batches', 21, earlier), row('batches', 20, daysFromNow(0))]);
      const { traces, spans } = await stored();
      const rows = traces.filter((t) => t.traceId === traceId('batches'));
      assert.equal(rows.length, 1);
      assert.deepEqual(
        spans.filter((s) => s.traceRowid === rows[0]!.id).map((s) => s.spanId),
        [spanId(20), spanId(21)],
      );
      const times = await sql<{
        start_time: string;
      }>`SELECT cast(start_time AS text) AS start_time FROM traces WHERE id = ${rows[0]!.id}`.execute(db);
      assert.equal(BigInt(times.rows[0]!.start_time), earlier, 'the trace starts with its earliest span');
    });

    it('continues a trace stored before the migration in its own partition', async () => {
      await writer.write([row('legacy', 3, 5n)]);
      const { traces, spans } = await stored();
      assert.equal(traces.filter((t) => t.traceId === traceId('legacy')).length, 1);
      const added = spans.find((s) => s.spanId === spanId(3))!;
      assert.equal(added.traceRowid, legacyTraceRowid);
      if (dialect === 'postgres') assert.equal(added.part, 'spans_legacy');
    });

    it('annotates spans of a day partition and deletes a trace with its spans and what references them', async () => {
      const repositories = createRepositories(db, dialect);
      const { traces, spans } = await stored();
      const trace = traces.find((t) => t.traceId === traceId('today'))!;
      const span = spans.find((s) => s.traceRowid === trace.id)!;
      const now = new Date().toISOString();
      await repositories.annotations.upsert({ kind: 'span', rowid: span.id }, annotation, now);
      await repositories.annotations.upsert({ kind: 'document', rowid: span.id, position: 1 }, { ...annotation, name: 'relevance' }, now);
      const traceOf = async (table: 'span_annotations' | 'document_annotations') =>
        (
          await sql<{ trace_rowid: string }>`SELECT trace_rowid FROM ${sql.table(table)} WHERE span_rowid = ${span.id}`.execute(db)
        ).rows.map((r) => Number(r.trace_rowid));
      assert.deepEqual(await traceOf('span_annotations'), [trace.id]);
      assert.deepEqual(await traceOf('document_annotations'), [trace.id]);

      assert.equal(await repositories.traces.deleteById(trace.id), true);
      assert.deepEqual(await traceOf('span_annotations'), []);
      assert.deepEqual(await traceOf('document_annotations'), []);
      const after = await stored();
      assert.equal(
        after.spans.some((s) => s.traceRowid === trace.id),
        false,
      );
      // A trace id that comes back after its trace was deleted is a trace again, without the old spans.
      await writer.write([row('today', 30, daysFromNow(0))]);
      const again = await stored();
      const back = again.traces.filter((t) => t.traceId === traceId('today'));
      assert.equal(back.length, 1);
      assert.deepEqual(
        again.spans.filter((s) => s.traceRowid === back[0]!.id).map((s) => s.spanId),
        [spanId(30)],
      );
      // On PostgreSQL it keeps its row id (trace_ids), so its day's partition.
      if (dialect === 'postgres') assert.equal(back[0]!.part, trace.part);
    });

    it('deletes a session with its traces and their spans', async () => {
      await writer.write([
        row('in-session-1', 40, daysFromNow(0), { sessionId: 'doomed' }),
        row('in-session-1', 41, daysFromNow(0), { sessionId: 'doomed' }),
        row('in-session-2', 42, daysFromNow(0), { sessionId: 'doomed' }),
        row('kept', 43, daysFromNow(0), { sessionId: 'kept' }),
      ]);
      const sessions = await sql<{ id: string; session_id: string }>`SELECT id, session_id FROM project_sessions`.execute(db);
      const doomed = Number(sessions.rows.find((r) => r.session_id === 'doomed')!.id);
      const before = await stored();
      const doomedTraces = before.traces.filter((t) => t.traceId === traceId('in-session-1') || t.traceId === traceId('in-session-2'));
      assert.equal(doomedTraces.length, 2);
      assert.equal(await createRepositories(db, dialect).sessions.deleteByIds([doomed]), 1);
      const after = await stored();
      const gone = new Set(doomedTraces.map((t) => t.id));
      assert.deepEqual(
        after.spans.filter((s) => gone.has(s.traceRowid)),
        [],
      );
      assert.deepEqual(
        after.traces.filter((t) => gone.has(t.id)),
        [],
      );
      assert.ok(
        after.spans.some((s) => s.spanId === spanId(43)),
        'the other session keeps its span',
      );
    });

    if (dialect === 'postgres') {
      it('stores each new trace once when replicas write the same traces at once', async () => {
        const writers = [openSpanWriter(database, ''), openSpanWriter(database, '')];
        try {
          const batch = (w: number) =>
            Array.from({ length: 40 }, (_, i) => row(`race-${i}`, 1000 + w * 100 + i, daysFromNow(0) - BigInt(w * 1000)));
          await Promise.all(writers.map((w, index) => w.write(batch(index))));
        } finally {
          await Promise.all(writers.map((w) => w.close()));
        }
        const { traces, spans } = await stored();
        const raced = traces.filter((t) => t.traceId.startsWith(traceId('race-').slice(0, 10)));
        assert.equal(raced.length, 40);
        assert.equal(new Set(raced.map((t) => t.traceId)).size, 40);
        const rowids = new Set(raced.map((t) => t.id));
        assert.equal(spans.filter((s) => rowids.has(s.traceRowid)).length, 80);
      });

      it('creates tomorrow’s partitions ahead of need', async () => {
        const tomorrow = dayOfMillis(Date.now()) + 1;
        const tables = await sql<{ name: string }>`
          SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent IN ('traces'::regclass, 'spans'::regclass) ORDER BY 1`.execute(db);
        const names = tables.rows.map((r) => r.name);
        assert.ok(names.includes(partitionName('traces', tomorrow)), names.join());
        assert.ok(names.includes(partitionName('spans', tomorrow)), names.join());
      });

      it('retention drops a day whose every trace is past its project’s max_days, with what references it', async () => {
        const today = dayOfMillis(Date.now());
        const [expiredDay, keptDay] = [today - 10, today - 9];
        const pool = createPgPool(database.url!, 1);
        try {
          await createDayPartitions(pool, [expiredDay, keptDay]);
        } finally {
          await pool.end();
        }
        const aged = await insertProject(db, 'aged');
        const kept = await insertProject(db, 'kept');
        await sql`INSERT INTO retention_policies (project_id, max_days, created_at, updated_at) VALUES (${aged}, 5, 'now', 'now')`.execute(
          db,
        );
        const session = await sql<{ id: string }>`INSERT INTO project_sessions (project_id, session_id, start_time, end_time)
          VALUES (${aged}, 'old-session', 1, 2) RETURNING id`.execute(db);
        const insertTrace = async (projectId: number, day: number, n: number, sessionRowid: number | null) => {
          const id = day * ROWIDS_PER_DAY + n;
          const start = BigInt(day) * NANOS_PER_DAY + BigInt(n);
          await sql`INSERT INTO traces (id, project_id, trace_id, start_time, end_time, project_session_rowid)
            VALUES (${id}, ${projectId}, ${traceId(`day-${day}-${n}`)}, ${start}, ${start}, ${sessionRowid})`.execute(db);
          await sql`INSERT INTO trace_ids (trace_id, trace_rowid) VALUES (${traceId(`day-${day}-${n}`)}, ${id})`.execute(db);
          const span = await sql<{ id: string }>`INSERT INTO spans (trace_rowid, project_id, span_id, name, span_kind, start_time,
              end_time, status_code, status_message, attributes, events)
            VALUES (${id}, ${projectId}, ${spanId(n)}, 'chat', 'LLM', ${start}, ${start}, 'OK', '', '{}', '[]') RETURNING id`.execute(db);
          return { id, spanRowid: Number(span.rows[0]!.id) };
        };
        const old = await insertTrace(aged, expiredDay, 1, Number(session.rows[0]!.id));
        await insertTrace(aged, expiredDay, 2, null);
        const other = await insertTrace(kept, keptDay, 3, null);
        await insertTrace(aged, keptDay, 4, null);
        const now = new Date().toISOString();
        const repositories = createRepositories(db, 'postgres');
        await repositories.annotations.upsert({ kind: 'span', rowid: old.spanRowid }, annotation, now);
        await repositories.annotations.upsert({ kind: 'trace', rowid: old.id }, annotation, now);
        await sql`INSERT INTO span_costs (span_rowid, trace_rowid, project_id, model_id, start_time, prompt_cost, completion_cost, total_cost)
          VALUES (${old.spanRowid}, ${old.id}, ${aged}, NULL, 1, 0.5, 0.25, 0.75)`.execute(db);
        const partitions = async () =>
          (
            await sql<{ name: string }>`
              SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
              WHERE i.inhparent IN ('traces'::regclass, 'spans'::regclass)`.execute(db)
          ).rows.map((r) => r.name);

        const job = createRetentionJob({
          repositories,
          withTransaction: (work) => db.transaction().execute((trx) => work(createRepositories(trx, 'postgres'))),
          intervalMs: 3_600_000,
        });
        const run = await job.runNow();
        await job.stop();

        const names = await partitions();
        assert.ok(
          !names.includes(partitionName('traces', expiredDay)) && !names.includes(partitionName('spans', expiredDay)),
          names.join(),
        );
        // The next day holds a trace of a project without a policy: its partitions stay, and the
        // expired trace of the other project in it goes row by row.
        assert.ok(names.includes(partitionName('traces', keptDay)) && names.includes(partitionName('spans', keptDay)), names.join());
        const left = await sql<{ id: string }>`SELECT id FROM traces WHERE id >= ${expiredDay * ROWIDS_PER_DAY} ORDER BY id`.execute(db);
        assert.deepEqual(
          left.rows.map((r) => Number(r.id)).filter((id) => dayOfRowid(id) <= keptDay),
          [other.id],
        );
        const count = async (table: string) =>
          Number(
            (await sql<{ n: string }>`SELECT count(*) AS n FROM ${sql.table(table)} WHERE trace_rowid = ${old.id}`.execute(db)).rows[0]!.n,
          );
        for (const table of ['trace_ids', 'span_annotations', 'trace_annotations', 'span_costs'])
          assert.equal(await count(table), 0, table);
        const sessions = await sql`SELECT id FROM project_sessions WHERE session_id = 'old-session'`.execute(db);
        assert.equal(sessions.rows.length, 0, 'the session left without traces is gone');
        const agedRun = run.projects.find((p) => p.projectId === aged)!;
        assert.deepEqual([agedRun.deletedTraces, agedRun.deletedSpans], [3, 3]);
        assert.equal(run.deletedSessions, 1);
      });
    }
  });
}
