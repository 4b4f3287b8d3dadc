/** Response shapes of a project's summary and time series. */
import type { ProjectSummary, ProjectTimeseries } from '../../metrics/metrics-service.js';
import { toGlobalId } from '../shared/global-id.js';
import { iso } from '../shared/times.js';

export function presentSummary(summary: ProjectSummary) {
  return {
    project_id: toGlobalId('Project', summary.project.id),
    start_time: summary.startTime === undefined ? null : iso(summary.startTime),
    end_time: summary.endTime === undefined ? null : iso(summary.endTime),
    approximate: summary.approximate,
    span_count: summary.spanCount,
    trace_count: summary.traceCount,
    error_count: summary.errorCount,
    error_rate: summary.errorRate,
    latency_ms_p50: summary.latencyMsP50,
    latency_ms_p99: summary.latencyMsP99,
    token_count_prompt: summary.tokenCountPrompt,
    token_count_completion: summary.tokenCountCompletion,
    token_count_total: summary.tokenCountTotal,
    cost_prompt: summary.cost.promptCost,
    cost_completion: summary.cost.completionCost,
    cost_total: summary.cost.totalCost,
    span_kinds: summary.spanKinds.map((kind) => ({ span_kind: kind.spanKind, span_count: kind.spanCount, error_count: kind.errorCount })),
    models: summary.models.map((model) => ({
      model_name: model.modelName,
      span_count: model.spanCount,
      token_count_prompt: model.tokenCountPrompt,
      token_count_completion: model.tokenCountCompletion,
      token_count_total: model.tokenCountTotal,
    })),
  };
}

export function presentTimeseries(series: ProjectTimeseries) {
  return {
    project_id: toGlobalId('Project', series.project.id),
    start_time: iso(series.startTime),
    end_time: iso(series.endTime),
    interval_seconds: series.intervalSeconds,
    buckets: series.buckets.map((bucket) => ({
      start_time: iso(bucket.startTime),
      end_time: iso(bucket.endTime),
      span_count: bucket.spanCount,
      trace_count: bucket.traceCount,
      error_count: bucket.errorCount,
      latency_ms_p50: bucket.latencyMsP50,
      latency_ms_p99: bucket.latencyMsP99,
      token_count_prompt: bucket.tokenCountPrompt,
      token_count_completion: bucket.tokenCountCompletion,
      token_count_total: bucket.tokenCountTotal,
    })),
  };
}
