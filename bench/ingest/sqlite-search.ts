/**
 * SQLite's search index after a load (docs/search.md, "SQLite"): its indexer thread holds its work
 * back while the machine is saturated, so the words of a burst's spans are indexed after it. How
 * many spans had words indexed when the load stopped, how many in the end, and when the index
 * last grew, read from the index file on a connection of the benchmark's own.
 */
import fs from 'node:fs';
import SQLite from 'better-sqlite3';
import { searchIndexFile } from '../../packages/server/src/db/search-index/search-index-file.js';

export interface SqliteSearchLag {
  /** Spans with words in the index when the load stopped. */
  indexedAtEnd: number;
  /** Spans with words in the index once it stopped growing, with no backfill range left. */
  indexed: number;
  /** How long after the load the index last grew (s); null when it still had ranges to backfill after the limit. */
  drainSeconds: number | null;
}

/** Polls until the index has no backfill range left and has not grown for `settleMs`; null without an index file. */
export async function measureSqliteSearchLag(
  databaseFile: string,
  { settleMs = 3_000, limitMs = 300_000 } = {},
): Promise<SqliteSearchLag | null> {
  const file = searchIndexFile(databaseFile);
  if (!fs.existsSync(file)) return null;
  const connection = new SQLite(file, { readonly: true });
  try {
    const indexedNow = connection.prepare('SELECT count(*) FROM span_search_docsize').pluck();
    const rangesNow = connection.prepare('SELECT count(*) FROM search_backfill').pluck();
    const started = performance.now();
    const indexedAtEnd = Number(indexedNow.get());
    let indexed = indexedAtEnd;
    let lastGrowth = started;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const now = performance.now();
      const count = Number(indexedNow.get());
      if (count !== indexed) {
        indexed = count;
        lastGrowth = now;
      }
      const ranges = Number(rangesNow.get());
      if (ranges === 0 && now - lastGrowth >= settleMs) break;
      if (now - started > limitMs) return { indexedAtEnd, indexed, drainSeconds: null };
    }
    return { indexedAtEnd, indexed, drainSeconds: Math.round((lastGrowth - started) / 100) / 10 };
  } finally {
    connection.close();
  }
}
