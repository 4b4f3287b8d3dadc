/**
 * IN lists built from data, in chunks: SQLite binds at most 32,766 parameters per statement and
 * PostgreSQL 65,535, so a list as long as the rows of a page (runs × repetitions × experiments
 * of a comparison can pass 200,000) fails the statement whole.
 */

/** Values per IN list: far under both limits, and few enough to plan each statement quickly. */
export const IN_LIST_CHUNK = 1000;

/** Runs `query` over the values a chunk at a time and concatenates what each returns, in order. */
export async function inChunks<V, R>(values: readonly V[], query: (chunk: V[]) => Promise<R[]>): Promise<R[]> {
  if (values.length <= IN_LIST_CHUNK) return values.length === 0 ? [] : query([...values]);
  const results: R[] = [];
  for (let start = 0; start < values.length; start += IN_LIST_CHUNK) {
    results.push(...(await query(values.slice(start, start + IN_LIST_CHUNK))));
  }
  return results;
}
