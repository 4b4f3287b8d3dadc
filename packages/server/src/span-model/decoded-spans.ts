/**
 * The decoded form of an OTLP trace export, shared by the protobuf and JSON decoders,
 * so that span mapping and storage never see wire formats.
 */

/** An attribute value as stored: JSON-compatible; 64-bit integers beyond 2^53 become decimal strings. */
export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };
export type Attributes = Record<string, AttributeValue>;

export interface DecodedEvent {
  name: string;
  timeUnixNano: bigint;
  attributes: Attributes;
}

export interface DecodedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTel SpanKind number (0..5); kept for completeness, the OpenInference kind is an attribute. */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Attributes;
  events: DecodedEvent[];
  statusCode: number;
  statusMessage: string;
}

export interface DecodedResourceSpans {
  resourceAttributes: Attributes;
  spans: DecodedSpan[];
}

/** Thrown for any malformed export; its message is shown to the client as is. */
export class OtlpDecodeError extends Error {
  override readonly name = 'OtlpDecodeError';
}

/**
 * Sets an attribute as an own property, so that a key such as `__proto__` is kept like any
 * other instead of replacing the object's prototype (plain assignment would drop the value
 * and let its entries leak into lookups of other keys).
 */
export function setAttribute(attributes: Attributes, key: string, value: AttributeValue): void {
  if (key === '__proto__') {
    Object.defineProperty(attributes, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    attributes[key] = value;
  }
}

/**
 * Makes a string storable in every dialect: PostgreSQL text and jsonb reject NUL and lone
 * surrogates, so both become U+FFFD (the same replacement UTF-8 decoding applies).
 */
export function storableString(value: string): string {
  // Two native scans, twenty times faster than one regular expression over the text (docs/performance.md).
  if (value.isWellFormed() && !value.includes('\u0000')) return value;
  return value.toWellFormed().replaceAll('\u0000', '\uFFFD');
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);

/** A 64-bit integer attribute as JSON: a number when exact, else its decimal string. */
export function int64Value(value: bigint): number | string {
  return value <= MAX_SAFE && value >= MIN_SAFE ? Number(value) : value.toString();
}
