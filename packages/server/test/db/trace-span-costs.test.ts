/**
 * The costs of a trace's spans read by the trace (costs-repository.ts `spanCostsOfTrace`), as the
 * trace page reads them beside its spans: every priced span of the trace and no other trace's,
 * and nothing (undefined) when the trace has more priced spans than the bound, so that the page
 * falls back to reading its own spans' costs by id.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { applyMigrations } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { createRepositories } from '../../src/db/repositories/index.js';
import type { DB } from '../../src/db/schema.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { spanRow } from '../helpers/span-row.js';
import { openLoggedKysely, openSpanWriter } from '../helpers/span-writer.js';

const PROJECT = 'costly';
const START = 1_764_000_000_000_000_000n;
const TRACE_A = 'a'.repeat(32);
const TRACE_B = 'b'.repeat(32);

for (const dialect of DIALECTS) {
  describe(`the costs of a trace's spans [${dialect}]`, () => {
    let database: TestDatabase;
    let db: Kysely<DB>;
    /** Row ids of the spans of each trace, in span-id order. */
    const spansOf = new Map<string, number[]>();
    let traceRowid: Map<string, number>;

    before(async () => {
      database = await createTestDatabase(dialect);
      const file = path.join(database.workingDir, 'sightline.db');
      db = openLoggedKysely(database, file, () => []);
      await applyMigrations(db as Kysely<unknown>, dialect, migrations({ dialect }));
      const writer = openSpanWriter(database, file);
      const rows = [TRACE_A, TRACE_B].flatMap((traceId, t) =>
        Array.from({ length: 4 }, (_, n) =>
          spanRow({
            projectName: PROJECT,
            traceId,
            spanId: `${t}${n}`.padStart(16, '0'),
            startTime: START + BigInt(n),
            endTime: START + BigInt(n),
          }),
        ),
      );
      await writer.write(rows);
      await writer.close();
      const stored = await db
        .selectFrom('spans')
        .innerJoin('traces', 'traces.id', 'spans.trace_rowid')
        .select(['spans.id', 'spans.project_id', 'spans.trace_rowid', 'traces.trace_id'])
        .orderBy('spans.span_id')
        .execute();
      traceRowid = new Map(stored.map((row) => [row.trace_id, Number(row.trace_rowid)]));
      for (const row of stored) spansOf.set(row.trace_id, [...(spansOf.get(row.trace_id) ?? []), Number(row.id)]);
      // Three of trace A's four spans are priced, and one of trace B's.
      const priced = [
        ...spansOf
          .get(TRACE_A)!
          .slice(0, 3)
          .map((id) => [TRACE_A, id] as const),
        [TRACE_B, spansOf.get(TRACE_B)![0]!] as const,
      ];
      for (const [index, [traceId, spanRowid]] of priced.entries()) {
        const projectId = stored[0]!.project_id;
        await sql`INSERT INTO span_costs (span_rowid, trace_rowid, project_id, model_id, start_time, prompt_cost, completion_cost, total_cost)
          VALUES (${spanRowid}, ${traceRowid.get(traceId)}, ${projectId}, NULL, 1, ${index + 0.5}, 1, ${index + 1.5})`.execute(db);
      }
    });
    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    it("reads every priced span of the trace and none of another trace's", async () => {
      const costs = await createRepositories(db, dialect).costs.spanCostsOfTrace(traceRowid.get(TRACE_A)!, 3);
      assert.ok(costs, 'three priced spans are within a bound of three');
      const [first, second, third] = spansOf.get(TRACE_A)!;
      assert.deepEqual(
        [...costs.entries()].sort(([a], [b]) => a - b).map(([id, total]) => [id, total.totalCost]),
        [
          [first, 1.5],
          [second, 2.5],
          [third, 3.5],
        ],
      );
      // The same costs as reading those spans by id.
      assert.deepEqual(costs, await createRepositories(db, dialect).costs.spanCosts(spansOf.get(TRACE_A)!));
    });

    it('answers undefined when the trace has more priced spans than the bound', async () => {
      assert.equal(await createRepositories(db, dialect).costs.spanCostsOfTrace(traceRowid.get(TRACE_A)!, 2), undefined);
      const other = await createRepositories(db, dialect).costs.spanCostsOfTrace(traceRowid.get(TRACE_B)!, 2);
      assert.equal(other?.size, 1);
    });
  });
}
