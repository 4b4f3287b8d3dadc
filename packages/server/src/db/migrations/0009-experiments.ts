/**
 * Experiments over a dataset version (docs/experiments.md): the example set is frozen at
 * creation; a run is unique per (experiment, example, repetition) and an evaluation per
 * (run, name), so re-sending either is an upsert. Counts come from grouped queries.
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const id = pg ? 'bigserial' : 'integer';
    const real = pg ? 'double precision' : 'real';
    await db.schema
      .createTable('experiments')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('dataset_id', 'bigint', (c) => c.notNull().references('datasets.id').onDelete('cascade'))
      .addColumn('dataset_version_id', 'bigint', (c) => c.notNull().references('dataset_versions.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('repetitions', 'integer', (c) => c.notNull())
      .addColumn('project_name', 'text', (c) => c.notNull())
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    // Experiments of a dataset newest first.
    await db.schema.createIndex('experiments_dataset_id').on('experiments').columns(['dataset_id', 'id']).execute();
    await db.schema
      .createTable('experiment_examples')
      .addColumn('experiment_id', 'bigint', (c) => c.notNull().references('experiments.id').onDelete('cascade'))
      .addColumn('example_id', 'bigint', (c) => c.notNull().references('dataset_examples.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('experiment_examples_pk', ['experiment_id', 'example_id'])
      .execute();
    await db.schema
      .createTable('experiment_runs')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('experiment_id', 'bigint', (c) => c.notNull().references('experiments.id').onDelete('cascade'))
      .addColumn('example_id', 'bigint', (c) => c.notNull().references('dataset_examples.id').onDelete('cascade'))
      .addColumn('repetition_number', 'integer', (c) => c.notNull())
      .addColumn('output', 'text', (c) => c.notNull())
      .addColumn('start_time', 'text', (c) => c.notNull())
      .addColumn('end_time', 'text', (c) => c.notNull())
      .addColumn('trace_id', 'text')
      .addColumn('error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      // One run per example and repetition: a retry of a failed run replaces it.
      .addUniqueConstraint('experiment_runs_example_repetition', ['experiment_id', 'example_id', 'repetition_number'])
      .execute();
    await db.schema
      .createTable('experiment_run_annotations')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('run_id', 'bigint', (c) => c.notNull().references('experiment_runs.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('annotator_kind', 'text', (c) => c.notNull())
      .addColumn('label', 'text')
      .addColumn('score', real)
      .addColumn('explanation', 'text')
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('trace_id', 'text')
      .addColumn('error', 'text')
      .addColumn('start_time', 'text', (c) => c.notNull())
      .addColumn('end_time', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      // One evaluation per run and name: re-sending it is one upsert.
      .addUniqueConstraint('experiment_run_annotations_run_name', ['run_id', 'name'])
      .execute();
  };
}
