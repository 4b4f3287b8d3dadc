/**
 * Big datasets and experiments written straight into the database, as the services would have
 * stored them: uploading or running that many examples would take most of a test's time budget,
 * and what such tests measure is how the server reads them.
 */
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { createDatasetsRepository } from '../../src/db/repositories/datasets-repository.js';
import type { DB } from '../../src/db/schema.js';

const STAMP = '2026-11-28T00:00:00.000Z';

/**
 * Writes a dataset of `count` examples straight into the database, as one completed version
 * would hold them (`{"q": i}`, external id `e<i>`), statistics refreshed on PostgreSQL as after
 * an upload: an upload of that size would take most of the test's time budget, and the reads are
 * what is measured.
 */
export async function seedDataset(
  db: Kysely<unknown>,
  name: string,
  count: number,
  { refreshStatistics = true }: { refreshStatistics?: boolean } = {},
): Promise<{ datasetId: number; versionId: number }> {
  const stamp = STAMP;
  const dataset = await sql<{ id: number | string }>`
    insert into datasets (name, metadata, created_at, updated_at) values (${name}, '{}', ${stamp}, ${stamp}) returning id`.execute(db);
  const datasetId = Number(dataset.rows[0]!.id);
  const version = await sql<{ id: number | string }>`
    insert into dataset_versions (dataset_id, metadata, created_at, completed_at, last_write_at, example_count)
    values (${datasetId}, '{}', ${stamp}, ${stamp}, ${stamp}, ${count}) returning id`.execute(db);
  const versionId = Number(version.rows[0]!.id);
  await sql`
    insert into dataset_examples (dataset_id, external_id, created_at)
    select ${datasetId}, 'e' || n, ${stamp} from (
      with recursive numbers(n) as (select 1 union all select n + 1 from numbers where n < ${count}) select n from numbers
    ) as generated`.execute(db);
  await sql`
    insert into dataset_example_revisions (example_id, version_id, kind, input, output, metadata, created_at)
    select id, ${versionId}, 'CREATE', '{"q":' || substr(external_id, 2) || '}', '{"a":"answer"}', '{}', ${stamp}
    from dataset_examples where dataset_id = ${datasetId}`.execute(db);
  if (refreshStatistics) {
    // As the upload service does after a big upload (a no-op on SQLite).
    const dialect = db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
    await createDatasetsRepository(db as Kysely<DB>, dialect).refreshExampleStatistics();
  }
  return { datasetId, versionId };
}

/**
 * `experiments` experiments of `repetitions` on the dataset's version, each with every example
 * frozen and one successful run per example and repetition, each run with a trace id of its own.
 * Returns the experiments' row ids.
 */
export async function seedExperiments(
  db: Kysely<unknown>,
  dataset: { datasetId: number; versionId: number },
  experiments: number,
  repetitions: number,
): Promise<number[]> {
  const ids: number[] = [];
  for (let index = 0; index < experiments; index++) {
    const row = await sql<{ id: number | string }>`
      insert into experiments (dataset_id, dataset_version_id, name, metadata, repetitions, project_name, created_at, updated_at)
      values (${dataset.datasetId}, ${dataset.versionId}, ${`seeded ${index}`}, '{}', ${repetitions}, ${`seeded-${index}`}, ${STAMP}, ${STAMP})
      returning id`.execute(db);
    ids.push(Number(row.rows[0]!.id));
  }
  await sql`
    insert into experiment_examples (experiment_id, example_id)
    select x.id, e.id from experiments x join dataset_examples e on e.dataset_id = x.dataset_id where x.dataset_id = ${dataset.datasetId}`.execute(
    db,
  );
  await sql`
    insert into experiment_runs (experiment_id, example_id, repetition_number, output, start_time, end_time, trace_id, created_at)
    select x.id, e.id, r.n, '"out"', ${STAMP}, ${STAMP}, 'trace-' || x.id || '-' || e.id || '-' || r.n, ${STAMP}
    from experiments x
    join dataset_examples e on e.dataset_id = x.dataset_id
    cross join (
      with recursive numbers(n) as (select 1 union all select n + 1 from numbers where n < ${repetitions}) select n from numbers
    ) as r
    where x.dataset_id = ${dataset.datasetId}`.execute(db);
  return ids;
}
