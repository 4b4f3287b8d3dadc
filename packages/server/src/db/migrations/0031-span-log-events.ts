/**
 * OTLP log records that name a span, waiting to become events of it (docs/ingest.md, "Logs"):
 * a record may arrive before its span or after it, on another replica, so records are stored here
 * first and the `span-log-events` job moves them onto their span once it exists. Records whose
 * span never comes are dropped after a while; the index on `received_at` finds them.
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    await db.schema
      .createTable('span_log_events')
      .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('trace_id', 'text', (c) => c.notNull())
      .addColumn('span_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('time', 'bigint', (c) => c.notNull())
      .addColumn('attributes', 'text', (c) => c.notNull())
      .addColumn('received_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('span_log_events_received_at').on('span_log_events').column('received_at').execute();
  };
}
