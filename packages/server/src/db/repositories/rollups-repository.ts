/**
 * SQL of dashboards (docs/dashboards.md): aggregates per time bucket and group, read from the
 * per-minute span rollups (migration 0044) when the group is one of their key columns and no
 * filter narrows the spans; otherwise from the spans of the range themselves (the "span scan",
 * bounded by the range the service allows), from span_costs for cost with a filter or a group the
 * rollups do not hold, and from span_annotations
 * for the annotation metrics. Every method answers one row per (bucket, group), already
 * aggregated: nothing here loads spans.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from '../../config.js';
import { BUCKET_COLUMNS, LATENCY_BUCKETS, PG_BUCKET_FLOORS } from '../latency-histogram.js';
import type { DB } from '../schema.js';
import { nanosLiteral, sqlDialect } from '../sql-dialect.js';
import { type SpanCondition, spanConditionSql } from './span-condition-sql.js';

const NANOS_PER_MINUTE = 60_000_000_000n;

/** The groups the rollups hold: the dimensions of migration 0044. */
export type RollupGroup = 'span_kind' | 'name' | 'model' | 'status';

/** The groups only the spans hold. */
export type SpanGroup =
  | { kind: 'rollup'; column: RollupGroup }
  | { kind: 'user' }
  | { kind: 'session' }
  | { kind: 'attribute'; key: string };

export interface AggregateRange {
  projectIds: number[];
  /** Minutes since 1970, from `startMinute` (inclusive) to `endMinute` (exclusive). */
  startMinute: number;
  endMinute: number;
  /** Minutes per time bucket; null for one bucket over the whole range. */
  bucketMinutes: number | null;
}

/** One (time bucket, group) of span aggregates. */
export interface SpanAggregateRow {
  /** The bucket's first minute (the range's start without buckets). */
  minute: number;
  /** The group's value; null without a group, or for spans that have none. */
  group: string | null;
  spanCount: number;
  errorCount: number;
  tokenCountTotal: number;
  /** Latency histogram (db/latency-histogram.ts), when asked for. */
  buckets: number[] | null;
}

export interface CostAggregateRow {
  minute: number;
  group: string | null;
  cost: number;
}

/** A project's totals over whole minutes, from the rollups (migration 0046): what a summary needs. */
export interface RollupTotals {
  /** Per span kind: spans, errors and token sums. */
  kinds: RollupTotalsRow[];
  /** Per model named by spans of any kind (spans naming none are left out). */
  models: RollupTotalsRow[];
  /** Latency histogram of the root spans (db/latency-histogram.ts). */
  rootBuckets: number[];
  cost: { promptCost: number; completionCost: number; totalCost: number };
}

export interface RollupTotalsRow {
  value: string;
  spanCount: number;
  errorCount: number;
  tokenCountPrompt: number;
  tokenCountCompletion: number;
  tokenCountTotal: number;
}

export interface AnnotationAggregateRow {
  minute: number;
  group: string | null;
  count: number;
  scoreSum: number;
  scoreCount: number;
  labelCount: number;
}

type Num = number | string | null;
const num = (value: Num | undefined): number => (value === null || value === undefined ? 0 : Number(value));
const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

export type RollupsRepository = ReturnType<typeof createRollupsRepository>;

export function createRollupsRepository(db: Kysely<DB>, dialect: Dialect) {
  const pg = dialect === 'postgres';
  const { attributeText } = sqlDialect(dialect);

  /** The bucket's first minute of a minute expression. */
  const bucketOf = (minute: RawBuilder<unknown>, range: AggregateRange) =>
    range.bucketMinutes === null
      ? sql`${sql.lit(range.startMinute)}`
      : sql`((${minute}) / ${sql.lit(range.bucketMinutes)}) * ${sql.lit(range.bucketMinutes)}`;
  const spanMinute = sql`(${sql.ref('spans.start_time')} / ${nanosLiteral(NANOS_PER_MINUTE)})`;
  const spansInRange = (range: AggregateRange) =>
    sql`${sql.ref('spans.project_id')} in (${sql.join(range.projectIds)})
      and ${sql.ref('spans.start_time')} >= ${nanosLiteral(BigInt(range.startMinute) * NANOS_PER_MINUTE)}
      and ${sql.ref('spans.start_time')} < ${nanosLiteral(BigInt(range.endMinute) * NANOS_PER_MINUTE)}`;

  /** A span's group value, over spans joined with traces. */
  const spanGroupSql = (group: SpanGroup | null): RawBuilder<unknown> => {
    if (group === null) return sql`null`;
    switch (group.kind) {
      case 'rollup':
        return group.column === 'model' ? attributeText('spans.attributes', 'llm.model_name') : sql.ref(`spans.${group.column}`);
      case 'user':
        return sql.ref('traces.user_id');
      case 'session':
        return sql`(select ${sql.ref('project_sessions.session_id')} from project_sessions where ${sql.ref('project_sessions.id')} = ${sql.ref('traces.project_session_rowid')})`;
      case 'attribute':
        return attributeText('spans.attributes', group.key);
    }
  };

  /** A latency's histogram bucket in SQL, as latencyBucket() computes it. */
  const bucketIndex = (latency: RawBuilder<unknown>) =>
    pg
      ? sql`width_bucket(${latency}, ${sql.raw(PG_BUCKET_FLOORS)})`
      : sql`(case when ${latency} < 100000 then 0 else min(${sql.lit(LATENCY_BUCKETS - 1)}, 1 + cast(floor(2 * log2(${latency} / 100000.0)) as integer)) end)`;

  /** A rollup row's group: its value, null without a group and for spans that name no model (keyed ''), as the span scan answers them. */
  const rollupGroupSql = (group: RollupGroup | null): RawBuilder<unknown> =>
    group === null ? sql`null` : group === 'model' ? sql`nullif(${sql.ref('value')}, '')` : sql.ref('value');

  const rowsOf = (rows: Record<string, unknown>[], histogram: boolean): SpanAggregateRow[] =>
    rows.map((row) => ({
      minute: num(row.t as Num),
      group: text(row.g),
      spanCount: num(row.span_count as Num),
      errorCount: num(row.error_count as Num),
      tokenCountTotal: num(row.tokens as Num),
      buckets: histogram ? BUCKET_COLUMNS.map((column) => num(row[column] as Num)) : null,
    }));

  return {
    /** Span aggregates per bucket and group from the per-minute rollups; the histogram only when asked for. */
    async fromRollups(range: AggregateRange, group: RollupGroup | null, histogram: boolean): Promise<SpanAggregateRow[]> {
      const t = bucketOf(sql.ref('minute'), range);
      const sums = [
        sql`sum(span_count) as span_count`,
        sql`sum(error_count) as error_count`,
        sql`sum(token_count_total) as tokens`,
        ...(histogram ? BUCKET_COLUMNS.map((column) => sql`sum(${sql.ref(column)}) as ${sql.ref(column)}`) : []),
      ];
      // One dimension's rows: '' holds every span once per minute.
      const result = await sql<Record<string, unknown>>`
        select ${t} as t, ${rollupGroupSql(group)} as g, ${sql.join(sums)}
        from span_rollups
        where project_id in (${sql.join(range.projectIds)}) and dimension = ${group ?? ''}
          and minute >= ${range.startMinute} and minute < ${range.endMinute}
        group by 1, 2`.execute(db);
      return rowsOf(result.rows, histogram);
    },

    /**
     * The same aggregates from the spans of the range, for groups and filters the rollups do
     * not hold: one aggregate statement over the (project_id, start_time) index.
     */
    async fromSpans(
      range: AggregateRange,
      group: SpanGroup | null,
      condition: SpanCondition | null,
      histogram: boolean,
    ): Promise<SpanAggregateRow[]> {
      const t = bucketOf(spanMinute, range);
      const g = spanGroupSql(group);
      const latency = sql`(${sql.ref('spans.end_time')} - ${sql.ref('spans.start_time')})`;
      const where = condition === null ? spansInRange(range) : sql`${spansInRange(range)} and ${spanConditionSql(dialect, condition)}`;
      const result = await sql<Record<string, unknown>>`
        select ${t} as t, ${g} as g, ${histogram ? bucketIndex(latency) : sql`0`} as b,
          count(*) as span_count,
          sum(case when ${sql.ref('spans.status_code')} = 'ERROR' then 1 else 0 end) as error_count,
          sum(${sql.ref('spans.llm_token_count_total')}) as tokens
        from spans inner join traces on ${sql.ref('traces.id')} = ${sql.ref('spans.trace_rowid')}
        where ${where}
        group by 1, 2, 3`.execute(db);
      // One row per (bucket, group, histogram bucket): folded here into one per (bucket, group).
      const merged = new Map<string, SpanAggregateRow>();
      for (const row of result.rows) {
        const key = `${num(row.t as Num)}\u0000${row.g === null ? '\u0001' : String(row.g)}`;
        let aggregate = merged.get(key);
        if (aggregate === undefined) {
          aggregate = {
            minute: num(row.t as Num),
            group: text(row.g),
            spanCount: 0,
            errorCount: 0,
            tokenCountTotal: 0,
            buckets: histogram ? new Array<number>(LATENCY_BUCKETS).fill(0) : null,
          };
          merged.set(key, aggregate);
        }
        const count = num(row.span_count as Num);
        aggregate.spanCount += count;
        aggregate.errorCount += num(row.error_count as Num);
        aggregate.tokenCountTotal += num(row.tokens as Num);
        if (aggregate.buckets) aggregate.buckets[num(row.b as Num)]! += count;
      }
      return [...merged.values()];
    },

    /** Spans of a project in [startMinute, endMinute) (null: unbounded), from the rollups of every span. */
    async spanCount(projectId: number, startMinute: number | null, endMinute: number | null): Promise<number> {
      const result = await sql<{ n: Num }>`
        select sum(span_count) as n from span_rollups
        where project_id = ${projectId} and dimension = ''
          ${startMinute === null ? sql`` : sql`and minute >= ${startMinute}`} ${endMinute === null ? sql`` : sql`and minute < ${endMinute}`}`.execute(
        db,
      );
      return num(result.rows[0]?.n);
    },

    /**
     * A project's totals in [startMinute, endMinute) (null: unbounded) from four dimensions of
     * the rollups: every span's (cost), span_kind, model, and root for the latency histogram.
     * Two statements: the histogram's 64 sums over the root rows alone (at 10M spans, 116 + 10 ms
     * against 439 ms for one statement summing them conditionally over every row).
     */
    async totals(projectId: number, startMinute: number | null, endMinute: number | null): Promise<RollupTotals> {
      const inRange = sql`project_id = ${projectId}
        ${startMinute === null ? sql`` : sql`and minute >= ${startMinute}`} ${endMinute === null ? sql`` : sql`and minute < ${endMinute}`}`;
      const sums = await sql<Record<string, unknown>>`
        select dimension, value, sum(span_count) as span_count, sum(error_count) as error_count,
          sum(token_count_prompt) as prompt, sum(token_count_completion) as completion, sum(token_count_total) as total,
          sum(prompt_cost) as prompt_cost, sum(completion_cost) as completion_cost, sum(total_cost) as total_cost
        from span_rollups
        where ${inRange} and dimension in ('', 'span_kind', 'model')
        group by dimension, value`.execute(db);
      const histogram = await sql<Record<string, unknown>>`
        select ${sql.join(BUCKET_COLUMNS.map((column) => sql`sum(${sql.ref(column)}) as ${sql.ref(column)}`))}
        from span_rollups
        where ${inRange} and dimension = 'root'`.execute(db);
      const totals: RollupTotals = {
        kinds: [],
        models: [],
        rootBuckets: BUCKET_COLUMNS.map((column) => num(histogram.rows[0]?.[column] as Num)),
        cost: { promptCost: 0, completionCost: 0, totalCost: 0 },
      };
      for (const row of sums.rows) {
        const totalsRow: RollupTotalsRow = {
          value: String(row.value),
          spanCount: num(row.span_count as Num),
          errorCount: num(row.error_count as Num),
          tokenCountPrompt: num(row.prompt as Num),
          tokenCountCompletion: num(row.completion as Num),
          tokenCountTotal: num(row.total as Num),
        };
        if (row.dimension === '') {
          totals.cost = {
            promptCost: num(row.prompt_cost as Num),
            completionCost: num(row.completion_cost as Num),
            totalCost: num(row.total_cost as Num),
          };
        } else if (totalsRow.spanCount === 0) {
          // A row only the cost job made (rollups off at the span's ingest) counts no span.
        } else if (row.dimension === 'span_kind') {
          totals.kinds.push(totalsRow);
        } else if (totalsRow.value !== '') {
          totals.models.push(totalsRow);
        }
      }
      return totals;
    },

    /** USD cost per bucket and group from the rollups (migration 0046). */
    async costsFromRollups(range: AggregateRange, group: RollupGroup | null): Promise<CostAggregateRow[]> {
      const t = bucketOf(sql.ref('minute'), range);
      const result = await sql<{ t: Num; g: unknown; cost: Num }>`
        select ${t} as t, ${rollupGroupSql(group)} as g, sum(total_cost) as cost
        from span_rollups
        where project_id in (${sql.join(range.projectIds)}) and dimension = ${group ?? ''}
          and minute >= ${range.startMinute} and minute < ${range.endMinute}
        group by 1, 2`.execute(db);
      return result.rows.map((row) => ({ minute: num(row.t), group: text(row.g), cost: num(row.cost) }));
    },

    /**
     * USD cost per bucket and group from span_costs (docs/costs.md) joined with the priced spans,
     * for a filter or a group the rollups do not hold: through span_costs' (project_id,
     * start_time) index.
     */
    async costs(range: AggregateRange, group: SpanGroup | null, condition: SpanCondition | null): Promise<CostAggregateRow[]> {
      const minute = sql`(${sql.ref('span_costs.start_time')} / ${nanosLiteral(NANOS_PER_MINUTE)})`;
      const t = bucketOf(minute, range);
      const inRange = sql`${sql.ref('span_costs.project_id')} in (${sql.join(range.projectIds)})
        and ${sql.ref('span_costs.start_time')} >= ${nanosLiteral(BigInt(range.startMinute) * NANOS_PER_MINUTE)}
        and ${sql.ref('span_costs.start_time')} < ${nanosLiteral(BigInt(range.endMinute) * NANOS_PER_MINUTE)}`;
      const where = condition === null ? inRange : sql`${inRange} and ${spanConditionSql(dialect, condition)}`;
      const result = await sql<{ t: Num; g: unknown; cost: Num }>`
        select ${t} as t, ${spanGroupSql(group)} as g, sum(${sql.ref('span_costs.total_cost')}) as cost
        from span_costs
          inner join spans on ${sql.ref('spans.id')} = ${sql.ref('span_costs.span_rowid')}
          inner join traces on ${sql.ref('traces.id')} = ${sql.ref('spans.trace_rowid')}
        where ${where}
        group by 1, 2`.execute(db);
      return result.rows.map((row) => ({ minute: num(row.t), group: text(row.g), cost: num(row.cost) }));
    },

    /**
     * The annotations named `name` on the range's spans, per bucket and group (a span group, or
     * the annotation's label): their count, score sum and count, and how many carry `label`.
     */
    async annotations(
      range: AggregateRange,
      name: string,
      label: string | null,
      group: SpanGroup | { kind: 'annotation_label' } | null,
      condition: SpanCondition | null,
    ): Promise<AnnotationAggregateRow[]> {
      const t = bucketOf(spanMinute, range);
      const g = group?.kind === 'annotation_label' ? sql.ref('span_annotations.label') : spanGroupSql(group);
      const where = condition === null ? spansInRange(range) : sql`${spansInRange(range)} and ${spanConditionSql(dialect, condition)}`;
      const result = await sql<{ t: Num; g: unknown; n: Num; score_sum: Num; score_count: Num; label_count: Num }>`
        select ${t} as t, ${g} as g, count(*) as n,
          sum(${sql.ref('span_annotations.score')}) as score_sum,
          count(${sql.ref('span_annotations.score')}) as score_count,
          sum(case when ${sql.ref('span_annotations.label')} = ${label ?? ''} then 1 else 0 end) as label_count
        from spans
          inner join traces on ${sql.ref('traces.id')} = ${sql.ref('spans.trace_rowid')}
          inner join span_annotations on ${sql.ref('span_annotations.span_rowid')} = ${sql.ref('spans.id')}
        where ${where} and ${sql.ref('span_annotations.name')} = ${name}
        group by 1, 2`.execute(db);
      return result.rows.map((row) => ({
        minute: num(row.t),
        group: text(row.g),
        count: num(row.n),
        scoreSum: num(row.score_sum),
        scoreCount: num(row.score_count),
        labelCount: num(row.label_count),
      }));
    },
  };
}
