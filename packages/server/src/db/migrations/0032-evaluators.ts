/**
 * Evaluators stored on the server (docs/evaluators.md): an evaluator is a name and a kind (LLM
 * judge or built-in code check); what it does is its versions' definition (JSON), numbered from
 * 1, each kept so an evaluation can name the exact version that produced it. An evaluator
 * attached to a dataset evaluates every experiment run of that dataset as it arrives.
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const id = pg ? 'bigserial' : 'integer';
    await db.schema
      .createTable('evaluators')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('evaluator_versions')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('evaluator_id', 'bigint', (c) => c.notNull().references('evaluators.id').onDelete('cascade'))
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('definition', 'text', (c) => c.notNull())
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('evaluator_versions_number', ['evaluator_id', 'version'])
      .execute();
    await db.schema
      .createTable('dataset_evaluators')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('dataset_id', 'bigint', (c) => c.notNull().references('datasets.id').onDelete('cascade'))
      .addColumn('evaluator_id', 'bigint', (c) => c.notNull().references('evaluators.id').onDelete('cascade'))
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('dataset_evaluators_pair', ['dataset_id', 'evaluator_id'])
      .execute();
    // The cascade from a deleted evaluator.
    await db.schema.createIndex('dataset_evaluators_evaluator').on('dataset_evaluators').column('evaluator_id').execute();
  };
}
