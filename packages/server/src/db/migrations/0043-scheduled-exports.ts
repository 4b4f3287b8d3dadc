/**
 * Scheduled exports (docs/export.md, "Scheduled exports"): a project's definitions, each writing
 * the spans or traces that arrived since its last run into a file under SERVICE_EXPORT_DIR, and
 * the history of those runs. `cursor` is the span row id a definition has written up to: it moves
 * only once a file is complete under its final name.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const id = pg ? 'bigserial' : 'integer';
    await db.schema
      .createTable('scheduled_exports')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      // span or trace.
      .addColumn('target', 'text', (c) => c.notNull())
      // A span condition (Phoenix's SpanQuery syntax); empty for every span (or trace).
      .addColumn('filter', 'text', (c) => c.notNull())
      // csv, jsonl or parquet.
      .addColumn('format', 'text', (c) => c.notNull())
      .addColumn('interval_minutes', 'integer', (c) => c.notNull())
      // 0 or 1.
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('cursor', 'text', (c) => c.notNull())
      .addColumn('next_run_at', 'text', (c) => c.notNull())
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('scheduled_exports_name', ['project_id', 'name'])
      .execute();
    // The job's question each tick: which enabled definitions are due.
    await sql.raw('CREATE INDEX scheduled_exports_due ON scheduled_exports (enabled, next_run_at)').execute(db);
    await db.schema.createIndex('scheduled_exports_user').on('scheduled_exports').column('user_id').execute();
    await db.schema
      .createTable('scheduled_export_runs')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('export_id', 'bigint', (c) => c.notNull().references('scheduled_exports.id').onDelete('cascade'))
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'text', (c) => c.notNull())
      .addColumn('row_count', 'bigint', (c) => c.notNull())
      // The file written, relative to SERVICE_EXPORT_DIR; null when the run found no new rows or failed.
      .addColumn('file', 'text')
      .addColumn('byte_count', 'bigint')
      .addColumn('error', 'text')
      // The span row ids the run covered: (cursor_from, cursor_to].
      .addColumn('cursor_from', 'text', (c) => c.notNull())
      .addColumn('cursor_to', 'text', (c) => c.notNull())
      .execute();
    // A definition's runs, newest first.
    await sql.raw('CREATE INDEX scheduled_export_runs_export ON scheduled_export_runs (export_id, id)').execute(db);
  };
}
