/**
 * Datasets deleted at once for readers, their rows removed later in short batches by the
 * `dataset-deletions` job (docs/datasets.md, "Deleting"): one DELETE cascading to every version,
 * example, revision and experiment held the database for 9 s for three million examples (and the
 * event loop with it on SQLite). `deleted_at` marks the dataset gone; every read skips it.
 * A small index finds the datasets still to purge.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up(_context: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.alterTable('datasets').addColumn('deleted_at', 'text').execute();
    await db.schema.createIndex('datasets_deleted').on('datasets').column('id').where(sql.ref('deleted_at'), 'is not', null).execute();
  };
}
