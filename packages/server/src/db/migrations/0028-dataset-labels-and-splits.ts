/**
 * Dataset labels and dataset splits, as Phoenix keeps them (docs/datasets.md, "Labels" and
 * "Splits"). A label is a named, coloured tag any dataset may carry; a split is a named set of
 * examples. Both have one namespace for the whole server (a name is unique across datasets, as in
 * Phoenix, whose uploads find or create a split by name). Memberships go with the label, the split,
 * the dataset or the example they join. The dataset-deletions job removes an example's split
 * memberships itself, one statement per batch, before the examples (a cascade would go row by row).
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const id = pg ? 'bigserial' : 'integer';
    await db.schema
      .createTable('dataset_labels')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('color', 'text', (c) => c.notNull())
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('datasets_dataset_labels')
      .addColumn('dataset_id', 'bigint', (c) => c.notNull().references('datasets.id').onDelete('cascade'))
      .addColumn('dataset_label_id', 'bigint', (c) => c.notNull().references('dataset_labels.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('datasets_dataset_labels_pkey', ['dataset_id', 'dataset_label_id'])
      .execute();
    // The cascade from a deleted label (the primary key leads with the dataset).
    await db.schema.createIndex('datasets_dataset_labels_label').on('datasets_dataset_labels').column('dataset_label_id').execute();

    await db.schema
      .createTable('dataset_splits')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('color', 'text', (c) => c.notNull())
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('dataset_splits_dataset_examples')
      .addColumn('dataset_split_id', 'bigint', (c) => c.notNull().references('dataset_splits.id').onDelete('cascade'))
      .addColumn('dataset_example_id', 'bigint', (c) => c.notNull().references('dataset_examples.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('dataset_splits_dataset_examples_pkey', ['dataset_split_id', 'dataset_example_id'])
      .execute();
    // An example's splits, and the purge of a deleted dataset's examples (the primary key leads with the split).
    await db.schema
      .createIndex('dataset_splits_dataset_examples_example')
      .on('dataset_splits_dataset_examples')
      .column('dataset_example_id')
      .execute();
  };
}
