/**
 * Lists of values bound as parameters of `IN (…)`: SQLite takes at most 32,766 parameters in a
 * statement and PostgreSQL 65,535, so a list that grows with the data goes in chunks.
 */

/** Values per `IN (…)` list: far below both limits, and small enough to keep each statement short. */
export const MAX_IN_LIST = 1000;

/** The values in consecutive chunks of at most `size` (none for an empty list). */
export function* chunks<T>(values: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < values.length; start += size) yield values.slice(start, start + size);
}
