/**
 * Dashboards (docs/dashboards.md). `span_rollups` holds, per project and minute, the spans'
 * count, errors, latency (a fixed log-scale histogram in 64 columns, db/latency-histogram.ts, and
 * a sum) and token sums: once for all the minute's spans (dimension ''), and once per value of each
 * dimension a dashboard groups by (span_kind, name, model, status). One row per dimension value
 * rather than per combination keeps the rows of a minute to the sum of the dimensions' values, not
 * their product, and lets an ungrouped widget read one row per minute. Written by the ingest
 * writers in the same transaction as the spans: dashboards read these rows, never the spans.
 * `dashboards` are the saved ones, of a project or (project_id null) global.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { BUCKET_COLUMNS, LATENCY_BUCKETS, pgLatencyBucketSql } from '../latency-histogram.js';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    let rollups = db.schema
      .createTable('span_rollups')
      .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      // Minutes since 1970 (UTC) of the spans' start times.
      .addColumn('minute', 'bigint', (c) => c.notNull())
      // '' (every span of the minute), span_kind, name, model or status.
      .addColumn('dimension', 'text', (c) => c.notNull())
      // The dimension's value ('' for dimension '', and for spans that name no model).
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('span_count', 'bigint', (c) => c.notNull())
      .addColumn('error_count', 'bigint', (c) => c.notNull())
      // Sum of end − start in nanoseconds.
      .addColumn('latency_sum', 'bigint', (c) => c.notNull())
      .addColumn('token_count_prompt', 'bigint', (c) => c.notNull())
      .addColumn('token_count_completion', 'bigint', (c) => c.notNull())
      .addColumn('token_count_total', 'bigint', (c) => c.notNull());
    for (const column of BUCKET_COLUMNS) rollups = rollups.addColumn(column, 'integer', (c) => c.notNull());
    // Dimension before minute: a widget reads one dimension of a time range.
    await rollups.addPrimaryKeyConstraint('span_rollups_key', ['project_id', 'dimension', 'minute', 'value']).execute();
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
    // Cost widgets sum span_costs by time (docs/dashboards.md): with the cost in the index, a
    // range is read from the index alone (236 → 88 ms for 7 days of 1M spans, bench:dashboards).
    await db.schema
      .createIndex('span_costs_project_time_cost')
      .on('span_costs')
      .columns(['project_id', 'start_time', 'total_cost'])
      .execute();
    await backfillRollups(db, dialect);
  };
}

/** The minute of `start_time` in SQL: whole-number division (a double would blur nanoseconds), floored for times before 1970. */
export const ROLLUP_MINUTE_SQL = 'case when start_time >= 0 then start_time / 60000000000 else -((-start_time - 1) / 60000000000) - 1 end';

/** A span's model as the rollups key it, in SQL over `attributes`: as span-rows.ts reads llm.model_name, a non-blank string, at most 256 characters, else ''. */
export function rollupModelSql(dialect: Dialect): string {
  return dialect === 'postgres'
    ? "coalesce(case when jsonb_typeof(attributes -> 'llm.model_name') = 'string' then substr(btrim(attributes ->> 'llm.model_name'), 1, 256) end, '')"
    : `coalesce(case when json_type(attributes, '$."llm.model_name"') = 'text' then substr(trim(json_extract(attributes, '$."llm.model_name"')), 1, 256) end, '')`;
}

/**
 * Rolls up the spans stored before this migration, as the writers roll up new ones
 * (writer/span-writes.ts, RollupAccumulator): one aggregate statement per dimension, so that
 * dashboards show the history an upgraded server already holds.
 */
export async function backfillRollups(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const values: Record<string, string> = {
    '': "''",
    span_kind: 'span_kind',
    name: 'name',
    model: rollupModelSql(dialect),
    status: 'status_code',
  };
  for (const [dimension, value] of Object.entries(values)) await rollUpSpans(db, dialect, dimension, value);
}

/**
 * Adds the stored spans (those `where` keeps, a condition on `spans`) to their rows of
 * `dimension`, keyed by the SQL `value`: one aggregate statement.
 */
export async function rollUpSpans(db: Kysely<unknown>, dialect: Dialect, dimension: string, value: string, where = 'true'): Promise<void> {
  const pg = dialect === 'postgres';
  const latency = '(end_time - start_time)';
  const bucket = pg
    ? pgLatencyBucketSql(latency)
    : `(case when ${latency} < 100000 then 0 else min(${LATENCY_BUCKETS - 1}, 1 + cast(floor(2 * log2(${latency} / 100000.0)) as integer)) end)`;
  const columns = [
    'project_id',
    'dimension',
    'minute',
    'value',
    'span_count',
    'error_count',
    'latency_sum',
    'token_count_prompt',
    'token_count_completion',
    'token_count_total',
    ...BUCKET_COLUMNS,
  ];
  const sums = [
    'count(*)',
    "sum(case when status_code = 'ERROR' then 1 else 0 end)",
    `sum(${latency})`,
    'coalesce(sum(llm_token_count_prompt), 0)',
    'coalesce(sum(llm_token_count_completion), 0)',
    'coalesce(sum(llm_token_count_total), 0)',
    ...BUCKET_COLUMNS.map((_, index) => `sum(case when b = ${index} then 1 else 0 end)`),
  ];
  await sql
    .raw(
      `INSERT INTO span_rollups (${columns.join(', ')})
       SELECT project_id, '${dimension}', m, v, ${sums.join(', ')}
       FROM (SELECT project_id, cast(${ROLLUP_MINUTE_SQL} as bigint) AS m, ${value} AS v, status_code, start_time, end_time,
               llm_token_count_prompt, llm_token_count_completion, llm_token_count_total, ${bucket} AS b FROM spans WHERE ${where}) AS s
       GROUP BY project_id, m, v`,
    )
    .execute(db);
}
