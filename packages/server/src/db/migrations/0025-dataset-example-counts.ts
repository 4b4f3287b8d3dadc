/**
 * The number of examples each dataset version holds, stored with the version (docs/datasets.md,
 * "Versions"): counting them meant finding each example's newest revision, a scan of the whole
 * dataset for every listed dataset (4.4 s for `GET /v1/datasets` with nine million examples
 * stored, the event loop blocked meanwhile on SQLite). An upload sets it when it completes its
 * version, from the version it started from and what it created and deleted. Versions written
 * before are counted once here.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up(_context: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .alterTable('dataset_versions')
      .addColumn('example_count', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`
      update dataset_versions set example_count = (
        select count(*) from dataset_example_revisions r
        join dataset_examples e on e.id = r.example_id
        where e.dataset_id = dataset_versions.dataset_id
          and r.kind <> 'DELETE'
          and r.version_id = (
            select max(n.version_id) from dataset_example_revisions n
            where n.example_id = r.example_id and n.version_id <= dataset_versions.id
          )
      )
      where completed_at is not null`.execute(db);
  };
}
