/**
 * Days of the partitioned PostgreSQL layout (docs/partitioning.md). A trace's row id is
 * `day × 2^32 + sequence`: `traces` is partitioned by range of `id` and `spans` by range of
 * `trace_rowid`, one partition per day, so the day of a row id names its partition. A new
 * trace takes the day of its start time, kept within a day of today: partitions then exist only
 * for days that ingest reaches, whatever times a client sends.
 */

/** Row ids per day: a day's partition holds the row ids [day × 2^32, (day + 1) × 2^32). */
export const ROWIDS_PER_DAY = 2 ** 32;

/** The end of the legacy partitions (row ids of traces stored before partitioning), as SQL: day 1's first row id. */
export const LEGACY_PARTITION_END = String(ROWIDS_PER_DAY);

const NANOS_PER_DAY = 86_400_000_000_000n;
const MS_PER_DAY = 86_400_000;

/** Days since the Unix epoch, UTC, of this moment (ms). */
export function dayOfMillis(ms: number): number {
  return Math.floor(ms / MS_PER_DAY);
}

/** The partition day of a new trace that starts at `startNanos`: its own day, within one day of `today`. */
export function partitionDayOf(startNanos: bigint, today: number): number {
  const day = Number(startNanos / NANOS_PER_DAY) - (startNanos < 0n && startNanos % NANOS_PER_DAY !== 0n ? 1 : 0);
  return Math.min(today + 1, Math.max(today - 1, day));
}

/** The partition day of a trace's row id (0 for the legacy partition). */
export function dayOfRowid(rowid: number): number {
  return Math.floor(rowid / ROWIDS_PER_DAY);
}

/** A day's date, UTC: `2026-11-26`. */
export function dayDate(day: number): string {
  return new Date(day * MS_PER_DAY).toISOString().slice(0, 10);
}

/** The day (since the epoch, UTC) of a calendar date; `month` counts from 1. */
export function dayOfDate(year: number, month: number, date: number): number {
  return Date.UTC(year, month - 1, date) / MS_PER_DAY;
}

/** The tables partitioned by day, each day's partitions created together (`span_search_vectors`: migration 0048). */
export const PARTITIONED_TABLES = ['traces', 'spans', 'span_search_vectors'] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

/** The name of a table's partition for a day: `spans_p20261126`. */
export function partitionName(table: PartitionedTable, day: number): string {
  return `${table}_p${dayDate(day).replace(/-/g, '')}`;
}

/** A day's row-id range as SQL literals: [from, to). */
export function partitionBounds(day: number): { from: string; to: string } {
  const from = BigInt(day) * BigInt(ROWIDS_PER_DAY);
  return { from: from.toString(), to: (from + BigInt(ROWIDS_PER_DAY)).toString() };
}
