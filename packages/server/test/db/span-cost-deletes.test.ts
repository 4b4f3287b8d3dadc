/**
 * Costs go with their spans on both databases: deleting a span, a trace, a session's traces or
 * retention's traces deletes their span_costs rows, and nothing else's. On PostgreSQL no foreign
 * key from span_costs to the partitioned spans or traces does it any more (migration 0047: each
 * check cost the cost job 177 µs a row); the repositories delete the costs themselves.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createDataAccess } from '../../src/db/repositories/index.js';
import { spanRow } from '../helpers/span-row.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { openSpanWriter } from '../helpers/span-writer.js';

const START = 1_764_000_000_000_000_000n;

for (const dialect of DIALECTS) {
  describe(`span costs deleted with their spans [${dialect}]`, () => {
    let test: TestDatabase;
    let database: Database;
    const traces = ['a', 'b', 'c', 'd', 'e'].map((letter) => letter.repeat(32));

    before(async () => {
      test = await createTestDatabase(dialect);
      const file = path.join(test.workingDir, 'costs.db');
      database = openDatabase(dialect === 'sqlite' ? { dialect, url: file } : { dialect, url: test.url! });
      await migrateToLatest(database);
      const writer = openSpanWriter(test, file);
      // Two spans in each of five traces; trace c in a session.
      await writer.write(
        traces.flatMap((traceId, t) =>
          [0, 1].map((s) =>
            spanRow({
              projectName: 'costs',
              traceId,
              spanId: `${t}${s}`.padStart(16, '0'),
              parentId: s === 0 ? null : `${t}0`.padStart(16, '0'),
              startTime: START + BigInt(t * 1000 + s),
              endTime: START + BigInt(t * 1000 + s + 10),
              sessionId: traceId === traces[2] ? 'session-c' : null,
            }),
          ),
        ),
      );
      await writer.close();
      // A cost for every span.
      await sql`INSERT INTO span_costs (span_rowid, trace_rowid, project_id, model_id, start_time, prompt_cost, completion_cost, total_cost)
        SELECT id, trace_rowid, project_id, NULL, start_time, 1, 1, 2 FROM spans`.execute(database.db);
    });
    after(async () => {
      await database?.close();
      await test?.drop();
    });

    const costsOf = async (traceId: string) => {
      const result = await sql<{
        n: number;
      }>`SELECT count(*) AS n FROM span_costs c JOIN traces t ON t.id = c.trace_rowid WHERE t.trace_id = ${traceId}`.execute(database.db);
      return Number(result.rows[0]!.n);
    };
    const rowidOf = async (traceId: string) =>
      Number((await sql<{ id: number }>`SELECT id FROM traces WHERE trace_id = ${traceId}`.execute(database.db)).rows[0]!.id);
    const totalCosts = async () => Number((await sql<{ n: number }>`SELECT count(*) AS n FROM span_costs`.execute(database.db)).rows[0]!.n);

    it('deletes a span with its cost, a trace, a session and retention traces with theirs', async () => {
      const { repositories, withTransaction } = createDataAccess(database);
      assert.equal(await totalCosts(), 10);
      // One span of trace a.
      const span = await sql<{
        id: number;
      }>`SELECT s.id FROM spans s JOIN traces t ON t.id = s.trace_rowid WHERE t.trace_id = ${traces[0]} AND s.parent_id IS NOT NULL`.execute(
        database.db,
      );
      assert.ok(await repositories.spans.deleteById(Number(span.rows[0]!.id)));
      assert.equal(await costsOf(traces[0]!), 1);
      // Trace b.
      const traceB = await rowidOf(traces[1]!);
      assert.equal(await repositories.traces.deleteById(traceB), true);
      assert.equal(await totalCosts(), 7);
      // The session of trace c.
      const session = await sql<{ id: number }>`SELECT id FROM project_sessions WHERE session_id = 'session-c'`.execute(database.db);
      assert.equal(await repositories.sessions.deleteByIds([Number(session.rows[0]!.id)]), 1);
      assert.equal(await totalCosts(), 5);
      // Retention's traces d.
      const traceD = await rowidOf(traces[3]!);
      await withTransaction((scoped) => scoped.retention.deleteTraces([traceD]));
      assert.equal(await totalCosts(), 3);
      // Trace e and the rest of a keep theirs.
      assert.equal(await costsOf(traces[4]!), 2);
      assert.equal(await costsOf(traces[0]!), 1);
      const orphans = await sql<{
        n: number;
      }>`SELECT count(*) AS n FROM span_costs c WHERE NOT EXISTS (SELECT 1 FROM spans s WHERE s.id = c.span_rowid)`.execute(database.db);
      assert.equal(Number(orphans.rows[0]!.n), 0);
    });

    if (dialect === 'postgres') {
      it('has no foreign key from span_costs to the partitioned spans or traces (migration 0047)', async () => {
        const keys = await sql<{ name: string }>`
          SELECT conname AS name FROM pg_constraint
          WHERE contype = 'f' AND conrelid = 'span_costs'::regclass AND confrelid IN ('spans'::regclass, 'traces'::regclass)`.execute(
          database.db,
        );
        assert.deepEqual(keys.rows, []);
      });
    }
  });
}
