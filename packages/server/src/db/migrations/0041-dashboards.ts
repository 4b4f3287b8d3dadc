/**
 * Dashboards (docs/dashboards.md). `span_rollups` holds, per project, minute, span kind, span name,
 * model and status, the spans' count, errors, latency (a fixed log-scale histogram in 64 columns,
 * db/latency-histogram.ts, and a sum) and token sums, written by the ingest writers in the same
 * transaction as the spans: dashboards read these rows, never the spans. The key is as narrow
 * as the rollup groups need; user, session and attributes are not in it (they fall back to a
 * bounded span scan). `dashboards` are the saved ones, of a project or (project_id null) global.
 */
import type { Kysely } from 'kysely';
import { BUCKET_COLUMNS } from '../latency-histogram.js';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    let rollups = db.schema
      .createTable('span_rollups')
      .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      // Minutes since 1970 (UTC) of the spans' start times.
      .addColumn('minute', 'bigint', (c) => c.notNull())
      .addColumn('span_kind', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      // llm.model_name, '' when the span names none (a key column may not be null).
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('status_code', 'text', (c) => c.notNull())
      .addColumn('span_count', 'bigint', (c) => c.notNull())
      .addColumn('error_count', 'bigint', (c) => c.notNull())
      // Sum of end − start in nanoseconds.
      .addColumn('latency_sum', 'bigint', (c) => c.notNull())
      .addColumn('token_count_prompt', 'bigint', (c) => c.notNull())
      .addColumn('token_count_completion', 'bigint', (c) => c.notNull())
      .addColumn('token_count_total', 'bigint', (c) => c.notNull());
    for (const column of BUCKET_COLUMNS) rollups = rollups.addColumn(column, 'integer', (c) => c.notNull());
    await rollups
      .addPrimaryKeyConstraint('span_rollups_key', ['project_id', 'minute', 'span_kind', 'name', 'model', 'status_code'])
      .execute();
    await db.schema
      .createTable('dashboards')
      .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      // JSON array of widgets, as dashboards-service.ts checks them.
      .addColumn('widgets', 'text', (c) => c.notNull())
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('dashboards_project').on('dashboards').columns(['project_id', 'id']).execute();
  };
}
