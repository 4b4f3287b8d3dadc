/** Projects, traces and spans. */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const json = pg ? 'jsonb' : 'text';
    await db.schema
      .createTable('projects')
      .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('traces')
      .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('trace_id', 'text', (c) => c.notNull().unique())
      .addColumn('start_time', 'bigint', (c) => c.notNull())
      .addColumn('end_time', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('traces_project_start').on('traces').columns(['project_id', 'start_time']).execute();
    await db.schema
      .createTable('spans')
      .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('trace_rowid', 'bigint', (c) => c.notNull().references('traces.id').onDelete('cascade'))
      .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('span_id', 'text', (c) => c.notNull().unique())
      .addColumn('parent_id', 'text')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('span_kind', 'text', (c) => c.notNull())
      .addColumn('start_time', 'bigint', (c) => c.notNull())
      .addColumn('end_time', 'bigint', (c) => c.notNull())
      .addColumn('status_code', 'text', (c) => c.notNull().check(sql`status_code in ('UNSET', 'OK', 'ERROR')`))
      .addColumn('status_message', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('attributes', json, (c) => c.notNull())
      .addColumn('events', json, (c) => c.notNull())
      .addColumn('llm_token_count_prompt', 'bigint')
      .addColumn('llm_token_count_completion', 'bigint')
      .addColumn('llm_token_count_total', 'bigint')
      .execute();
    await db.schema.createIndex('spans_trace').on('spans').column('trace_rowid').execute();
    await db.schema.createIndex('spans_project_start').on('spans').columns(['project_id', 'start_time']).execute();
  };
}
