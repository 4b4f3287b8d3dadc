/**
 * Experiments deleted at once for readers, their runs, evaluations and frozen example rows removed
 * later in short batches by the `dataset-deletions` job (docs/experiments.md, "Deleting"), as
 * datasets are since 0026: one DELETE cascading to every run and example row of an experiment
 * holds the database (and on SQLite the event loop) for as long as the experiment is big.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up(_context: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.alterTable('experiments').addColumn('deleted_at', 'text').execute();
    await db.schema
      .createIndex('experiments_deleted')
      .on('experiments')
      .column('id')
      .where(sql.ref('deleted_at'), 'is not', null)
      .execute();
  };
}
