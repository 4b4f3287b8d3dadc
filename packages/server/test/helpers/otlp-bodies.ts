/** Hand-built OTLP export bodies for tests that need exact control over the bytes. */
import { randomBytes } from 'node:crypto';
import { ExportTraceServiceRequest } from '../../src/ingest/otlp-schema.js';

export interface SimpleSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  start?: string;
  end?: string;
  attributes?: Record<string, string>;
}

export const newTraceId = () => randomBytes(16).toString('hex');
export const newSpanId = () => randomBytes(8).toString('hex');

/** An OTLP/JSON export with one resource holding the spans. */
export function jsonExport(spans: SimpleSpan[], resource: Record<string, string> = {}) {
  return {
    resourceSpans: [
      {
        resource: { attributes: Object.entries(resource).map(([key, value]) => ({ key, value: { stringValue: value } })) },
        scopeSpans: [
          {
            spans: spans.map((span) => ({
              traceId: span.traceId ?? newTraceId(),
              spanId: span.spanId ?? newSpanId(),
              parentSpanId: span.parentSpanId ?? '',
              name: span.name ?? 'span',
              kind: 1,
              startTimeUnixNano: span.start ?? '1763769600000000001',
              endTimeUnixNano: span.end ?? '1763769600500000001',
              attributes: Object.entries(span.attributes ?? {}).map(([key, value]) => ({ key, value: { stringValue: value } })),
            })),
          },
        ],
      },
    ],
  };
}

/** The same export as protobuf bytes. */
export function protobufExport(spans: SimpleSpan[], resource: Record<string, string> = {}): Buffer {
  const json = jsonExport(spans, resource);
  const message = ExportTraceServiceRequest.fromObject({
    resourceSpans: json.resourceSpans.map((rs) => ({
      resource: rs.resource,
      scopeSpans: rs.scopeSpans.map((ss) => ({
        spans: ss.spans.map((span) => ({
          ...span,
          traceId: Buffer.from(span.traceId, 'hex'),
          spanId: Buffer.from(span.spanId, 'hex'),
          parentSpanId: Buffer.from(span.parentSpanId, 'hex'),
        })),
      })),
    })),
  });
  return Buffer.from(ExportTraceServiceRequest.encode(message).finish());
}
