/** ISO 8601 times ⇄ whole microseconds since the Unix epoch (exact in a JS number). */

export const MICROS_PER_MS = 1000;
export const MICROS_PER_SECOND = 1_000_000;
export const MICROS_PER_DAY = 86_400 * MICROS_PER_SECOND;
/** A prediction may be backdated by at most 90 days. */
export const MAX_BACKDATE_MICROS = 90 * MICROS_PER_DAY;
/** A prediction may lie at most 60 seconds in the future (clock skew between client and service). */
export const MAX_FUTURE_SKEW_MICROS = 60 * MICROS_PER_SECOND;

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Parses an ISO 8601 date-time with a zone (`Z` or ±hh:mm) into microseconds since the epoch;
 * fractional digits beyond microseconds are truncated. Returns null for anything else. Exact
 * (a safe integer) for years 1970 to 2255.
 */
export function parseIsoMicros(text: string): number | null {
  if (text.length > 40) return null;
  const match = ISO_TIME.exec(text);
  if (match === null) return null;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, offH, offM] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (day > DAYS_IN_MONTH[month - 1]! + (month === 2 && leap ? 1 : 0)) return null;
  let offsetMinutes = 0;
  if (zulu === undefined) {
    const hours = Number(offH);
    const minutes = Number(offM);
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // unlike Date.UTC, keeps years 0-99 as written
  date.setUTCHours(hour, minute, second, 0);
  const ms = date.getTime() - offsetMinutes * 60_000;
  const micros = fraction === undefined ? 0 : Number(`${fraction}00000`.slice(0, 6));
  // Far past or future times are not exact here; the 90-day window rejects them anyway.
  return ms * MICROS_PER_MS + micros;
}

/** ISO 8601 UTC with six fractional digits, e.g. 2024-05-01T12:30:00.123456Z. */
export function formatIsoMicros(micros: number): string {
  const ms = Math.floor(micros / MICROS_PER_MS);
  const rest = micros - ms * MICROS_PER_MS;
  const iso = new Date(ms).toISOString(); // ...:ss.mmmZ
  return `${iso.slice(0, -1)}${String(rest).padStart(3, '0')}Z`;
}

/** The current time in microseconds (millisecond resolution). */
export function nowMicros(): number {
  return Date.now() * MICROS_PER_MS;
}
