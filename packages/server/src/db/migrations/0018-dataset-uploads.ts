/**
 * Dataset uploads written in batches (docs/datasets.md, "Uploads"): a version is written while
 * invisible (`completed_at` null) and shown in one short final transaction. `last_write_at` is
 * when the upload last wrote a batch; a pending version that has not written for a while belongs
 * to an upload that died and is deleted with its rows. At most one version of a dataset is
 * pending: an example at version V is its newest revision at or before V, so a later version
 * committed while an earlier one is still being written would take that one's rows in.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up(_context: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.alterTable('dataset_versions').addColumn('completed_at', 'text').execute();
    await db.schema.alterTable('dataset_versions').addColumn('last_write_at', 'text').execute();
    // Every version written so far was written in one transaction: complete since its creation.
    await sql`update dataset_versions set completed_at = created_at, last_write_at = created_at`.execute(db);
    // One pending version per dataset, enforced by the database too (two replicas starting uploads at once).
    await db.schema
      .createIndex('dataset_versions_one_pending')
      .on('dataset_versions')
      .column('dataset_id')
      .unique()
      .where(sql.ref('completed_at'), 'is', null)
      .execute();
    // Deleting the examples of a failed upload checks, per example, that no experiment refers to
    // it: without these indexes each check would read both tables whole.
    await db.schema.createIndex('experiment_examples_example_id').on('experiment_examples').column('example_id').execute();
    await db.schema.createIndex('experiment_runs_example_id').on('experiment_runs').column('example_id').execute();
  };
}
