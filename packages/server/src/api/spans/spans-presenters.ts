/** Response shapes of spans (Phoenix's Span plus Sightline's additions); the database shape never leaks past these. */
import type { SpanRecord } from '../../db/repositories/spans-repository.js';
import { isoToNanos, latencyMs } from '../../span-model/time.js';
import { exactInteger } from '../shared/exact-json.js';
import { toGlobalId } from '../shared/global-id.js';
import { iso } from '../shared/times.js';
import { SPAN_KIND } from '../../span-model/conventions/attribute-names.js';

const SPAN_KIND_ATTRIBUTE = SPAN_KIND;

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

/** An attribute value in OTLP/JSON's AnyValue, every key present as Phoenix's model writes them (null when unused). */
type OtlpAnyValue = {
  array_value: { values: OtlpAnyValue[] } | null;
  bool_value: boolean | null;
  bytes_value: string | null;
  double_value: number | null;
  int_value: number | null;
  kvlist_value: null;
  string_value: string | null;
};

const EMPTY_VALUE: OtlpAnyValue = {
  array_value: null,
  bool_value: null,
  bytes_value: null,
  double_value: null,
  int_value: null,
  kvlist_value: null,
  string_value: null,
};

/**
 * A stored attribute value as Phoenix's spanSearch gives it: booleans, integers, other numbers and
 * strings in their own field, lists as array_value (a list of mixed types as strings, a nested list
 * as one string), objects and null as an empty value. Stored JSON cannot tell 1.0 from 1: both are int_value.
 */
function otlpValue(value: unknown): OtlpAnyValue {
  if (typeof value === 'boolean') return { ...EMPTY_VALUE, bool_value: value };
  if (typeof value === 'number')
    return Number.isInteger(value) ? { ...EMPTY_VALUE, int_value: value } : { ...EMPTY_VALUE, double_value: value };
  if (typeof value === 'string') return { ...EMPTY_VALUE, string_value: value };
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => (Array.isArray(item) ? JSON.stringify(item) : item));
    const sameType = items.every(
      (item) => typeof item === typeof items[0] && (typeof item !== 'number' || Number.isInteger(item) === Number.isInteger(items[0])),
    );
    return {
      ...EMPTY_VALUE,
      array_value: {
        values: sameType
          ? items.map(otlpValue)
          : items.map((item) => ({ ...EMPTY_VALUE, string_value: typeof item === 'string' ? item : JSON.stringify(item) })),
      },
    };
  }
  return EMPTY_VALUE;
}

const keyValues = (attributes: Record<string, unknown>) =>
  Object.entries(attributes).map(([key, value]) => ({ key, value: otlpValue(value) }));

const OTLP_STATUS: Record<string, number> = { UNSET: 0, OK: 1, ERROR: 2 };

/**
 * Phoenix's OtlpSpan (spanSearch): snake_case OTLP/JSON with hex ids, times as integer nanoseconds
 * (exact: written digit for digit by stringifyExact), attributes as key/value pairs with the span kind
 * among them, events null when there are none, and every field of Phoenix's model present.
 */
export function presentOtlpSpan(span: SpanRecord) {
  return {
    attributes: keyValues(span.attributes),
    dropped_attributes_count: null,
    dropped_events_count: null,
    dropped_links_count: null,
    end_time_unix_nano: exactInteger(span.endTime),
    events:
      span.events.length === 0
        ? null
        : span.events.map((event) => {
            const nanos = isoToNanos(event.timestamp);
            return {
              attributes: keyValues(event.attributes ?? {}),
              dropped_attributes_count: null,
              name: event.name,
              time_unix_nano: nanos === null ? null : exactInteger(nanos),
            };
          }),
    flags: null,
    // Phoenix's model default: OpenInference carries its own kind (in the attributes).
    kind: 'SPAN_KIND_INTERNAL',
    links: null,
    name: span.name,
    parent_span_id: span.parentId,
    span_id: span.spanId,
    start_time_unix_nano: exactInteger(span.startTime),
    status: { code: OTLP_STATUS[span.statusCode] ?? 0, message: span.statusMessage === '' ? null : span.statusMessage },
    trace_id: span.traceId,
    trace_state: null,
  };
}
