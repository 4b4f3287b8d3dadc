/** Display helpers: numbers, durations, times and ids. */

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

export function formatInt(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : integer.format(value);
}

/** A count with its noun, singular for one: `1 span`, `3 spans`, `12,400 sessions` (`plural` for nouns not made with an s). */
export function formatCount(count: number, noun: string, plural = `${noun}s`): string {
  return `${integer.format(count)} ${count === 1 ? noun : plural}`;
}

export function formatCompact(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return Math.abs(value) < 10_000 ? integer.format(value) : compact.format(value);
}

/** US dollars: cents for large amounts, four significant digits for the fractions of a cent LLM calls cost. */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return '—';
  if (usd === 0) return '$0';
  if (usd >= 100) return `$${usd.toFixed(2)}`;
  return `$${Number(usd.toPrecision(4)).toString()}`;
}

export function formatPercent(ratio: number | null | undefined, digits = 1): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return '—';
  return `${(ratio * 100).toFixed(digits)}%`;
}

/** 0.42 ms, 12 ms, 1.25 s, 2m 05s, 1h 02m */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms === 0) return '0 ms';
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const totalSeconds = Math.round(ms / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h ${String(minutes).padStart(2, '0')}m`;
  return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
}

/** Milliseconds since the epoch of an ISO time, keeping the sub-millisecond digits as a fraction. */
export function isoToMs(iso: string): number {
  const match = /\.(\d+)/.exec(iso);
  const base = Date.parse(iso);
  if (!match || Number.isNaN(base)) return base;
  const digits = match[1]!;
  const subMs = digits.length > 3 ? Number(`0.${digits.slice(3)}`) : 0;
  return base + subMs;
}

const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
const timeOnly = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** Local date and time; today's times without the date. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const now = new Date();
  const sameDay = date.toDateString() === now.toDateString();
  return sameDay ? timeOnly.format(date) : dateTime.format(date);
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** "3 minutes ago", "in 2 days" */
export function formatRelative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const diff = Date.parse(iso) - now;
  if (Number.isNaN(diff)) return iso;
  const abs = Math.abs(diff);
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['year', 365 * 86_400_000],
    ['month', 30 * 86_400_000],
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ];
  for (const [unit, size] of units) if (abs >= size) return relative.format(Math.round(diff / size), unit);
  return relative.format(Math.round(diff / 1000), 'second');
}

/** A size in bytes as people read it: 812 B, 4.2 KB, 37 MB. */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return '—';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** First and last characters of a long id. */
export function shortId(id: string, keep = 8): string {
  return id.length <= keep * 2 + 1 ? id : `${id.slice(0, keep)}…`;
}

/** A value for display: strings as they are, everything else as JSON. */
export function displayValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value, null, 2);
}
