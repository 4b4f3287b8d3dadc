/** Response shapes of the query API (Phoenix's, plus Sightline's additions); the database shape never leaks past these. */
import type { ProjectRecord } from '../db/repositories/projects-repository.js';
import type { SpanAnnotationRecord } from '../db/repositories/span-annotations-repository.js';
import type { SpanRecord, SpanSummaryRecord } from '../db/repositories/spans-repository.js';
import type { ProjectSummary, ProjectTimeseries } from '../query/metrics-service.js';
import { latencyMs, nanosToIso } from '../span-model/time.js';
import type { TraceDetail, TraceListItem, TraceView } from '../query/traces-service.js';
import { toGlobalId } from './global-id.js';

const iso = (nanos: string | bigint) => nanosToIso(typeof nanos === 'bigint' ? nanos : BigInt(nanos));

const SPAN_KIND_ATTRIBUTE = 'openinference.span.kind';

export function presentProject(project: ProjectRecord) {
  return {
    id: toGlobalId('Project', project.id),
    name: project.name,
    description: project.description,
    created_at: project.createdAt,
    updated_at: project.updatedAt,
  };
}

/** Phoenix's Span: the kind attribute moves to span_kind, as Phoenix does. */
export function presentSpan(span: SpanRecord) {
  let attributes = span.attributes;
  if (Object.hasOwn(attributes, SPAN_KIND_ATTRIBUTE)) {
    attributes = { ...attributes };
    delete attributes[SPAN_KIND_ATTRIBUTE];
  }
  return {
    id: toGlobalId('Span', span.id),
    name: span.name,
    context: { trace_id: span.traceId, span_id: span.spanId },
    parent_id: span.parentId,
    span_kind: span.spanKind,
    start_time: iso(span.startTime),
    end_time: iso(span.endTime),
    status_code: span.statusCode,
    status_message: span.statusMessage,
    attributes,
    events: span.events,
    latency_ms: latencyMs(span.startTime, span.endTime),
    token_count_prompt: span.tokenCountPrompt,
    token_count_completion: span.tokenCountCompletion,
    token_count_total: span.tokenCountTotal,
  };
}

/** A span with its project's id (GET /v1/spans/{span_identifier}). */
export function presentSpanDetail(span: SpanRecord) {
  return { ...presentSpan(span), project_id: toGlobalId('Project', span.projectId) };
}

/** Phoenix's TraceSpanData. */
export function presentTraceSpan(span: SpanSummaryRecord) {
  return {
    id: toGlobalId('Span', span.id),
    span_id: span.spanId,
    parent_id: span.parentId,
    name: span.name,
    span_kind: span.spanKind,
    status_code: span.statusCode,
    start_time: iso(span.startTime),
    end_time: iso(span.endTime),
    latency_ms: latencyMs(span.startTime, span.endTime),
  };
}

function traceFields(trace: TraceView) {
  return {
    id: toGlobalId('Trace', trace.id),
    trace_id: trace.traceId,
    project_id: toGlobalId('Project', trace.projectId),
    start_time: iso(trace.startTime),
    end_time: iso(trace.endTime),
    latency_ms: latencyMs(trace.startTime, trace.endTime),
    token_count_prompt: trace.stats.tokenCountPrompt,
    token_count_completion: trace.stats.tokenCountCompletion,
    token_count_total: trace.stats.tokenCountTotal,
    span_count: trace.stats.spanCount,
    error_count: trace.stats.errorCount,
    cost_prompt: trace.cost?.promptCost ?? null,
    cost_completion: trace.cost?.completionCost ?? null,
    cost_total: trace.cost?.totalCost ?? null,
    root_span: trace.rootSpan ? presentTraceSpan(trace.rootSpan) : null,
  };
}

/** Phoenix's TraceData plus Sightline's additions; `spans` only when they were asked for. */
export function presentTrace(trace: TraceListItem) {
  return { ...traceFields(trace), ...(trace.spans ? { spans: trace.spans.map(presentTraceSpan) } : {}) };
}

export function presentTraceDetail(trace: TraceDetail) {
  return {
    ...traceFields(trace),
    spans: trace.spans.map((span) => ({ ...presentSpan(span), cost_total: trace.spanCosts.get(span.id)?.totalCost ?? null })),
  };
}

export function presentSummary(summary: ProjectSummary) {
  return {
    project_id: toGlobalId('Project', summary.project.id),
    start_time: summary.startTime === undefined ? null : iso(summary.startTime),
    end_time: summary.endTime === undefined ? null : iso(summary.endTime),
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

/** Phoenix's SpanAnnotation. */
export function presentSpanAnnotation(annotation: SpanAnnotationRecord) {
  return {
    id: toGlobalId('SpanAnnotation', annotation.id),
    span_id: annotation.spanId,
    name: annotation.name,
    annotator_kind: annotation.annotatorKind,
    result: { label: annotation.label, score: annotation.score, explanation: annotation.explanation },
    metadata: annotation.metadata,
    identifier: annotation.identifier,
    source: annotation.source,
    user_id: annotation.userId === null ? null : toGlobalId('User', annotation.userId),
    created_at: annotation.createdAt,
    updated_at: annotation.updatedAt,
  };
}
