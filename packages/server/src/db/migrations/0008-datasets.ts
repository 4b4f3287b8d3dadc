/**
 * Datasets, versioned by revisions that are never rewritten (docs/datasets.md): an example at
 * version V is its newest revision at or before V, unless that revision is a DELETE. Appends and
 * updates only add a version and revisions, so every old version reads back as it was.
 * JSON documents (input, output, metadata) are stored as text: read back exactly as written.
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const id = pg ? 'bigserial' : 'integer';
    await db.schema
      .createTable('datasets')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('dataset_versions')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('dataset_id', 'bigint', (c) => c.notNull().references('datasets.id').onDelete('cascade'))
      .addColumn('description', 'text')
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    // Versions of a dataset newest first (version list, latest version).
    await db.schema.createIndex('dataset_versions_dataset_id').on('dataset_versions').columns(['dataset_id', 'id']).execute();
    await db.schema
      .createTable('dataset_examples')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('dataset_id', 'bigint', (c) => c.notNull().references('datasets.id').onDelete('cascade'))
      .addColumn('external_id', 'text')
      .addColumn('source_span_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    // Examples of a dataset in order; an external id names one example of a dataset.
    await db.schema.createIndex('dataset_examples_dataset_id').on('dataset_examples').columns(['dataset_id', 'id']).execute();
    await db.schema
      .createIndex('dataset_examples_external_id')
      .on('dataset_examples')
      .columns(['dataset_id', 'external_id'])
      .unique()
      .execute();
    await db.schema
      .createTable('dataset_example_revisions')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('example_id', 'bigint', (c) => c.notNull().references('dataset_examples.id').onDelete('cascade'))
      .addColumn('version_id', 'bigint', (c) => c.notNull().references('dataset_versions.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('input', 'text', (c) => c.notNull())
      .addColumn('output', 'text', (c) => c.notNull())
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      // One revision per example and version; serves "newest revision at or before V".
      .addUniqueConstraint('dataset_example_revisions_example_version', ['example_id', 'version_id'])
      .execute();
    // Revisions written by a version (counts of a version's changes, deletion by version).
    await db.schema.createIndex('dataset_example_revisions_version_id').on('dataset_example_revisions').columns(['version_id']).execute();
  };
}
