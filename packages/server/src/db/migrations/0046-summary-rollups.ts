/**
 * What the rollups lacked to answer a project's summary and cost widgets without reading spans
 * (docs/dashboards.md "Rollups", docs/api.md "Metrics"): at 10M spans, 7 days of them
 * took 77 s to summarise and 1.9 s to chart their cost on SQLite.
 *
 * - Cost columns, which the cost job adds each new span cost to in the transaction that stores
 *   it (db/writer/cost-rollups.ts); the costs already stored are summed into the rows here.
 * - Dimension `root` (value ''): the minute's root spans, whose latency histogram gives the
 *   summary's latency percentiles; the root spans already stored are rolled up here.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { ROLLUP_COST_COLUMNS, ROLLUP_SUM_COLUMNS } from '../writer/span-writes.js';
import { ROLLUP_MINUTE_SQL, rollUpSpans, rollupModelSql } from './0044-dashboards.js';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    for (const column of ROLLUP_COST_COLUMNS) {
      await db.schema
        .alterTable('span_rollups')
        .addColumn(column, dialect === 'postgres' ? 'double precision' : 'real', (c) => c.notNull().defaultTo(0))
        .execute();
    }
    await backfillRootRollups(db, dialect);
    await backfillRollupCosts(db, dialect);
  };
}

/** Rolls up the root spans stored before this migration, as the writers roll up new ones (writer/span-writes.ts). */
export function backfillRootRollups(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  return rollUpSpans(db, dialect, 'root', "''", 'parent_id IS NULL');
}

/** Adds the costs stored before this migration to the rollups, as the cost job adds new ones (db/writer/cost-rollups.ts). */
export async function backfillRollupCosts(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  // Rows the span writers never made (rollups off at the spans' ingest) start at zero spans.
  const columns = ['project_id', 'dimension', 'minute', 'value', ...ROLLUP_SUM_COLUMNS, ...ROLLUP_COST_COLUMNS].join(', ');
  const zeros = ROLLUP_SUM_COLUMNS.map(() => '0').join(', ');
  const sums = ROLLUP_COST_COLUMNS.map((column) => `sum(${column})`).join(', ');
  const picked = ROLLUP_COST_COLUMNS.map((column) => `span_costs.${column}`).join(', ');
  const added = ROLLUP_COST_COLUMNS.map((column) => `${column} = span_rollups.${column} + excluded.${column}`).join(', ');
  const withSpans = 'span_costs INNER JOIN spans ON spans.id = span_costs.span_rowid';
  const sources: [dimension: string, value: string, from: string][] = [
    ['', "''", 'span_costs'],
    ['span_kind', 'spans.span_kind', withSpans],
    ['name', 'spans.name', withSpans],
    ['model', rollupModelSql(dialect), withSpans],
    ['status', 'spans.status_code', withSpans],
  ];
  for (const [dimension, value, from] of sources) {
    // `WHERE true`: SQLite would otherwise read ON CONFLICT as a join's ON (its upsert docs).
    await sql
      .raw(
        `INSERT INTO span_rollups (${columns})
         SELECT project_id, '${dimension}', m, v, ${zeros}, ${sums}
         FROM (SELECT span_costs.project_id, cast(${ROLLUP_MINUTE_SQL.replaceAll('start_time', 'span_costs.start_time')} as bigint) AS m,
                 ${value} AS v, ${picked} FROM ${from}) AS c
         WHERE true
         GROUP BY project_id, m, v
         ON CONFLICT (project_id, dimension, minute, value) DO UPDATE SET ${added}`,
      )
      .execute(db);
  }
}
