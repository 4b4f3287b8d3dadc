/** Response shapes of traces (Phoenix's TraceData plus Sightline's additions). */
import type { SpanSummaryRecord } from '../../db/repositories/spans-repository.js';
import { latencyMs } from '../../span-model/time.js';
import type { TraceRecord } from '../../db/repositories/traces-repository.js';
import type { TraceDetail, TraceListItem, TraceView } from '../../traces/traces-service.js';
import { toGlobalId } from '../shared/global-id.js';
import { iso } from '../shared/times.js';
import { presentSpan } from '../spans/spans-presenters.js';

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
  return {
    ...traceFields(trace),
    input: trace.input,
    output: trace.output,
    ...(trace.spans ? { spans: trace.spans.map(presentTraceSpan) } : {}),
  };
}

export function presentTraceDetail(trace: TraceDetail) {
  return {
    ...traceFields(trace),
    spans: trace.spans.map((span) => ({ ...presentSpan(span), cost_total: trace.spanCosts.get(span.id)?.totalCost ?? null })),
    spans_truncated: trace.spansTruncated,
  };
}

/** Where a trace is: its ids and its project (GET /v1/traces/{id}). */
export function presentTraceLocation(trace: TraceRecord) {
  return {
    id: toGlobalId('Trace', trace.id),
    trace_id: trace.traceId,
    project_id: toGlobalId('Project', trace.projectId),
    start_time: iso(trace.startTime),
  };
}
