/** Project metrics: a summary of a time range, and the same figures per time bucket. */
import type { Identifier } from '../shared/identifier.js';
import type { LatencyPercentiles, ProjectMetricsRepository, SpanAggregate } from '../db/repositories/project-metrics-repository.js';
import type { ProjectRecord } from '../db/repositories/projects-repository.js';
import type { CostTotals, CostsRepository } from '../db/repositories/costs-repository.js';
import { InvalidInputError } from '@sightline/common';
import type { ProjectsService } from '../projects/projects-service.js';
import { minuteOf, NANOS_PER_MINUTE, parseTimeRange } from '../span-model/time.js';
import type { RollupsRepository, RollupTotalsRow } from '../db/repositories/rollups-repository.js';
import { histogramPercentile } from '../db/latency-histogram.js';

export interface TokenTotals {
  tokenCountPrompt: number;
  tokenCountCompletion: number;
  tokenCountTotal: number;
}

export interface ProjectSummary extends TokenTotals {
  project: ProjectRecord;
  startTime: bigint | undefined;
  endTime: bigint | undefined;
  /** Read from the rollups over whole minutes (more than EXACT_SUMMARY_MAX_SPANS spans), not from the spans. */
  approximate: boolean;
  spanCount: number;
  traceCount: number;
  errorCount: number;
  /** errorCount / spanCount, 0 without spans. */
  errorRate: number;
  /** Latency of root spans (milliseconds), null without root spans. */
  latencyMsP50: number | null;
  latencyMsP99: number | null;
  /** Sums over the priced LLM spans of the range (docs/costs.md). */
  cost: CostTotals;
  spanKinds: { spanKind: string; spanCount: number; errorCount: number }[];
  models: ({ modelName: string | null; spanCount: number } & TokenTotals)[];
}

export interface TimeseriesBucket extends TokenTotals {
  startTime: bigint;
  endTime: bigint;
  spanCount: number;
  traceCount: number;
  errorCount: number;
  latencyMsP50: number | null;
  latencyMsP99: number | null;
}

export interface ProjectTimeseries {
  project: ProjectRecord;
  /** Start of the first bucket (the requested start aligned down to a multiple of the interval). */
  startTime: bigint;
  endTime: bigint;
  intervalSeconds: number;
  buckets: TimeseriesBucket[];
}

const NANOS_PER_SECOND = 1_000_000_000n;
const DAY = 86_400n * NANOS_PER_SECOND;
export const MAX_BUCKETS = 1000;
/** Intervals tried, smallest first, when none is given: the first that yields at most 120 buckets. */
const AUTO_INTERVALS_SECONDS = [1, 5, 10, 30, 60, 300, 900, 1800, 3600, 10_800, 21_600, 43_200, 86_400, 604_800, 2_592_000];
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Seconds of an interval such as `300`, `30s`, `5m`, `1h` or `1d`; 422 otherwise. */
export function parseInterval(text: string): number {
  const match = /^(\d{1,9})([smhd]?)$/.exec(text.trim());
  const seconds = match ? Number(match[1]) * UNIT_SECONDS[match[2] || 's']! : 0;
  if (!match || seconds < 1)
    throw new InvalidInputError(
      `interval must be a whole number of seconds or a duration such as 30s, 5m, 1h, 1d (got "${text.slice(0, 40)}")`,
    );
  return seconds;
}

const nowNanos = () => BigInt(Date.now()) * 1_000_000n;

/**
 * Most spans a summary reads one by one (docs/api.md, "Metrics"): about 7 µs each on
 * SQLite, so 0.15 s; beyond, it reads the per-minute rollups. 7 days of 10M spans took 77 s
 * from the spans, holding up every request of a SQLite server meanwhile.
 */
export const EXACT_SUMMARY_MAX_SPANS = 20_000;
/** The minute since 1970 that a time ends: its own when it is a whole minute, else the next. */
const minuteAfter = (nanos: bigint) => -minuteOf(-nanos);

function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : part / whole;
}

export type MetricsService = ReturnType<typeof createMetricsService>;

export function createMetricsService({
  metrics,
  costs,
  projects,
  rollups = null,
  exactMaxSpans = EXACT_SUMMARY_MAX_SPANS,
  now = nowNanos,
}: {
  metrics: ProjectMetricsRepository;
  costs: CostsRepository;
  projects: ProjectsService;
  /** The rollups, where they hold every span (SERVICE_DASHBOARD_ROLLUPS); null to always read the spans. */
  rollups?: RollupsRepository | null;
  /** Most spans a summary reads from the spans (tests lower it). */
  exactMaxSpans?: number;
  now?: () => bigint;
}) {
  /** The summary of a large range, from the rollups over its whole minutes. */
  const summaryFromRollups = async (
    project: ProjectRecord,
    startMinute: number | null,
    endMinute: number | null,
    rollupsRepository: RollupsRepository,
  ): Promise<ProjectSummary> => {
    const startTime = startMinute === null ? undefined : BigInt(startMinute) * NANOS_PER_MINUTE;
    const endTime = endMinute === null ? undefined : BigInt(endMinute) * NANOS_PER_MINUTE;
    const [totals, traceCounts] = await Promise.all([
      rollupsRepository.totals(project.id, startMinute, endMinute),
      metrics.traceCounts({ projectId: project.id, startTime, endTime }),
    ]);
    const sum = (pick: (row: RollupTotalsRow) => number) => totals.kinds.reduce((total, row) => total + pick(row), 0);
    const spanCount = sum((row) => row.spanCount);
    const errorCount = sum((row) => row.errorCount);
    return {
      project,
      startTime,
      endTime,
      approximate: true,
      spanCount,
      traceCount: traceCounts.get(0) ?? 0,
      errorCount,
      errorRate: ratio(errorCount, spanCount),
      latencyMsP50: histogramPercentile(totals.rootBuckets, 0.5),
      latencyMsP99: histogramPercentile(totals.rootBuckets, 0.99),
      tokenCountPrompt: sum((row) => row.tokenCountPrompt),
      tokenCountCompletion: sum((row) => row.tokenCountCompletion),
      tokenCountTotal: sum((row) => row.tokenCountTotal),
      cost: totals.cost,
      spanKinds: totals.kinds
        .map((row) => ({ spanKind: row.value, spanCount: row.spanCount, errorCount: row.errorCount }))
        .sort((a, b) => b.spanCount - a.spanCount || a.spanKind.localeCompare(b.spanKind)),
      models: totals.models
        .map((row) => ({
          modelName: row.value,
          spanCount: row.spanCount,
          tokenCountPrompt: row.tokenCountPrompt,
          tokenCountCompletion: row.tokenCountCompletion,
          tokenCountTotal: row.tokenCountTotal,
        }))
        .sort((a, b) => b.tokenCountTotal - a.tokenCountTotal || b.spanCount - a.spanCount || a.modelName.localeCompare(b.modelName)),
    };
  };

  return {
    /** Totals of the spans and traces that start in [start_time, end_time) (all time when absent). */
    async summary(
      projectIdentifier: Identifier,
      params: { startTime?: string | undefined; endTime?: string | undefined },
    ): Promise<ProjectSummary> {
      const { start, end } = parseTimeRange(params);
      const project = await projects.resolve(projectIdentifier);
      if (rollups) {
        const startMinute = start === undefined ? null : minuteOf(start);
        const endMinute = end === undefined ? null : minuteAfter(end);
        if ((await rollups.spanCount(project.id, startMinute, endMinute)) > exactMaxSpans)
          return summaryFromRollups(project, startMinute, endMinute, rollups);
      }
      const range = { projectId: project.id, startTime: start, endTime: end };
      const [kinds, models, traceCounts, latency, cost] = await Promise.all([
        metrics.byKind(range),
        metrics.byModel(range),
        metrics.traceCounts(range),
        metrics.rootLatency(range),
        costs.projectTotals(project.id, range),
      ]);
      const total = (rows: SpanAggregate[], pick: (row: SpanAggregate) => number) => rows.reduce((sum, row) => sum + pick(row), 0);
      const spanCount = total(kinds, (row) => row.spanCount);
      const errorCount = total(kinds, (row) => row.errorCount);
      const overall = latency.get(0);
      return {
        project,
        startTime: start,
        endTime: end,
        approximate: false,
        spanCount,
        traceCount: traceCounts.get(0) ?? 0,
        errorCount,
        errorRate: ratio(errorCount, spanCount),
        latencyMsP50: overall?.p50 ?? null,
        latencyMsP99: overall?.p99 ?? null,
        tokenCountPrompt: total(kinds, (row) => row.tokenCountPrompt),
        tokenCountCompletion: total(kinds, (row) => row.tokenCountCompletion),
        tokenCountTotal: total(kinds, (row) => row.tokenCountTotal),
        cost,
        spanKinds: kinds
          .map((row) => ({ spanKind: String(row.group), spanCount: row.spanCount, errorCount: row.errorCount }))
          .sort((a, b) => b.spanCount - a.spanCount || a.spanKind.localeCompare(b.spanKind)),
        models: models
          .map((row) => ({
            modelName: row.group === null ? null : String(row.group),
            spanCount: row.spanCount,
            tokenCountPrompt: row.tokenCountPrompt,
            tokenCountCompletion: row.tokenCountCompletion,
            tokenCountTotal: row.tokenCountTotal,
          }))
          .sort(
            (a, b) =>
              b.tokenCountTotal - a.tokenCountTotal || b.spanCount - a.spanCount || String(a.modelName).localeCompare(String(b.modelName)),
          ),
      };
    },

    /**
     * The summary's figures per bucket of `interval` over [start_time, end_time) (end_time defaults
     * to now, start_time to 24 hours before end_time). Buckets align to multiples of the interval since the epoch (UTC), so the first one
     * starts at or before start_time; every bucket is returned, empty ones with zeros.
     */
    async timeseries(
      projectIdentifier: Identifier,
      params: { startTime?: string | undefined; endTime?: string | undefined; interval?: string | undefined },
    ): Promise<ProjectTimeseries> {
      const parsed = parseTimeRange(params);
      const end = parsed.end ?? now();
      const start = parsed.start ?? end - DAY;
      if (end <= start) throw new InvalidInputError('end_time must be after start_time');
      let seconds: number;
      if (params.interval !== undefined && params.interval !== '') {
        seconds = parseInterval(params.interval);
      } else {
        seconds =
          AUTO_INTERVALS_SECONDS.find((candidate) => (end - start) / (BigInt(candidate) * NANOS_PER_SECOND) < 120n) ??
          AUTO_INTERVALS_SECONDS.at(-1)!;
      }
      const width = BigInt(seconds) * NANOS_PER_SECOND;
      const origin = start - (start % width);
      const bucketCount = Number((end - origin + width - 1n) / width);
      if (bucketCount > MAX_BUCKETS) {
        throw new InvalidInputError(
          `the range holds ${bucketCount} buckets of ${seconds} s; at most ${MAX_BUCKETS} are allowed: use a larger interval`,
        );
      }
      const project = await projects.resolve(projectIdentifier);
      const range = { projectId: project.id, startTime: origin, endTime: end };
      const bucketing = { origin, width };
      const [spans, traceCounts, latency] = await Promise.all([
        metrics.byBucket(range, bucketing),
        metrics.traceCounts(range, bucketing),
        metrics.rootLatency(range, bucketing),
      ]);
      const spansByBucket = new Map(spans.map((row) => [Number(row.group), row]));
      const buckets: TimeseriesBucket[] = [];
      for (let index = 0; index < bucketCount; index++) {
        const row = spansByBucket.get(index);
        const percentiles: LatencyPercentiles | undefined = latency.get(index);
        const bucketStart = origin + BigInt(index) * width;
        buckets.push({
          startTime: bucketStart,
          endTime: bucketStart + width,
          spanCount: row?.spanCount ?? 0,
          traceCount: traceCounts.get(index) ?? 0,
          errorCount: row?.errorCount ?? 0,
          latencyMsP50: percentiles?.p50 ?? null,
          latencyMsP99: percentiles?.p99 ?? null,
          tokenCountPrompt: row?.tokenCountPrompt ?? 0,
          tokenCountCompletion: row?.tokenCountCompletion ?? 0,
          tokenCountTotal: row?.tokenCountTotal ?? 0,
        });
      }
      return { project, startTime: origin, endTime: end, intervalSeconds: seconds, buckets };
    },
  };
}
