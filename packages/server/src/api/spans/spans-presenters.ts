/** Response shapes of spans (Phoenix's Span plus Sightline's additions); the database shape never leaks past these. */
import type { SpanRecord } from '../../db/repositories/spans-repository.js';
import { latencyMs } from '../../span-model/time.js';
import { toGlobalId } from '../shared/global-id.js';
import { iso } from '../shared/times.js';

const SPAN_KIND_ATTRIBUTE = 'openinference.span.kind';

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
