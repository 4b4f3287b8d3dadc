/**
 * A page of one user's spans read a few of the user's traces at a time (span-model/trace-users.ts,
 * docs/performance.md, "Search and filters"). A user with thousands of traces has too many spans to
 * read them all for one page (15,000 at 3,000 traces: 240 ms on SQLite at 10M spans), and too few
 * among the project's for a walk in time order to find a page soon. But a trace's spans start
 * within the trace's own bounds (traces.start_time to traces.end_time), so, newest first, the
 * traces in order of their end hold every span that can come before the page's last one: once a
 * page is full and its last span starts after the end of the next unread trace, no unread trace can
 * change it. Oldest first, the same with the traces' starts.
 */
import type { KeysetPosition, SortOrder } from './keyset.js';

/** A trace's row id and the bounds of its spans' start times (nanoseconds). */
export interface TraceBounds {
  id: number;
  start: bigint;
  end: bigint;
}

export interface TracePageQuery {
  order: SortOrder;
  limit: number;
  /** The page's start (inclusive, as the span query applies it). */
  from?: KeysetPosition | undefined;
  /** The span list's time range: spans starting at or after `startTime` and before `endTime`. */
  startTime?: bigint | undefined;
  endTime?: bigint | undefined;
}

/** Traces read by the first query; each further query reads twice as many as the one before, up to this. */
const FIRST_CHUNK = 32;
const MAX_CHUNK = 4096;

/**
 * The page: `read` answers the span query (with its order, position and limit) restricted to some
 * traces' row ids; the answers are merged in the page's order.
 */
export async function pageByTraceTime<Row extends { id: number; startTime: string }>(
  traces: readonly TraceBounds[],
  query: TracePageQuery,
  read: (traceRowids: number[]) => Promise<Row[]>,
): Promise<Row[]> {
  const newestFirst = query.order === 'desc';
  const { from, startTime, endTime } = query;
  const candidates = traces.filter(
    (trace) =>
      (from === undefined || (newestFirst ? trace.start <= from.key : trace.end >= from.key)) &&
      (startTime === undefined || trace.end >= startTime) &&
      (endTime === undefined || trace.start < endTime),
  );
  candidates.sort(newestFirst ? (a, b) => compare(b.end, a.end) : (a, b) => compare(a.start, b.start));
  const before = (a: Row, b: Row) => {
    const byStart = compare(BigInt(a.startTime), BigInt(b.startTime)) || a.id - b.id;
    return newestFirst ? -byStart : byStart;
  };
  let page: Row[] = [];
  let next = 0;
  let size = Math.max(FIRST_CHUNK, query.limit);
  while (next < candidates.length) {
    const chunk = candidates.slice(next, next + size);
    next += chunk.length;
    size = Math.min(size * 2, MAX_CHUNK);
    const rows = await read(chunk.map((trace) => trace.id));
    page = [...page, ...rows].sort(before).slice(0, query.limit);
    if (page.length < query.limit || next >= candidates.length) continue;
    const last = BigInt(page[page.length - 1]!.startTime);
    const unread = candidates[next]!;
    if (newestFirst ? last > unread.end : last < unread.start) break;
  }
  return page;
}

const compare = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);
