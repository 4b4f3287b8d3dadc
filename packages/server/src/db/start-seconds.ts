/**
 * The second a span started in, as the SQLite kind and name indexes key it (migration 0023,
 * docs/performance.md, "Indexes keyed by the second"). Spans arrive up to a minute out of start
 * order, so an index keyed by start time takes each new span on a different leaf page: every
 * commit rewrote about one page per span per index. Keyed by (second, row id) instead, the spans
 * of a second append at the end of its range, and a commit touches one page per second in flight.
 * A list in start order reads a second's rows and sorts them (SQLite's sort of the right part of
 * an ORDER BY), so a query costs at most one second of a project's spans more.
 */
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { nanosLiteral } from './sql-dialect.js';

const NANOS_PER_SECOND = 1_000_000_000n;

/**
 * The indexed expression over a start-time column. Written out as the index has it, literal
 * included: SQLite matches an expression index only to the same expression, never to a parameter.
 */
export function startSecond(column: string): RawBuilder<number> {
  return sql<number>`(${sql.ref(column)} / ${sql.lit(Number(NANOS_PER_SECOND))})`;
}

/** The second of a time in nanoseconds, as `startSecond` computes it (both truncate toward zero). */
export function secondOf(nanos: bigint): number {
  return Number(nanos / NANOS_PER_SECOND);
}

/**
 * A start time that rows are tested on but no index ranges over (a unary +). Beside a kind or name
 * filter, SQLite would otherwise range over the project's time index and test each row's kind or
 * name, instead of ranging over the seconds of the second-keyed index.
 */
export function startTimeTestedOnly(column: string): RawBuilder<bigint> {
  return sql<bigint>`+${sql.ref(column)}`;
}

/** The conditions of a start-time range [startTime, endTime) read through a second-keyed index. */
export function startRangeBySecond(
  column: string,
  range: { startTime?: bigint | undefined; endTime?: bigint | undefined },
): RawBuilder<SqlBool>[] {
  const time = startTimeTestedOnly(column);
  const second = startSecond(column);
  const conditions: RawBuilder<SqlBool>[] = [];
  if (range.startTime !== undefined) {
    conditions.push(sql<SqlBool>`${time} >= ${nanosLiteral(range.startTime)}`, sql<SqlBool>`${second} >= ${secondOf(range.startTime)}`);
  }
  if (range.endTime !== undefined) {
    conditions.push(sql<SqlBool>`${time} < ${nanosLiteral(range.endTime)}`, sql<SqlBool>`${second} <= ${secondOf(range.endTime)}`);
  }
  return conditions;
}
