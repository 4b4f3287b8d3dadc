/**
 * A user's spans read a few traces at a time (db/user-trace-pages.ts) give the very page that
 * reading every trace gives: random traces whose spans start anywhere within their bounds, only
 * some of them matching, every order, position, time range and page size.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KeysetPosition, SortOrder } from '../../src/db/keyset.js';
import { pageByTraceTime, type TraceBounds } from '../../src/db/user-trace-pages.js';
import { prng } from '@sightline/common/testing';

interface Span {
  id: number;
  trace: number;
  startTime: string;
  matches: boolean;
}

/** The span query as a database answers it: matching spans of the traces, from the position on, in order, `limit` of them. */
function spanQuery(
  spans: Span[],
  traces: Set<number>,
  order: SortOrder,
  limit: number,
  from?: KeysetPosition,
  range: { startTime?: bigint; endTime?: bigint } = {},
) {
  const sign = order === 'desc' ? -1 : 1;
  const key = (span: Span) => BigInt(span.startTime);
  return spans
    .filter((span) => traces.has(span.trace) && span.matches)
    .filter((span) => range.startTime === undefined || key(span) >= range.startTime)
    .filter((span) => range.endTime === undefined || key(span) < range.endTime)
    .filter((span) => {
      if (!from) return true;
      const byKey = key(span) === from.key ? span.id - from.id : key(span) < from.key ? -1 : 1;
      return sign * byKey >= 0;
    })
    .sort((a, b) => sign * ((key(a) === key(b) ? 0 : key(a) < key(b) ? -1 : 1) || a.id - b.id))
    .slice(0, limit);
}

describe('a page of a user’s spans read by trace time', () => {
  it('equals the page read from every trace, and reads fewer traces when the page fills early', async () => {
    const { next: random, int } = prng(20261129);
    let partialReads = 0;
    for (let round = 0; round < 300; round++) {
      const traces: TraceBounds[] = [];
      const spans: Span[] = [];
      const traceCount = 1 + int(600);
      for (let t = 0; t < traceCount; t++) {
        const start = BigInt(int(1_000_000));
        // Mostly short traces; some that last a long time, so that their order by start and by end differ.
        const length = BigInt(random() < 0.3 ? int(500_000) : int(2_000));
        const times = Array.from({ length: 1 + int(6) }, () => start + BigInt(int(Number(length) + 1)));
        times.push(start, start + length);
        for (const time of times) spans.push({ id: spans.length + 1, trace: t, startTime: String(time), matches: random() < 0.2 });
        traces.push({ id: t, start, end: start + length });
      }
      const order: SortOrder = random() < 0.5 ? 'desc' : 'asc';
      const limit = 1 + int(40);
      const pivot = spans[int(spans.length)]!;
      const from = random() < 0.5 ? { key: BigInt(pivot.startTime), id: pivot.id } : undefined;
      const range =
        random() < 0.3
          ? { startTime: BigInt(int(500_000)), endTime: BigInt(500_000 + int(600_000)) }
          : { startTime: undefined, endTime: undefined };
      let read = 0;
      const page = await pageByTraceTime(traces, { order, limit, from, ...range }, async (ids) => {
        read += ids.length;
        return spanQuery(spans, new Set(ids), order, limit, from, range);
      });
      const everyTrace = spanQuery(spans, new Set(traces.map((trace) => trace.id)), order, limit, from, range);
      assert.deepEqual(
        page.map((span) => span.id),
        everyTrace.map((span) => span.id),
        `round ${round}: ${order}, limit ${limit}, from ${from ? `${from.key}/${from.id}` : 'start'}`,
      );
      if (read < traces.length) partialReads++;
    }
    assert.ok(partialReads > 50, `only ${partialReads} of 300 pages stopped before reading every trace`);
  });
});
