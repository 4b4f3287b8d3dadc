/**
 * Pages of a big dataset's examples on PostgreSQL, whatever its statistics say (docs/datasets.md,
 * "Reading big datasets"). Autovacuum analyzes on its own schedule, so right after a big upload a
 * table's statistics can describe it empty: then the "newest revision at the version" query,
 * written with a correlated subquery in its filter, scanned every revision for each page (40 s a
 * page at 200,000 examples in the suite). Plans are read with EXPLAIN, not timed: a plan that
 * scans the revisions is the regression, whatever the machine's speed. An upload of many examples
 * refreshes the statistics itself before it answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import { createPgPool } from '../../src/db/database.js';
import { createDatasetsRepository } from '../../src/db/repositories/datasets-repository.js';
import type { DB } from '../../src/db/schema.js';
import { seedDataset } from '../helpers/big-datasets.js';
import { createMigratedTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { startServerOn } from '../helpers/server.js';

const EXAMPLES = 20_000;
const TABLES = ['dataset_examples', 'dataset_example_revisions'];

if (DIALECTS.includes('postgres')) {
  describe('dataset pages on PostgreSQL with statistics taken before the upload', () => {
    let database: TestDatabase;
    let db: Kysely<DB>;
    const executed: CompiledQuery[] = [];
    before(async () => {
      database = await createMigratedTestDatabase('postgres');
      db = new Kysely<DB>({
        dialect: new PostgresDialect({ pool: createPgPool(database.url!, 1) }),
        log: (event) => {
          if (event.level === 'query') executed.push(event.query);
        },
      });
      // Autovacuum is kept off, so that the statistics stay as each test leaves them.
      for (const table of TABLES) await sql`alter table ${sql.table(table)} set (autovacuum_enabled = false)`.execute(db);
    });
    after(async () => {
      await db?.destroy();
      await database?.drop();
    });

    /** The plan PostgreSQL chooses for the last statement the repository ran. */
    async function planOfLast(): Promise<string> {
      const query = executed.at(-1)!;
      const explained = await db.executeQuery<{ 'QUERY PLAN': string }>({ ...query, sql: `explain ${query.sql}` } as CompiledQuery<{
        'QUERY PLAN': string;
      }>);
      return explained.rows.map((row) => row['QUERY PLAN']).join('\n');
    }

    it('reads a page of texts and a page of ids through the examples, never scanning every revision', async () => {
      // What autovacuum can leave: the revisions analyzed while empty (their upload not yet
      // committed), the examples after theirs.
      await sql`analyze dataset_example_revisions`.execute(db);
      const { datasetId, versionId } = await seedDataset(db as unknown as Kysely<unknown>, 'big', EXAMPLES, { refreshStatistics: false });
      await sql`analyze dataset_examples`.execute(db);
      const datasets = createDatasetsRepository(db, 'postgres');

      const texts = await datasets.exampleTextsAt(datasetId, versionId, 5_000, 2_000);
      assert.deepEqual([texts.length, texts[0]!.externalId, texts.at(-1)!.externalId], [2_000, 'e5001', 'e7000']);
      const textsPlan = await planOfLast();
      assert.doesNotMatch(textsPlan, /Seq Scan on dataset_example_revisions/, textsPlan);

      const ids = await datasets.exampleIdsAt(datasetId, versionId, 5_000, 2_000);
      assert.deepEqual([ids.length, ids[0]], [2_000, texts[0]!.id]);
      const idsPlan = await planOfLast();
      assert.doesNotMatch(idsPlan, /Seq Scan on dataset_example_revisions/, idsPlan);
    });

    it('refreshes the statistics after an upload of 10,000 examples, not after a small one', async () => {
      const server = await startServerOn(database);
      try {
        // When each table was last analyzed by hand (autovacuum's analyses are counted apart, and it is off here).
        const lastAnalyzed = async () =>
          (
            await sql<{ relname: string; at: Date | null }>`
              select relname, last_analyze as at from pg_stat_user_tables where relname in (${sql.join(TABLES)}) order by relname`.execute(
              db,
            )
          ).rows.map((row) => row.at?.getTime() ?? 0);
        const upload = async (name: string, count: number) => {
          const body = { action: 'create', name, inputs: Array.from({ length: count }, (_, q) => ({ q })) };
          const response = await fetch(`${server.url}/v1/datasets/upload`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          assert.equal(response.status, 200, await response.text());
        };
        await sql`analyze dataset_examples, dataset_example_revisions`.execute(db);
        const before = await lastAnalyzed();
        assert.ok(before.every((at) => at > 0));
        await upload('small', 100);
        assert.deepEqual(await lastAnalyzed(), before);
        await upload('many', 10_000);
        const after = await lastAnalyzed();
        assert.ok(
          after.every((at, index) => at > before[index]!),
          `analyzed at ${after} after ${before}`,
        );
      } finally {
        await server.close();
      }
    });
  });
}
