/** Spaces, their API keys, and one record row per (space, model_id, prediction_id). */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const serial = pg ? 'bigserial' : 'integer';
    await db.schema
      .createTable('monitor_spaces')
      .addColumn('id', serial, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('space_key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('monitor_api_keys')
      .addColumn('id', serial, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('space_id', 'bigint', (c) => c.notNull().references('monitor_spaces.id').onDelete('cascade'))
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('monitor_api_keys_space').on('monitor_api_keys').column('space_id').execute();
    await db.schema
      .createTable('monitor_records')
      .addColumn('id', serial, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('space_id', 'bigint', (c) => c.notNull().references('monitor_spaces.id').onDelete('cascade'))
      .addColumn('model_id', 'text', (c) => c.notNull())
      .addColumn('prediction_id', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('record_time', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('model_version', 'text')
      .addColumn('prediction_time', 'bigint')
      .addColumn('prediction_time_defaulted', 'integer')
      .addColumn('prediction_label_kind', 'text')
      .addColumn('prediction_numeric', 'double precision')
      .addColumn('prediction_category', 'text')
      .addColumn('prediction_score', 'double precision')
      .addColumn('features', 'text')
      .addColumn('embeddings', 'text')
      .addColumn('prediction_tags', 'text')
      .addColumn('actual_time', 'bigint')
      .addColumn('actual_label_kind', 'text')
      .addColumn('actual_numeric', 'double precision')
      .addColumn('actual_category', 'text')
      .addColumn('actual_score', 'double precision')
      .addColumn('actual_tags', 'text')
      .addUniqueConstraint('monitor_records_identity', ['space_id', 'model_id', 'prediction_id'])
      .execute();
    // Serves record listing (newest first, keyset), time windows of metrics and drift, and the model list.
    await db.schema
      .createIndex('monitor_records_model_time')
      .on('monitor_records')
      .columns(['space_id', 'model_id', 'record_time', 'id'])
      .execute();
  };
}
