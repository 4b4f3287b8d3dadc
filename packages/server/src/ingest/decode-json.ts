/**
 * Decodes OTLP/JSON trace and log exports into the shared model. Follows the OTLP/JSON mapping
 * (lowerCamelCase keys, hex ids, 64-bit integers as strings) and also accepts snake_case
 * keys, base64 ids and integers written as plain JSON numbers, as lenient receivers do.
 */
import {
  OtlpDecodeError,
  int64Value,
  setAttribute,
  storableString,
  type AttributeValue,
  type Attributes,
  type DecodedEvent,
  type DecodedResourceSpans,
  type DecodedSpan,
} from '../span-model/decoded-spans.js';
import { type DecodedLogRecord, type DecodedResourceLogs, spanContextId } from '../span-model/log-records.js';

type Json = unknown;
type JsonObject = Record<string, Json>;

// JSON.parse turns integers beyond 2^53 into inexact doubles; quote the 64-bit fields first.
const INT64_FIELDS =
  /("(?:startTimeUnixNano|endTimeUnixNano|timeUnixNano|observedTimeUnixNano|start_time_unix_nano|end_time_unix_nano|time_unix_nano|observed_time_unix_nano|intValue|int_value)"\s*:\s*)(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

const SPAN_KINDS: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
const STATUS_CODES: Record<string, number> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };
/** Deepest nesting of array/kvlist attribute values accepted (protobuf decoding stops near 50). */
const MAX_VALUE_DEPTH = 100;

const SEVERITY_NUMBERS: Record<string, number> = Object.fromEntries(
  [
    'UNSPECIFIED',
    'TRACE',
    'TRACE2',
    'TRACE3',
    'TRACE4',
    'DEBUG',
    'DEBUG2',
    'DEBUG3',
    'DEBUG4',
    'INFO',
    'INFO2',
    'INFO3',
    'INFO4',
    'WARN',
    'WARN2',
    'WARN3',
    'WARN4',
    'ERROR',
    'ERROR2',
    'ERROR3',
    'ERROR4',
    'FATAL',
    'FATAL2',
    'FATAL3',
    'FATAL4',
  ].map((name, number) => [`SEVERITY_NUMBER_${name}`, number]),
);

function parseBody(text: string): JsonObject {
  let parsed: Json;
  try {
    parsed = JSON.parse(text.replace(INT64_FIELDS, '$1"$2"'));
  } catch (error) {
    throw new OtlpDecodeError(`invalid JSON body: ${(error as Error).message}`);
  }
  return object(parsed, 'body');
}

/** Decodes an OTLP/JSON `ExportLogsServiceRequest`; throws OtlpDecodeError on malformed input. */
export function decodeJsonLogsExport(text: string): DecodedResourceLogs[] {
  const request = parseBody(text);
  return array(field(request, 'resourceLogs', 'resource_logs'), 'resourceLogs').map((item, r) => {
    const where = `resourceLogs[${r}]`;
    const resourceLogs = object(item, where);
    const resource = optionalObject(field(resourceLogs, 'resource', 'resource'), `${where}.resource`);
    const records: DecodedLogRecord[] = [];
    for (const [s, scopeItem] of array(field(resourceLogs, 'scopeLogs', 'scope_logs'), `${where}.scopeLogs`).entries()) {
      const scopeWhere = `${where}.scopeLogs[${s}]`;
      const scopeLogs = object(scopeItem, scopeWhere);
      for (const [i, recordItem] of array(field(scopeLogs, 'logRecords', 'log_records'), `${scopeWhere}.logRecords`).entries()) {
        records.push(decodeLogRecord(object(recordItem, `${scopeWhere}.logRecords[${i}]`), `${scopeWhere}.logRecords[${i}]`));
      }
    }
    const resourceAttributes = resource ? attributesOf(field(resource, 'attributes', 'attributes'), `${where}.resource.attributes`) : {};
    return { resourceAttributes, records };
  });
}

function decodeLogRecord(record: JsonObject, where: string): DecodedLogRecord {
  const optionalId = (value: Json, bytes: number, at: string) =>
    value === undefined || value === null || value === '' ? null : spanContextId(id(value, bytes, at));
  const time = nanos(field(record, 'timeUnixNano', 'time_unix_nano'), `${where}.timeUnixNano`);
  return {
    traceId: optionalId(field(record, 'traceId', 'trace_id'), 16, `${where}.traceId`),
    spanId: optionalId(field(record, 'spanId', 'span_id'), 8, `${where}.spanId`),
    timeUnixNano:
      time === 0n ? nanos(field(record, 'observedTimeUnixNano', 'observed_time_unix_nano'), `${where}.observedTimeUnixNano`) : time,
    eventName: storableString(optionalString(field(record, 'eventName', 'event_name'), `${where}.eventName`)),
    severityText: storableString(optionalString(field(record, 'severityText', 'severity_text'), `${where}.severityText`)),
    severityNumber: enumValue(field(record, 'severityNumber', 'severity_number'), SEVERITY_NUMBERS, `${where}.severityNumber`),
    body: anyValue(field(record, 'body', 'body'), `${where}.body`, 0),
    attributes: attributesOf(field(record, 'attributes', 'attributes'), `${where}.attributes`),
  };
}

/** Decodes an OTLP/JSON `ExportTraceServiceRequest`; throws OtlpDecodeError on malformed input. */
export function decodeJsonExport(text: string): DecodedResourceSpans[] {
  const request = parseBody(text);
  return array(field(request, 'resourceSpans', 'resource_spans'), 'resourceSpans').map((item, r) => {
    const where = `resourceSpans[${r}]`;
    const resourceSpans = object(item, where);
    const resource = optionalObject(field(resourceSpans, 'resource', 'resource'), `${where}.resource`);
    const spans: DecodedSpan[] = [];
    const scopes = array(field(resourceSpans, 'scopeSpans', 'scope_spans'), `${where}.scopeSpans`);
    for (const [s, scopeItem] of scopes.entries()) {
      const scopeWhere = `${where}.scopeSpans[${s}]`;
      const scopeSpans = object(scopeItem, scopeWhere);
      for (const [i, spanItem] of array(field(scopeSpans, 'spans', 'spans'), `${scopeWhere}.spans`).entries()) {
        spans.push(decodeSpan(object(spanItem, `${scopeWhere}.spans[${i}]`), `${scopeWhere}.spans[${i}]`));
      }
    }
    const resourceAttributes = resource ? attributesOf(field(resource, 'attributes', 'attributes'), `${where}.resource.attributes`) : {};
    return { resourceAttributes, spans };
  });
}

function decodeSpan(span: JsonObject, where: string): DecodedSpan {
  const parent = field(span, 'parentSpanId', 'parent_span_id');
  const status = optionalObject(field(span, 'status', 'status'), `${where}.status`);
  // Like every proto3 field, an empty name may be omitted from the JSON.
  const name = optionalString(field(span, 'name', 'name'), `${where}.name`);
  return {
    traceId: id(field(span, 'traceId', 'trace_id'), 16, `${where}.traceId`),
    spanId: id(field(span, 'spanId', 'span_id'), 8, `${where}.spanId`),
    parentSpanId: parent === undefined || parent === null || parent === '' ? null : id(parent, 8, `${where}.parentSpanId`),
    name: storableString(name),
    kind: enumValue(field(span, 'kind', 'kind'), SPAN_KINDS, `${where}.kind`),
    startTimeUnixNano: nanos(field(span, 'startTimeUnixNano', 'start_time_unix_nano'), `${where}.startTimeUnixNano`),
    endTimeUnixNano: nanos(field(span, 'endTimeUnixNano', 'end_time_unix_nano'), `${where}.endTimeUnixNano`),
    attributes: attributesOf(field(span, 'attributes', 'attributes'), `${where}.attributes`),
    events: array(field(span, 'events', 'events'), `${where}.events`).map((item, e) => decodeEvent(item, `${where}.events[${e}]`)),
    statusCode: status ? enumValue(field(status, 'code', 'code'), STATUS_CODES, `${where}.status.code`) : 0,
    statusMessage: status ? storableString(optionalString(field(status, 'message', 'message'), `${where}.status.message`)) : '',
  };
}

function decodeEvent(item: Json, where: string): DecodedEvent {
  const event = object(item, where);
  return {
    name: storableString(optionalString(field(event, 'name', 'name'), `${where}.name`)),
    timeUnixNano: nanos(field(event, 'timeUnixNano', 'time_unix_nano'), `${where}.timeUnixNano`),
    attributes: attributesOf(field(event, 'attributes', 'attributes'), `${where}.attributes`),
  };
}

function attributesOf(value: Json, where: string, depth = 0): Attributes {
  const attributes: Attributes = {};
  for (const [i, item] of array(value, where).entries()) {
    const keyValue = object(item, `${where}[${i}]`);
    const key = keyValue.key;
    if (typeof key !== 'string') throw new OtlpDecodeError(`${where}[${i}].key must be a string`);
    setAttribute(attributes, storableString(key), anyValue(keyValue.value, `${where}[${i}].value`, depth));
  }
  return attributes;
}

function anyValue(value: Json, where: string, depth: number): AttributeValue {
  if (value === undefined || value === null) return null;
  if (depth >= MAX_VALUE_DEPTH) {
    throw new OtlpDecodeError(`${where.slice(0, 200)}…: attribute values are nested more than ${MAX_VALUE_DEPTH} levels deep`);
  }
  const any = object(value, where);
  const has = (camel: string, snake: string) => any[camel] !== undefined || any[snake] !== undefined;
  if (has('stringValue', 'string_value')) {
    const text = field(any, 'stringValue', 'string_value');
    if (typeof text !== 'string') throw new OtlpDecodeError(`${where}.stringValue must be a string`);
    return storableString(text);
  }
  if (has('boolValue', 'bool_value')) {
    const flag = field(any, 'boolValue', 'bool_value');
    if (typeof flag !== 'boolean') throw new OtlpDecodeError(`${where}.boolValue must be true or false`);
    return flag;
  }
  if (has('intValue', 'int_value')) return int64Value(integer(field(any, 'intValue', 'int_value'), `${where}.intValue`, true));
  if (has('doubleValue', 'double_value')) {
    const raw = field(any, 'doubleValue', 'double_value');
    // A number, or a string holding one ("NaN", "Infinity" and "-Infinity" included); nothing else.
    const number = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
    if (Number.isNaN(number) && raw !== 'NaN') {
      throw new OtlpDecodeError(`${where}.doubleValue must be a number`);
    }
    return Number.isFinite(number) ? number : String(number);
  }
  if (has('arrayValue', 'array_value')) {
    const list = object(field(any, 'arrayValue', 'array_value'), `${where}.arrayValue`);
    return array(list.values, `${where}.arrayValue.values`).map((item, i) => anyValue(item, `${where}.arrayValue.values[${i}]`, depth + 1));
  }
  if (has('kvlistValue', 'kvlist_value')) {
    const list = object(field(any, 'kvlistValue', 'kvlist_value'), `${where}.kvlistValue`);
    return attributesOf(list.values, `${where}.kvlistValue.values`, depth + 1);
  }
  if (has('bytesValue', 'bytes_value')) {
    const bytes = field(any, 'bytesValue', 'bytes_value');
    if (typeof bytes !== 'string') throw new OtlpDecodeError(`${where}.bytesValue must be a base64 string`);
    return bytes;
  }
  return null;
}

function field(obj: JsonObject, camel: string, snake: string): Json {
  return obj[camel] !== undefined ? obj[camel] : obj[snake];
}

function object(value: Json, where: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new OtlpDecodeError(`${where} must be a JSON object`);
  }
  return value as JsonObject;
}

function optionalObject(value: Json, where: string): JsonObject | null {
  return value === undefined || value === null ? null : object(value, where);
}

function array(value: Json, where: string): Json[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new OtlpDecodeError(`${where} must be an array`);
  return value;
}

function optionalString(value: Json, where: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new OtlpDecodeError(`${where} must be a string`);
  return value;
}

const HEX = /^[0-9a-fA-F]+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

function id(value: Json, bytes: number, where: string): string {
  if (typeof value !== 'string') throw new OtlpDecodeError(`${where} must be a hex string of ${bytes * 2} characters`);
  if (value.length === bytes * 2 && HEX.test(value)) return value.toLowerCase();
  if (BASE64.test(value)) {
    const decoded = Buffer.from(value, 'base64');
    if (decoded.length === bytes) return decoded.toString('hex');
  }
  throw new OtlpDecodeError(`${where} must be ${bytes * 2} hex characters (or base64 of ${bytes} bytes), got "${value.slice(0, 40)}"`);
}

const DECIMAL = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function integer(value: Json, where: string, signed: boolean): bigint {
  let result: bigint | undefined;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) {
    result = BigInt(value);
  } else if (typeof value === 'number' || (typeof value === 'string' && DECIMAL.test(value))) {
    // Exponent or fraction forms ("1e3", "5.0"); not "", " ", "0x10" or "Infinity", which Number() also takes.
    const number = Number(value);
    if (Number.isInteger(number)) result = BigInt(number);
  }
  if (result !== undefined && (signed ? BigInt.asIntN(64, result) : BigInt.asUintN(64, result)) === result) return result;
  throw new OtlpDecodeError(`${where} must be a ${signed ? '' : 'non-negative '}64-bit integer`);
}

function nanos(value: Json, where: string): bigint {
  return value === undefined || value === null ? 0n : integer(value, where, false);
}

function enumValue(value: Json, names: Record<string, number>, where: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && names[value] !== undefined) return names[value];
  throw new OtlpDecodeError(`${where} must be one of ${Object.keys(names).join(', ')} or its number`);
}
