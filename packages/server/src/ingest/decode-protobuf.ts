/** Decodes OTLP protobuf trace and log exports (HTTP body or gRPC message) into the shared model. */
import {
  ExportLogsServiceRequest,
  ExportTraceServiceRequest,
  type PbAnyValue,
  type PbExportLogsRequest,
  type PbKeyValue,
  type PbLong,
  type PbExportRequest,
} from './otlp-schema.js';
import { type DecodedLogRecord, type DecodedResourceLogs, spanContextId } from '../span-model/log-records.js';
import {
  OtlpDecodeError,
  int64Value,
  setAttribute,
  storableString,
  type AttributeValue,
  type Attributes,
  type DecodedResourceSpans,
  type DecodedSpan,
} from '../span-model/decoded-spans.js';

/** Decodes an `ExportTraceServiceRequest`; throws OtlpDecodeError on malformed input. */
export function decodeProtobufExport(body: Uint8Array): DecodedResourceSpans[] {
  let message: PbExportRequest;
  try {
    message = ExportTraceServiceRequest.decode(body) as unknown as PbExportRequest;
  } catch (error) {
    throw new OtlpDecodeError(`malformed OTLP protobuf body: ${(error as Error).message}`);
  }
  return message.resourceSpans.map((resourceSpans, r) => {
    const spans: DecodedSpan[] = [];
    for (const [s, scopeSpans] of resourceSpans.scopeSpans.entries()) {
      for (const [i, span] of scopeSpans.spans.entries()) {
        const where = `resourceSpans[${r}].scopeSpans[${s}].spans[${i}]`;
        spans.push({
          traceId: hexId(span.traceId, 16, `${where}.traceId`),
          spanId: hexId(span.spanId, 8, `${where}.spanId`),
          parentSpanId: span.parentSpanId.length === 0 ? null : hexId(span.parentSpanId, 8, `${where}.parentSpanId`),
          name: storableString(span.name),
          kind: span.kind,
          startTimeUnixNano: toBigInt(span.startTimeUnixNano),
          endTimeUnixNano: toBigInt(span.endTimeUnixNano),
          attributes: attributesOf(span.attributes),
          events: span.events.map((event) => ({
            name: storableString(event.name),
            timeUnixNano: toBigInt(event.timeUnixNano),
            attributes: attributesOf(event.attributes),
          })),
          statusCode: span.status?.code ?? 0,
          statusMessage: storableString(span.status?.message ?? ''),
        });
      }
    }
    return { resourceAttributes: attributesOf(resourceSpans.resource?.attributes ?? []), spans };
  });
}

/** Decodes an `ExportLogsServiceRequest`; throws OtlpDecodeError on malformed input. */
export function decodeProtobufLogsExport(body: Uint8Array): DecodedResourceLogs[] {
  let message: PbExportLogsRequest;
  try {
    message = ExportLogsServiceRequest.decode(body) as unknown as PbExportLogsRequest;
  } catch (error) {
    throw new OtlpDecodeError(`malformed OTLP protobuf body: ${(error as Error).message}`);
  }
  return message.resourceLogs.map((resourceLogs, r) => {
    const records: DecodedLogRecord[] = [];
    for (const [s, scopeLogs] of resourceLogs.scopeLogs.entries()) {
      for (const [i, record] of scopeLogs.logRecords.entries()) {
        const where = `resourceLogs[${r}].scopeLogs[${s}].logRecords[${i}]`;
        const time = toBigInt(record.timeUnixNano);
        records.push({
          traceId: record.traceId.length === 0 ? null : spanContextId(hexId(record.traceId, 16, `${where}.traceId`)),
          spanId: record.spanId.length === 0 ? null : spanContextId(hexId(record.spanId, 8, `${where}.spanId`)),
          timeUnixNano: time === 0n ? toBigInt(record.observedTimeUnixNano) : time,
          eventName: storableString(record.eventName),
          severityText: storableString(record.severityText),
          severityNumber: record.severityNumber,
          body: anyValue(record.body),
          attributes: attributesOf(record.attributes),
        });
      }
    }
    return { resourceAttributes: attributesOf(resourceLogs.resource?.attributes ?? []), records };
  });
}

function hexId(bytes: Uint8Array, length: number, where: string): string {
  if (bytes.length !== length) {
    throw new OtlpDecodeError(`${where} must be ${length} bytes, got ${bytes.length}`);
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function toBigInt(value: PbLong | number): bigint {
  if (typeof value === 'number') return BigInt(value);
  return (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
}

function toSignedBigInt(value: PbLong | number): bigint {
  return typeof value === 'number' ? BigInt(value) : BigInt.asIntN(64, toBigInt(value));
}

function attributesOf(keyValues: PbKeyValue[]): Attributes {
  const attributes: Attributes = {};
  for (const { key, value } of keyValues) setAttribute(attributes, storableString(key), anyValue(value));
  return attributes;
}

// protobufjs puts oneof defaults on the prototype, so the oneof's name is the only reliable guide.
function anyValue(value: PbAnyValue | null | undefined): AttributeValue {
  switch (value?.value) {
    case 'stringValue':
      return storableString(value.stringValue as string);
    case 'boolValue':
      return value.boolValue as boolean;
    case 'intValue':
      return int64Value(toSignedBigInt(value.intValue as PbLong | number));
    case 'doubleValue':
      return Number.isFinite(value.doubleValue) ? (value.doubleValue as number) : String(value.doubleValue);
    case 'arrayValue':
      return (value.arrayValue?.values ?? []).map(anyValue);
    case 'kvlistValue':
      return attributesOf(value.kvlistValue?.values ?? []);
    case 'bytesValue': {
      const bytes = value.bytesValue as Uint8Array;
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
    }
    default:
      return null;
  }
}
