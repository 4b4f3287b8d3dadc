/**
 * Experiment tags, as Phoenix keeps them (docs/experiments.md, "Tags"): a name that points at one
 * experiment of a dataset at a time. The name is unique per dataset, so tagging another experiment
 * of the same dataset with it moves the tag there (one upsert on that key). Tags go with their
 * experiment or dataset.
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    await db.schema
      .createTable('experiment_tags')
      .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('experiment_id', 'bigint', (c) => c.notNull().references('experiments.id').onDelete('cascade'))
      .addColumn('dataset_id', 'bigint', (c) => c.notNull().references('datasets.id').onDelete('cascade'))
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('experiment_tags_dataset_name', ['dataset_id', 'name'])
      .execute();
    // An experiment's tags, and the cascade from a deleted experiment.
    await db.schema.createIndex('experiment_tags_experiment').on('experiment_tags').columns(['experiment_id', 'name']).execute();
  };
}
