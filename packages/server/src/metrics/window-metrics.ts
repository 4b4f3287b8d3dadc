/**
 * Window metrics (docs/alerts.md, "Metrics"): one figure of a project's spans that started in the
 * last `windowSeconds` before a moment, optionally narrowed by a span filter. Alert rules watch
 * them; a dashboard can draw the same definitions. Each value is one aggregate statement
 * (db/repositories/window-metrics-repository.ts); no span of the window is loaded here.
 *
 * A metric that is a ratio, a mean or a percentile has no value over a window without the spans
 * (or annotations) it needs: it answers null ("no data"). Counts and sums answer 0.
 */
import { InvalidInputError } from '@sightline/common';
import type { MetricWindow, WindowMetricsRepository } from '../db/repositories/window-metrics-repository.js';
import { checkStoredFilter, storedFilterParser } from '../spans/span-condition.js';

export const WINDOW_METRICS = [
  'span_count',
  'error_rate',
  'latency_p50',
  'latency_p95',
  'latency_p99',
  'tokens',
  'cost',
  'annotation_score_mean',
  'annotation_label_share',
] as const;
export type WindowMetric = (typeof WINDOW_METRICS)[number];

/** What a metric is, for people: its name in a sentence and its unit. */
export const METRIC_DESCRIPTIONS: Record<WindowMetric, { label: string; unit: string }> = {
  span_count: { label: 'span count', unit: 'spans' },
  error_rate: { label: 'error rate', unit: 'share of spans with status ERROR, 0 to 1' },
  latency_p50: { label: 'p50 latency', unit: 'ms' },
  latency_p95: { label: 'p95 latency', unit: 'ms' },
  latency_p99: { label: 'p99 latency', unit: 'ms' },
  tokens: { label: 'tokens', unit: 'llm.token_count.total summed' },
  cost: { label: 'cost', unit: 'USD' },
  annotation_score_mean: { label: 'mean annotation score', unit: 'score' },
  annotation_label_share: { label: 'annotation label share', unit: 'share, 0 to 1' },
};

const PERCENTILE: Partial<Record<WindowMetric, number>> = { latency_p50: 0.5, latency_p95: 0.95, latency_p99: 0.99 };

export const MIN_WINDOW_SECONDS = 10;
export const MAX_WINDOW_SECONDS = 7 * 86_400;
const MAX_FILTER_LENGTH = 4096;
const MAX_ANNOTATION_NAME_LENGTH = 256;

/** A metric with what it needs: the annotation name (and label) of the annotation metrics, a filter. */
export interface MetricDefinition {
  metric: WindowMetric;
  annotationName: string | null;
  annotationLabel: string | null;
  /** A span condition (docs/api.md, "Span queries"); empty for every span. */
  filter: string;
  windowSeconds: number;
}

/** Checks a definition, whole; throws InvalidInputError with a sentence saying what to change. Answers it tidied. */
export function checkMetricDefinition(definition: MetricDefinition): MetricDefinition {
  const { metric } = definition;
  if (!(WINDOW_METRICS as readonly string[]).includes(metric)) {
    throw new InvalidInputError(`metric must be one of ${WINDOW_METRICS.join(', ')}`);
  }
  const seconds = definition.windowSeconds;
  if (!Number.isInteger(seconds) || seconds < MIN_WINDOW_SECONDS || seconds > MAX_WINDOW_SECONDS) {
    throw new InvalidInputError(
      `window_seconds must be a whole number from ${MIN_WINDOW_SECONDS} (10 s) to ${MAX_WINDOW_SECONDS} (7 days)`,
    );
  }
  const annotationName = definition.annotationName?.trim() || null;
  const annotationLabel = definition.annotationLabel ?? null;
  const annotation = metric === 'annotation_score_mean' || metric === 'annotation_label_share';
  if (annotation && annotationName === null) {
    throw new InvalidInputError(`${metric} needs annotation_name: the name of the annotations it reads (e.g. an online evaluator's name)`);
  }
  if (!annotation && (annotationName !== null || annotationLabel !== null)) {
    throw new InvalidInputError(`annotation_name and annotation_label apply to the annotation metrics only, not to ${metric}`);
  }
  if (annotationName !== null && annotationName.length > MAX_ANNOTATION_NAME_LENGTH) {
    throw new InvalidInputError(`annotation_name must be at most ${MAX_ANNOTATION_NAME_LENGTH} characters`);
  }
  if (metric === 'annotation_label_share' && (annotationLabel === null || annotationLabel === '')) {
    throw new InvalidInputError('annotation_label_share needs annotation_label: the label whose share it measures');
  }
  if (metric === 'annotation_score_mean' && annotationLabel !== null) {
    throw new InvalidInputError('annotation_label applies to annotation_label_share only');
  }
  const filter = definition.filter.trim();
  if (filter.length > MAX_FILTER_LENGTH) throw new InvalidInputError(`filter must be at most ${MAX_FILTER_LENGTH} characters`);
  checkStoredFilter(filter);
  return { metric, annotationName, annotationLabel, filter, windowSeconds: seconds };
}

const NANOS_PER_MS = 1_000_000n;

export type WindowMetrics = ReturnType<typeof createWindowMetrics>;

export function createWindowMetrics(repository: WindowMetricsRepository) {
  const conditionOf = storedFilterParser();

  return {
    /**
     * The metric over the project's spans that started in [endMs − window, endMs); null for "no
     * data" (a rate, mean or percentile over nothing).
     */
    async value(projectId: number, definition: MetricDefinition, endMs: number): Promise<number | null> {
      const endTime = BigInt(Math.floor(endMs)) * NANOS_PER_MS;
      const window: MetricWindow = {
        projectId,
        startTime: endTime - BigInt(definition.windowSeconds) * 1000n * NANOS_PER_MS,
        endTime,
        condition: conditionOf(definition.filter),
      };
      const percentile = PERCENTILE[definition.metric];
      if (percentile !== undefined) return repository.latencyPercentile(window, percentile);
      switch (definition.metric) {
        case 'span_count':
          return (await repository.spanTotals(window)).spanCount;
        case 'tokens':
          return (await repository.spanTotals(window)).tokenCountTotal;
        case 'error_rate': {
          const totals = await repository.spanTotals(window);
          return totals.spanCount === 0 ? null : totals.errorCount / totals.spanCount;
        }
        case 'cost':
          return repository.cost(window);
        case 'annotation_score_mean':
          return (await repository.annotationTotals(window, definition.annotationName ?? '', null)).scoreMean;
        case 'annotation_label_share': {
          const totals = await repository.annotationTotals(window, definition.annotationName ?? '', definition.annotationLabel);
          return totals.count === 0 ? null : totals.labelCount / totals.count;
        }
        default:
          throw new InvalidInputError(`metric must be one of ${WINDOW_METRICS.join(', ')}`);
      }
    },
  };
}
