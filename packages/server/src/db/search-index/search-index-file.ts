/**
 * SQLite's full-text index lives in a file of its own beside the database (docs/search.md,
 * "SQLite"), `sightline-search.db` beside `sightline.db`, written by a thread of its own
 * (search-indexer-thread.ts): SQLite lets one connection write a file at a time, and the index's
 * work on the span writer's connection cost ingest a fifth of its rate (docs/performance.md,
 * "Ingest with the text index on and off"). The index is derived data: whatever it lacks (a lost
 * or new file, spans committed just before a crash) is indexed again from the spans.
 */
import path from 'node:path';
import { openSqlite } from '@sightline/common';
import type SQLite from 'better-sqlite3';

/** The name under which the database's connections attach the index (`search.span_search`). */
export const SEARCH_SCHEMA = 'search';

/** The index file of a SQLite database file: `x-search.db` beside `x.db`. */
export function searchIndexFile(databaseFile: string): string {
  const parsed = path.parse(databaseFile);
  const stem = parsed.ext === '.db' ? parsed.name : parsed.base;
  return path.join(parsed.dir, `${stem}-search.db`);
}

/**
 * The index's tables, created when missing:
 * - `span_search`: an FTS5 table without content of its own, keyed by the span's row id, with the
 *   `ascii` tokenizer, which only splits at the spaces the server put between the words
 *   (span-model/search-text.ts); `contentless_delete` lets a deleted span's row go.
 * - `search_state`: the indexer's marks (search-indexer-thread.ts).
 * - `search_backfill`: row id ranges (low, high] of spans still to index from their stored text.
 */
export function createSearchIndexTables(connection: SQLite.Database): void {
  const exists = connection.prepare("SELECT 1 FROM sqlite_master WHERE name = 'span_search'").get() !== undefined;
  connection.exec(`
    CREATE VIRTUAL TABLE IF NOT EXISTS span_search USING fts5 (words, content = '', contentless_delete = 1, tokenize = 'ascii');
    CREATE TABLE IF NOT EXISTS search_state (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS search_backfill (high INTEGER PRIMARY KEY, low INTEGER NOT NULL);
  `);
  // FTS5 merges a level's segments once it holds this many (4 by default): fewer, larger merges
  // cost the indexer about a third less per span, for a few more segments to read per query.
  if (!exists) connection.exec(`INSERT INTO span_search (span_search, rank) VALUES ('automerge', ${SEARCH_AUTOMERGE})`);
}

/** Writes a span's words (its search text) under its row id: the indexer's and the bulk loaders' one statement. */
export const INSERT_WORDS_SQL = 'INSERT INTO span_search (rowid, words) VALUES (?, ?)';

/** FTS5's `automerge` of the index (docs/performance.md, "Ingest with the text index on and off"). */
export const SEARCH_AUTOMERGE = 16;

/** Creates the index file and its tables if missing (before any connection attaches it). */
export function prepareSearchIndexFile(databaseFile: string): string {
  const file = searchIndexFile(databaseFile);
  const connection = openSqlite(file);
  try {
    createSearchIndexTables(connection);
  } finally {
    connection.close();
  }
  return file;
}

/**
 * Attaches the index file (created when missing) to a connection of the database as `search`.
 * The connection's transactions (BEGIN IMMEDIATE) lock the index file too, so they and the
 * indexer's wait for each other; the indexer keeps its transactions short for that
 * (search-indexer-thread.ts). Taking the main file's lock alone, a deferred transaction whose
 * first statement writes, failed at once with SQLITE_BUSY while another connection committed:
 * its snapshot was older than the commit it had waited for.
 */
export function attachSearchIndex(connection: SQLite.Database, databaseFile: string): void {
  connection.prepare(`ATTACH DATABASE ? AS ${SEARCH_SCHEMA}`).run(prepareSearchIndexFile(databaseFile));
}
