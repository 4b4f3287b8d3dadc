/**
 * OTLP log records as Sightline keeps them (docs/ingest.md, "Logs"): a record that names a span
 * (trace and span id) becomes an event of that span, whenever either arrives; GenAI event records
 * (`gen_ai.user.message`, `gen_ai.choice`, …) then also feed the span's messages
 * (conventions/genai-events.ts). A record that names no span has nowhere to go: it is counted and
 * refused in the export's partial-success answer, never silently dropped.
 */
import type { AttributeValue, Attributes } from './decoded-spans.js';

/** One decoded log record. */
export interface DecodedLogRecord {
  /** Hex; null when the record names no trace (absent, or all zeros). */
  traceId: string | null;
  spanId: string | null;
  /** The record's time, or its observed time when it has none. */
  timeUnixNano: bigint;
  /** The record's event name (the `event_name` field, or an `event.name` attribute); '' for none. */
  eventName: string;
  severityText: string;
  severityNumber: number;
  body: AttributeValue;
  attributes: Attributes;
}

export interface DecodedResourceLogs {
  resourceAttributes: Attributes;
  records: DecodedLogRecord[];
}

/** The attribute older SDKs name events by, before LogRecord had an event_name field. */
export const EVENT_NAME_ATTRIBUTE = 'event.name';
/** A record without an event name becomes an event of this name. */
export const PLAIN_LOG_EVENT = 'log';

/** A span event made from a log record, ready for the spans' `events` column. */
export interface LogSpanEvent {
  traceId: string;
  spanId: string;
  name: string;
  timeUnixNano: bigint;
  attributes: Attributes;
}

const ZERO_ID = /^0+$/;

/** The id as given, or null when absent or all zeros (an invalid id in OTLP). */
export function spanContextId(hex: string | null): string | null {
  return hex === null || hex === '' || ZERO_ID.test(hex) ? null : hex;
}

/**
 * The span event a record becomes, or null when it names no span. The body's fields join the
 * attributes (a GenAI event's body holds `content`, `role`, `tool_calls`…, which is where the
 * span-event form of those events has them); another kind of body is kept as `body`.
 */
export function spanEventOf(record: DecodedLogRecord): LogSpanEvent | null {
  if (record.traceId === null || record.spanId === null) return null;
  const attributes: Attributes = {};
  for (const key in record.attributes) if (key !== EVENT_NAME_ATTRIBUTE) attributes[key] = record.attributes[key]!;
  const body = record.body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    for (const key in body) if (attributes[key] === undefined) attributes[key] = body[key]!;
  } else if (body !== null) {
    attributes.body = body;
  }
  if (record.severityText !== '') attributes['log.severity'] = record.severityText;
  else if (record.severityNumber > 0) attributes['log.severity_number'] = record.severityNumber;
  const named = record.attributes[EVENT_NAME_ATTRIBUTE];
  const name = record.eventName !== '' ? record.eventName : typeof named === 'string' && named !== '' ? named : PLAIN_LOG_EVENT;
  return { traceId: record.traceId, spanId: record.spanId, name, timeUnixNano: record.timeUnixNano, attributes };
}
