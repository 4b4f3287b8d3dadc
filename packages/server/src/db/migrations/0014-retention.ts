/**
 * Retention (docs/retention.md): one policy per project, read by the retention job, which deletes
 * whole traces oldest first. The policy row also keeps what the job did to the project on its
 * last run (and in total), so `GET /v1/projects/{p}/retention` answers from one row; the job's
 * own last run time is in `job_state`. SQLite's auto_vacuum mode is set by the opener
 * (@sightline/common openSqlite), not here: a migration cannot switch an existing file.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    await db.schema
      .createTable('retention_policies')
      .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('project_id', 'bigint', (c) => c.notNull().unique().references('projects.id').onDelete('cascade'))
      // Both null: keep forever (the row stays, with its history of deletions).
      .addColumn('max_days', 'integer', (c) => c.check(sql`max_days is null or max_days >= 1`))
      .addColumn('max_traces', 'bigint', (c) => c.check(sql`max_traces is null or max_traces >= 1`))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('last_run_at', 'text')
      .addColumn('last_deleted_traces', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_deleted_spans', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('total_deleted_traces', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('total_deleted_spans', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  };
}
