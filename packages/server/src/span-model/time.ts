/** Span times: ISO 8601 text at the edges, exact nanoseconds since the epoch (bigint) inside. */
import { InvalidInputError } from '@sightline/common';

/** Nanoseconds since the epoch as an ISO 8601 UTC string with exactly nine fractional digits. */
export function nanosToIso(nanos: bigint): string {
  const millis = nanos / 1_000_000n;
  const fraction = (nanos % 1_000_000_000n).toString().padStart(9, '0');
  const iso = new Date(Number(millis)).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  return `${iso.slice(0, 19)}.${fraction}Z`;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(?:([Zz])|([+\- ])(\d{2}):?(\d{2}))?$/;

/**
 * Nanoseconds since the epoch of an ISO 8601 date or date-time, or null when the text is not one.
 * Up to nine fractional digits are kept exactly. A time without an offset is UTC. A space before
 * the offset is read as `+`, because an unencoded `+` in a query string arrives as a space.
 */
export function isoToNanos(text: string): bigint | null {
  const match = ISO.exec(text.trim());
  if (!match) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', , sign, offH, offM] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  date.setUTCFullYear(year); // Date.UTC maps years 0..99 to 1900..1999
  if (date.getUTCDate() !== day) return null; // e.g. February 30
  let nanos = BigInt(date.getTime()) * 1_000_000n + BigInt(fraction.padEnd(9, '0') || '0');
  if (sign !== undefined) {
    const offsetMinutes = Number(offH) * 60 + Number(offM);
    if (Number(offH) > 23 || Number(offM) > 59) return null;
    const offsetNanos = BigInt(offsetMinutes) * 60_000_000_000n;
    nanos = sign === '-' ? nanos + offsetNanos : nanos - offsetNanos;
  }
  return nanos;
}

/** The largest time a BIGINT of nanoseconds holds (2262-04-11T23:47:16.854775807Z). */
export const MAX_NANOS = 9_223_372_036_854_775_807n;

/** Parses an optional query-string time; 422 naming the parameter when it is not ISO 8601. */
export function parseTimeParam(name: string, value: string | undefined): bigint | undefined {
  if (value === undefined || value === '') return undefined;
  const nanos = isoToNanos(value);
  if (nanos === null) {
    throw new InvalidInputError(`${name} must be an ISO 8601 date or date-time, e.g. 2026-01-31T12:00:00Z (got "${value.slice(0, 60)}")`);
  }
  if (nanos < 0n || nanos > MAX_NANOS) {
    throw new InvalidInputError(`${name} must lie between 1970-01-01T00:00:00Z and 2262-04-11T23:47:16Z (64-bit nanoseconds)`);
  }
  return nanos;
}

/** An optional [start, end) range from the start_time and end_time parameters; 422 when end is not after start. */
export function parseTimeRange(range: { startTime?: string | undefined; endTime?: string | undefined }): TimeRange {
  const start = parseTimeParam('start_time', range.startTime);
  const end = parseTimeParam('end_time', range.endTime);
  if (start !== undefined && end !== undefined && end <= start) throw new InvalidInputError('end_time must be after start_time');
  return { start, end };
}

/** A half-open time range [start, end) in nanoseconds; either bound may be absent. */
export interface TimeRange {
  start?: bigint | undefined;
  end?: bigint | undefined;
}

/** Milliseconds between two nanosecond times given as exact decimal text. */
export function latencyMs(startNanos: string, endNanos: string): number {
  return Number(BigInt(endNanos) - BigInt(startNanos)) / 1e6;
}

export const NANOS_PER_MINUTE = 60_000_000_000n;

/** The minute since 1970 a time in nanoseconds falls in, as the dashboards' rollups key it: times before 1970 belong to the minute below. */
export function minuteOf(nanos: bigint): number {
  const minute = nanos / NANOS_PER_MINUTE;
  // Integer division truncates toward zero.
  return Number(nanos < 0n && minute * NANOS_PER_MINUTE !== nanos ? minute - 1n : minute);
}
