/**
 * Costs (docs/costs.md): model prices, matched against `llm.model_name` by a pattern, and the
 * cost of every LLM span computed once by the cost job into `span_costs`, so totals per trace,
 * project and time range are sums over indexed rows. `job_state` keeps the job's watermark.
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const id = pg ? 'bigserial' : 'integer';
    const real = pg ? 'double precision' : 'real';
    await db.schema
      .createTable('generative_models')
      .addColumn('id', id, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('provider', 'text')
      .addColumn('name_pattern', 'text', (c) => c.notNull())
      // Shipped defaults are re-synced at start-up; overrides are the admins' and win.
      .addColumn('is_built_in', 'integer', (c) => c.notNull())
      // Prices in currency units (USD) per million tokens; cache prices default to the input price.
      .addColumn('input_per_million', real, (c) => c.notNull())
      .addColumn('output_per_million', real, (c) => c.notNull())
      .addColumn('cache_read_per_million', real)
      .addColumn('cache_write_per_million', real)
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('generative_models_name').on('generative_models').columns(['is_built_in', 'name']).unique().execute();
    await db.schema
      .createTable('span_costs')
      .addColumn('span_rowid', 'bigint', (c) => c.primaryKey().references('spans.id').onDelete('cascade'))
      .addColumn('trace_rowid', 'bigint', (c) => c.notNull().references('traces.id').onDelete('cascade'))
      .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('model_id', 'bigint', (c) => c.references('generative_models.id').onDelete('set null'))
      .addColumn('start_time', 'bigint', (c) => c.notNull())
      .addColumn('prompt_cost', real, (c) => c.notNull())
      .addColumn('completion_cost', real, (c) => c.notNull())
      .addColumn('total_cost', real, (c) => c.notNull())
      .execute();
    // Totals per trace; per project and time range.
    await db.schema.createIndex('span_costs_trace').on('span_costs').column('trace_rowid').execute();
    await db.schema.createIndex('span_costs_project_time').on('span_costs').columns(['project_id', 'start_time']).execute();
    await db.schema
      .createTable('job_state')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
  };
}
