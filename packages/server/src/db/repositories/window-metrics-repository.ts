/**
 * SQL of the window metrics (metrics/window-metrics.ts, docs/alerts.md "Metrics"): one aggregate
 * statement over a project's spans that started in [start, end), optionally narrowed by a span
 * condition, read through the (project_id, start_time) index. Nothing here loads the window's
 * spans: each method answers one row (two for a percentile on SQLite).
 *
 * Percentiles are continuous, as in project-metrics-repository.ts: PostgreSQL's percentile_cont;
 * SQLite, which has no percentile aggregate, counts the window and reads the two latencies around
 * the position p·(n−1) in one ordered read with an OFFSET, in the same statement; the caller
 * interpolates.
 */
import { sql, type Kysely, type SqlBool } from 'kysely';
import type { Dialect } from '../../config.js';
import type { DB } from '../schema.js';
import { nanosLiteral } from '../sql-dialect.js';
import { type SpanCondition, spanConditionSql } from './span-condition-sql.js';

export interface MetricWindow {
  projectId: number;
  /** Start times from `startTime` (inclusive) to `endTime` (exclusive), in nanoseconds. */
  startTime: bigint;
  endTime: bigint;
  /** Only the spans this matches; null for every span. */
  condition: SpanCondition | null;
}

export interface WindowSpanTotals {
  spanCount: number;
  errorCount: number;
  /** Sum of llm.token_count.total over the window's spans. */
  tokenCountTotal: number;
}

export interface WindowAnnotationTotals {
  /** Annotations of the name on the window's spans. */
  count: number;
  /** Mean of their scores (those with one); null when none has a score. */
  scoreMean: number | null;
  /** How many of them carry the label asked for. */
  labelCount: number;
}

type Num = number | string | null;
const num = (value: Num): number => (value === null ? 0 : Number(value));

export type WindowMetricsRepository = ReturnType<typeof createWindowMetricsRepository>;

export function createWindowMetricsRepository(db: Kysely<DB>, dialect: Dialect) {
  const inWindow = (column: string, window: MetricWindow) =>
    sql<SqlBool>`${sql.ref(column)} >= ${nanosLiteral(window.startTime)} and ${sql.ref(column)} < ${nanosLiteral(window.endTime)}`;

  /** The window's spans; joined with their traces only when a condition needs them (it may name trace_id). */
  const spansOf = (window: MetricWindow) => {
    const joined = db.selectFrom('spans').innerJoin('traces', 'traces.id', 'spans.trace_rowid');
    let query = window.condition ? joined : (db.selectFrom('spans') as unknown as typeof joined);
    query = query.where('spans.project_id', '=', window.projectId).where(inWindow('spans.start_time', window));
    if (window.condition) query = query.where(spanConditionSql(dialect, window.condition));
    return query;
  };

  return {
    /** Span count, errors and total tokens of the window. */
    async spanTotals(window: MetricWindow): Promise<WindowSpanTotals> {
      const row = await spansOf(window)
        .select((eb) => [
          eb.fn.countAll<number | string>().as('span_count'),
          sql<Num>`sum(case when ${sql.ref('spans.status_code')} = 'ERROR' then 1 else 0 end)`.as('error_count'),
          sql<Num>`sum(${sql.ref('spans.llm_token_count_total')})`.as('tokens'),
        ])
        .executeTakeFirst();
      return { spanCount: num(row?.span_count ?? 0), errorCount: num(row?.error_count ?? 0), tokenCountTotal: num(row?.tokens ?? 0) };
    },

    /** The p-th latency percentile (0 < p < 1) of the window's spans in milliseconds; null without spans. */
    async latencyPercentile(window: MetricWindow, p: number): Promise<number | null> {
      const latency = sql`(${sql.ref('spans.end_time')} - ${sql.ref('spans.start_time')})`;
      if (dialect === 'postgres') {
        const row = await spansOf(window)
          .select(sql<Num>`percentile_cont(${p}) within group (order by cast(${latency} as double precision))`.as('value'))
          .executeTakeFirst();
        return row?.value === null || row?.value === undefined ? null : Number(row.value) / 1e6;
      }
      const rows = (await db
        .with('w', () => spansOf(window).select(latency.as('d')))
        .selectFrom('w')
        .select([sql<number>`w.d`.as('d'), sql<number>`(select count(*) from w)`.as('n')])
        .orderBy(sql`w.d`)
        .limit(2)
        .offset(sql<number>`(select max(0, cast(${p} * (count(*) - 1) as integer)) from w)`)
        .execute()) as { d: Num; n: Num }[];
      if (rows.length === 0) return null;
      const n = num(rows[0]!.n);
      const position = p * (n - 1);
      const low = num(rows[0]!.d);
      const high = rows.length > 1 ? num(rows[1]!.d) : low;
      return (low + (position - Math.floor(position)) * (high - low)) / 1e6;
    },

    /** USD cost of the window's priced LLM spans (docs/costs.md: computed by the cost job shortly after ingest). */
    async cost(window: MetricWindow): Promise<number> {
      if (window.condition === null) {
        // Without a condition the cost rows alone answer, through their own (project_id, start_time) index.
        const row = await db
          .selectFrom('span_costs')
          .select(sql<Num>`sum(${sql.ref('span_costs.total_cost')})`.as('total'))
          .where('span_costs.project_id', '=', window.projectId)
          .where(inWindow('span_costs.start_time', window))
          .executeTakeFirst();
        return num(row?.total ?? null);
      }
      const row = await spansOf(window)
        .innerJoin('span_costs', 'span_costs.span_rowid', 'spans.id')
        .select(sql<Num>`sum(${sql.ref('span_costs.total_cost')})`.as('total'))
        .executeTakeFirst();
      return num(row?.total ?? null);
    },

    /** The annotations named `name` on the window's spans: how many, their mean score, how many carry `label`. */
    async annotationTotals(window: MetricWindow, name: string, label: string | null): Promise<WindowAnnotationTotals> {
      const row = await spansOf(window)
        .innerJoin('span_annotations', 'span_annotations.span_rowid', 'spans.id')
        .where('span_annotations.name', '=', name)
        .select((eb) => [
          eb.fn.countAll<number | string>().as('n'),
          sql<Num>`avg(${sql.ref('span_annotations.score')})`.as('score_mean'),
          sql<Num>`sum(case when ${sql.ref('span_annotations.label')} = ${label ?? ''} then 1 else 0 end)`.as('label_count'),
        ])
        .executeTakeFirst();
      return {
        count: num(row?.n ?? 0),
        scoreMean: row?.score_mean === null || row?.score_mean === undefined ? null : Number(row.score_mean),
        labelCount: num(row?.label_count ?? 0),
      };
    },
  };
}
