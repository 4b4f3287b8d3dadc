/** ISO 8601 times ⇄ whole microseconds since the Unix epoch (exact in a JS number). */

export const MICROS_PER_MS = 1000;
export const MICROS_PER_SECOND = 1_000_000;
export const MICROS_PER_DAY = 86_400 * MICROS_PER_SECOND;
/** A prediction may be backdated by at most 90 days. */
export const MAX_BACKDATE_MICROS = 90 * MICROS_PER_DAY;
/** A prediction may lie at most 60 seconds in the future (clock skew between client and service). */
export const MAX_FUTURE_SKEW_MICROS = 60 * MICROS_PER_SECOND;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MS_PER_DAY = 86_400_000;

/** The number `count` ASCII digits at `start` spell, or -1 when one of them is not a digit (or missing). */
function digitsAt(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (!(digit >= 0 && digit <= 9)) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil), exact for every year. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * Parses an ISO 8601 date-time with a zone (`Z` or ±hh:mm) into microseconds since the epoch;
 * fractional digits beyond microseconds are truncated. Returns null for anything else. Exact
 * (a safe integer) for years 1970 to 2255. The grammar is
 * `YYYY-MM-DD[Tt ]hh:mm:ss[[.,]f{1,9}](Z|z|±hh[:]mm)`, read character by character (every log
 * record carries one; a regular expression and a Date cost several times more).
 */
export function parseIsoMicros(text: string): number | null {
  const length = text.length;
  if (length < 20 || length > 40) return null;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  const second = digitsAt(text, 17, 2);
  const separator = text.charCodeAt(10);
  if (
    year < 0 ||
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    (separator !== 84 && separator !== 116 && separator !== 32) || // T t space
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58
  ) {
    return null;
  }
  if (month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return null;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (day > DAYS_IN_MONTH[month - 1]! + (month === 2 && leap ? 1 : 0)) return null;
  let at = 19;
  let micros = 0;
  const dot = text.charCodeAt(at);
  if (dot === 46 || dot === 44) {
    // . or ,
    const first = ++at;
    while (at < length && text.charCodeAt(at) >= 48 && text.charCodeAt(at) <= 57) at++;
    const digits = at - first;
    if (digits < 1 || digits > 9) return null;
    const kept = Math.min(digits, 6);
    micros = digitsAt(text, first, kept) * 10 ** (6 - kept);
  }
  let offsetMinutes = 0;
  const zone = text.charCodeAt(at);
  if (zone === 90 || zone === 122) {
    // Z z
    if (at + 1 !== length) return null;
  } else if (zone === 43 || zone === 45) {
    // + -
    const hours = digitsAt(text, at + 1, 2);
    const colon = text.charCodeAt(at + 3) === 58;
    const minutes = digitsAt(text, colon ? at + 4 : at + 3, 2);
    if (at + (colon ? 6 : 5) !== length || hours < 0 || hours > 23 || minutes < 0 || minutes > 59) return null;
    offsetMinutes = (zone === 45 ? -1 : 1) * (hours * 60 + minutes);
  } else {
    return null;
  }
  const ms = daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 - offsetMinutes * 60_000;
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
