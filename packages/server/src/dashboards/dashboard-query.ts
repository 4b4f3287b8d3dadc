/**
 * Dashboard queries (docs/dashboards.md): one metric of the window metrics (metrics/window-metrics.ts)
 * over one or more projects, per time bucket and group. Span counts, errors, tokens and latency
 * percentiles and cost, grouped by kind, name, model or status, come from the per-minute rollups;
 * user, session, an attribute, or any filter read the range's spans instead (bounded to
 * MAX_SPAN_SCAN_DAYS; cost from span_costs joined with them), and the annotation metrics the
 * annotations. The answer says which (`source`).
 */
import { InvalidInputError } from '@sightline/common';
import { histogramPercentile, LATENCY_BUCKETS } from '../db/latency-histogram.js';
import type {
  AggregateRange,
  AnnotationAggregateRow,
  RollupGroup,
  RollupsRepository,
  SpanAggregateRow,
  SpanGroup,
} from '../db/repositories/rollups-repository.js';
import type { SpanCondition } from '../db/repositories/span-condition-sql.js';
import { METRIC_DESCRIPTIONS, WINDOW_METRICS, type WindowMetric } from '../metrics/window-metrics.js';
import type { ProjectsService } from '../projects/projects-service.js';
import type { Identifier } from '../shared/identifier.js';
import { parseSpanCondition } from '../spans/span-condition.js';

export const GROUP_BYS = ['span_kind', 'name', 'model', 'status', 'user', 'session', 'attribute', 'annotation_label'] as const;
export type GroupBy = (typeof GROUP_BYS)[number];
export const BUCKETS = ['minute', 'hour', 'day', 'none'] as const;
export type Bucket = (typeof BUCKETS)[number];
export type QuerySource = 'rollups' | 'spans' | 'span_costs' | 'annotations';

const BUCKET_MINUTES: Record<Bucket, number | null> = { minute: 1, hour: 60, day: 1440, none: null };
/** Longest range read from the rollups, and from the spans (a filter, or a group the rollups lack). */
export const MAX_RANGE_DAYS = 366;
export const MAX_SPAN_SCAN_DAYS = 7;
/** Most points a series may have: a longer range needs a larger bucket. */
export const MAX_POINTS = 2000;
export const MAX_GROUPS = 50;
export const DEFAULT_GROUPS = 10;
const MAX_FILTER_LENGTH = 4096;
const MAX_PROJECTS = 100;
const PERCENTILE: Partial<Record<WindowMetric, number>> = { latency_p50: 0.5, latency_p95: 0.95, latency_p99: 0.99 };
const ROLLUP_COLUMN: Partial<Record<GroupBy, RollupGroup>> = {
  span_kind: 'span_kind',
  name: 'name',
  model: 'model',
  status: 'status',
};

/** A dashboard query as a widget or a caller states it. */
export interface DashboardQueryInput {
  projects: Identifier[];
  metric: WindowMetric;
  annotationName?: string | null | undefined;
  annotationLabel?: string | null | undefined;
  groupBy?: GroupBy | null | undefined;
  /** The attribute key of group_by `attribute`. */
  attribute?: string | null | undefined;
  filter?: string | null | undefined;
  /** ISO 8601 times; the range is [start, end), rounded out to whole minutes. */
  startTime: string;
  endTime: string;
  bucket: Bucket;
  /** Most groups answered, the largest first. */
  limit?: number | undefined;
}

export interface DashboardPoint {
  /** The bucket's start, ISO 8601. */
  time: string;
  value: number | null;
}

export interface DashboardSeries {
  /** The group's value; null without group_by (or for spans without the group's value). */
  group: string | null;
  /** The metric over the whole range. */
  total: number | null;
  points: DashboardPoint[];
}

export interface DashboardQueryResult {
  metric: WindowMetric;
  unit: string;
  source: QuerySource;
  bucket: Bucket;
  startTime: string;
  endTime: string;
  series: DashboardSeries[];
  /** Groups left out beyond `limit`. */
  otherGroups: number;
}

/** What a value is made of, per bucket: enough to add buckets and groups together. */
interface Accumulator {
  spanCount: number;
  errorCount: number;
  tokens: number;
  cost: number;
  buckets: number[] | null;
  annotationCount: number;
  scoreSum: number;
  scoreCount: number;
  labelCount: number;
}

const emptyAccumulator = (histogram: boolean): Accumulator => ({
  spanCount: 0,
  errorCount: 0,
  tokens: 0,
  cost: 0,
  buckets: histogram ? new Array<number>(LATENCY_BUCKETS).fill(0) : null,
  annotationCount: 0,
  scoreSum: 0,
  scoreCount: 0,
  labelCount: 0,
});

function addInto(target: Accumulator, source: Partial<Accumulator>): void {
  target.spanCount += source.spanCount ?? 0;
  target.errorCount += source.errorCount ?? 0;
  target.tokens += source.tokens ?? 0;
  target.cost += source.cost ?? 0;
  target.annotationCount += source.annotationCount ?? 0;
  target.scoreSum += source.scoreSum ?? 0;
  target.scoreCount += source.scoreCount ?? 0;
  target.labelCount += source.labelCount ?? 0;
  if (target.buckets && source.buckets)
    for (let index = 0; index < LATENCY_BUCKETS; index++) target.buckets[index]! += source.buckets[index]!;
}

/** The metric's value of an accumulator: null for a ratio, mean or percentile over nothing. */
function metricValue(metric: WindowMetric, a: Accumulator): number | null {
  const percentile = PERCENTILE[metric];
  if (percentile !== undefined) return a.buckets ? histogramPercentile(a.buckets, percentile) : null;
  switch (metric) {
    case 'span_count':
      return a.spanCount;
    case 'error_rate':
      return a.spanCount === 0 ? null : a.errorCount / a.spanCount;
    case 'tokens':
      return a.tokens;
    case 'cost':
      return a.cost;
    case 'annotation_score_mean':
      return a.scoreCount === 0 ? null : a.scoreSum / a.scoreCount;
    case 'annotation_label_share':
      return a.annotationCount === 0 ? null : a.labelCount / a.annotationCount;
    default:
      return null;
  }
}

/** The weight that ranks groups: how much of the range each holds. */
function weightOf(metric: WindowMetric, a: Accumulator): number {
  if (metric === 'tokens') return a.tokens;
  if (metric === 'cost') return a.cost;
  if (metric === 'annotation_score_mean' || metric === 'annotation_label_share') return a.annotationCount;
  return a.spanCount;
}

const MS_PER_MINUTE = 60_000;

function parseTime(text: string, field: string): number {
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw new InvalidInputError(`${field} must be an ISO 8601 time such as 2026-01-31T12:00:00Z`);
  return ms;
}

/** A query checked whole; throws InvalidInputError with a sentence saying what to change. */
export interface CheckedQuery {
  metric: WindowMetric;
  annotationName: string | null;
  annotationLabel: string | null;
  groupBy: GroupBy | null;
  attribute: string | null;
  filter: string;
  condition: SpanCondition | null;
  startMinute: number;
  endMinute: number;
  bucket: Bucket;
  limit: number;
}

export function checkDashboardQuery(input: Omit<DashboardQueryInput, 'projects'>): CheckedQuery {
  const { metric } = input;
  if (!(WINDOW_METRICS as readonly string[]).includes(metric))
    throw new InvalidInputError(`metric must be one of ${WINDOW_METRICS.join(', ')}`);
  if (!(BUCKETS as readonly string[]).includes(input.bucket)) throw new InvalidInputError(`bucket must be one of ${BUCKETS.join(', ')}`);
  const groupBy = input.groupBy ?? null;
  if (groupBy !== null && !(GROUP_BYS as readonly string[]).includes(groupBy)) {
    throw new InvalidInputError(`group_by must be one of ${GROUP_BYS.join(', ')}, or absent for no groups`);
  }
  const attribute = input.attribute?.trim() || null;
  if (groupBy === 'attribute' && attribute === null)
    throw new InvalidInputError('group_by attribute needs attribute: the attribute key, e.g. metadata.tenant');
  if (groupBy !== 'attribute' && attribute !== null) throw new InvalidInputError('attribute applies to group_by attribute only');
  if (attribute !== null && attribute.length > 256) throw new InvalidInputError('attribute must be at most 256 characters');
  const annotation = metric === 'annotation_score_mean' || metric === 'annotation_label_share';
  const annotationName = input.annotationName?.trim() || null;
  const annotationLabel = input.annotationLabel ?? null;
  if (annotation && annotationName === null)
    throw new InvalidInputError(`${metric} needs annotation_name: the name of the annotations it reads`);
  if (!annotation && (annotationName !== null || annotationLabel !== null)) {
    throw new InvalidInputError(`annotation_name and annotation_label apply to the annotation metrics only, not to ${metric}`);
  }
  if (metric === 'annotation_label_share' && !annotationLabel && groupBy !== 'annotation_label') {
    throw new InvalidInputError(
      'annotation_label_share needs annotation_label (the label whose share it measures), or group_by annotation_label for every label',
    );
  }
  if (groupBy === 'annotation_label' && !annotation) {
    throw new InvalidInputError('group_by annotation_label applies to annotation_score_mean and annotation_label_share only');
  }
  const filter = (input.filter ?? '').trim();
  if (filter.length > MAX_FILTER_LENGTH) throw new InvalidInputError(`filter must be at most ${MAX_FILTER_LENGTH} characters`);
  let condition: SpanCondition | null = null;
  if (filter !== '') {
    try {
      condition = parseSpanCondition(filter);
    } catch (error) {
      if (error instanceof InvalidInputError) throw new InvalidInputError(`filter: ${error.message}`);
      throw error;
    }
  }
  const startMinute = Math.floor(parseTime(input.startTime, 'start_time') / MS_PER_MINUTE);
  const endMinute = Math.ceil(parseTime(input.endTime, 'end_time') / MS_PER_MINUTE);
  if (endMinute <= startMinute) throw new InvalidInputError('end_time must be after start_time');
  const minutes = endMinute - startMinute;
  if (minutes > MAX_RANGE_DAYS * 1440) throw new InvalidInputError(`the range may be at most ${MAX_RANGE_DAYS} days`);
  const scansSpans = condition !== null || (groupBy !== null && ROLLUP_COLUMN[groupBy] === undefined) || annotation;
  if (scansSpans && minutes > MAX_SPAN_SCAN_DAYS * 1440) {
    throw new InvalidInputError(
      `a query with a filter, grouped by ${groupBy ?? 'nothing'} or over annotations reads the spans themselves, so its range may be at most ${MAX_SPAN_SCAN_DAYS} days; without a filter, grouped by span_kind, name, model or status, it may be ${MAX_RANGE_DAYS}`,
    );
  }
  const bucketMinutes = BUCKET_MINUTES[input.bucket];
  if (bucketMinutes !== null && Math.ceil(minutes / bucketMinutes) > MAX_POINTS) {
    throw new InvalidInputError(
      `${input.bucket} buckets over this range make more than ${MAX_POINTS} points: choose a larger bucket or a shorter range`,
    );
  }
  const limit = input.limit ?? DEFAULT_GROUPS;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_GROUPS)
    throw new InvalidInputError(`limit must be a whole number from 1 to ${MAX_GROUPS}`);
  return {
    metric,
    annotationName,
    annotationLabel,
    groupBy,
    attribute,
    filter,
    condition,
    startMinute,
    endMinute,
    bucket: input.bucket,
    limit,
  };
}

export type DashboardQueryService = ReturnType<typeof createDashboardQueryService>;

export function createDashboardQueryService({ rollups, projects }: { rollups: RollupsRepository; projects: ProjectsService }) {
  /** The checked query's aggregates, from wherever they live, as rows of (bucket, group, parts). */
  const aggregates = async (
    query: CheckedQuery,
    range: AggregateRange,
  ): Promise<{ source: QuerySource; rows: { minute: number; group: string | null; parts: Partial<Accumulator> }[] }> => {
    const { metric, groupBy, condition } = query;
    const rollupColumn = groupBy === null ? null : (ROLLUP_COLUMN[groupBy] ?? null);
    const spanGroup: SpanGroup | null =
      groupBy === null || groupBy === 'annotation_label'
        ? null
        : rollupColumn !== null
          ? { kind: 'rollup', column: rollupColumn }
          : groupBy === 'attribute'
            ? { kind: 'attribute', key: query.attribute ?? '' }
            : { kind: groupBy as 'user' | 'session' };
    if (metric === 'annotation_score_mean' || metric === 'annotation_label_share') {
      const rows = await rollups.annotations(
        range,
        query.annotationName ?? '',
        query.annotationLabel,
        groupBy === 'annotation_label' ? { kind: 'annotation_label' } : spanGroup,
        condition,
      );
      const asParts = (row: AnnotationAggregateRow) => ({
        annotationCount: row.count,
        scoreSum: row.scoreSum,
        scoreCount: row.scoreCount,
        // Grouped by label, each label's share of the annotations of its bucket: computed below.
        labelCount: groupBy === 'annotation_label' ? row.count : row.labelCount,
      });
      if (groupBy !== 'annotation_label')
        return { source: 'annotations', rows: rows.map((row) => ({ minute: row.minute, group: row.group, parts: asParts(row) })) };
      // A label's share is of every annotation of the bucket, not of its own group's.
      const perBucket = new Map<number, number>();
      for (const row of rows) perBucket.set(row.minute, (perBucket.get(row.minute) ?? 0) + row.count);
      return {
        source: 'annotations',
        rows: rows.map((row) => ({
          minute: row.minute,
          group: row.group,
          parts: { ...asParts(row), annotationCount: perBucket.get(row.minute) ?? 0 },
        })),
      };
    }
    // The rollups answer without a filter, ungrouped or by one of their dimensions.
    const fromRollups = condition === null && (groupBy === null || rollupColumn !== null);
    if (metric === 'cost') {
      const rows = fromRollups ? await rollups.costsFromRollups(range, rollupColumn) : await rollups.costs(range, spanGroup, condition);
      return {
        source: fromRollups ? 'rollups' : 'span_costs',
        rows: rows.map((row) => ({ minute: row.minute, group: row.group, parts: { cost: row.cost } })),
      };
    }
    const histogram = PERCENTILE[metric] !== undefined;
    const rows: SpanAggregateRow[] = fromRollups
      ? await rollups.fromRollups(range, rollupColumn, histogram)
      : await rollups.fromSpans(range, spanGroup, condition, histogram);
    return {
      source: fromRollups ? 'rollups' : 'spans',
      rows: rows.map((row) => ({
        minute: row.minute,
        group: row.group,
        parts: { spanCount: row.spanCount, errorCount: row.errorCount, tokens: row.tokenCountTotal, buckets: row.buckets },
      })),
    };
  };

  return {
    /** Runs a query over the given projects (404 for one that does not exist). */
    async query(input: DashboardQueryInput): Promise<DashboardQueryResult> {
      const query = checkDashboardQuery(input);
      if (input.projects.length === 0) throw new InvalidInputError('name at least one project');
      if (input.projects.length > MAX_PROJECTS) throw new InvalidInputError(`a query may cover at most ${MAX_PROJECTS} projects`);
      const projectIds = [...new Set(await Promise.all(input.projects.map(async (identifier) => (await projects.resolve(identifier)).id)))];
      const bucketMinutes = BUCKET_MINUTES[query.bucket];
      const range: AggregateRange = { projectIds, startMinute: query.startMinute, endMinute: query.endMinute, bucketMinutes };
      const { source, rows } = await aggregates(query, range);
      const histogram = PERCENTILE[query.metric] !== undefined;
      // Per group: the whole range, and each bucket.
      const groups = new Map<string, { group: string | null; total: Accumulator; buckets: Map<number, Accumulator> }>();
      for (const row of rows) {
        const key = row.group === null ? '\u0001' : `\u0002${row.group}`;
        let entry = groups.get(key);
        if (entry === undefined) {
          entry = { group: row.group, total: emptyAccumulator(histogram), buckets: new Map() };
          groups.set(key, entry);
        }
        addInto(entry.total, row.parts);
        let bucket = entry.buckets.get(row.minute);
        if (bucket === undefined) {
          bucket = emptyAccumulator(histogram);
          entry.buckets.set(row.minute, bucket);
        }
        addInto(bucket, row.parts);
      }
      // Grouped by label, a bucket's share is of the bucket's annotations (set per row above); the total's is of the range's.
      if (query.groupBy === 'annotation_label') {
        const all = [...groups.values()].reduce((sum, entry) => sum + entry.total.labelCount, 0);
        for (const entry of groups.values()) entry.total.annotationCount = all;
      }
      // Without groups there is one series, also over nothing (counts 0, rates no data).
      if (query.groupBy === null && groups.size === 0)
        groups.set('\u0001', { group: null, total: emptyAccumulator(histogram), buckets: new Map() });
      // Tokens and cost by group: a group with none (spans that name no model) says nothing.
      if ((query.metric === 'tokens' || query.metric === 'cost') && query.groupBy !== null) {
        for (const [key, entry] of groups) if (weightOf(query.metric, entry.total) === 0) groups.delete(key);
      }
      const ranked = [...groups.values()].sort((a, b) => weightOf(query.metric, b.total) - weightOf(query.metric, a.total));
      const kept = ranked.slice(0, query.limit);
      const starts: number[] = [];
      if (bucketMinutes === null) starts.push(query.startMinute);
      else
        for (let minute = Math.floor(query.startMinute / bucketMinutes) * bucketMinutes; minute < query.endMinute; minute += bucketMinutes)
          starts.push(minute);
      const empty = emptyAccumulator(histogram);
      return {
        metric: query.metric,
        unit: METRIC_DESCRIPTIONS[query.metric].unit,
        source,
        bucket: query.bucket,
        startTime: new Date(query.startMinute * MS_PER_MINUTE).toISOString(),
        endTime: new Date(query.endMinute * MS_PER_MINUTE).toISOString(),
        series: kept.map((entry) => ({
          group: entry.group,
          total: metricValue(query.metric, entry.total),
          points: starts.map((minute) => ({
            time: new Date(minute * MS_PER_MINUTE).toISOString(),
            value: metricValue(query.metric, entry.buckets.get(minute) ?? empty),
          })),
        })),
        otherGroups: ranked.length - kept.length,
      };
    },
  };
}
