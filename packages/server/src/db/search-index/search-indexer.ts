/**
 * Where the span writer sends new spans' words (docs/search.md, "SQLite"): `SearchIndexer` runs
 * the indexer thread (search-indexer-thread.ts) from the span writer thread; `DirectSearchIndex`
 * writes the index file on the caller's thread, for loaders that write spans in bulk (the
 * benchmarks' corpora, tests below the ingest queue).
 */
import type { Worker } from 'node:worker_threads';
import { openSqlite, siblingModuleUrl, startWorker } from '@sightline/common';
import { createSearchIndexTables, searchIndexFile } from './search-index-file.js';
import type { SearchIndexerData, SearchIndexerMessage, SearchIndexerReport } from './search-indexer-thread.js';

/** What SqliteSpanStore hands new spans' words to. */
export interface SearchIndexSink {
  /** The words of spans just committed, by row id, in commit order. */
  index(rowids: number[], texts: string[]): void;
  /** Queued deletions (`span_search_deletions`) up to this sequence number are applied and may go. */
  deletionsApplied(): number;
}

const workerUrl = siblingModuleUrl(import.meta.url, 'search-indexer-thread');

/** How long new spans' words wait for more before the indexer's transaction (ms): searches find a span this much after its ingest. */
export const SEARCH_FLUSH_DELAY_MS = 500;
/** How long after the thread stopped it is started again (ms); the spans it held are indexed again from the database. */
const RESTART_DELAY_MS = 1_000;
/** The thread's young generation: its objects (each batch's words) die at once. */
const INDEXER_THREAD_LIMITS = { maxYoungGenerationSizeMb: 4 };

/** The indexer thread, run from the span writer thread. */
export class SearchIndexer implements SearchIndexSink {
  private worker: Worker | null = null;
  private applied = 0;
  private closed = false;
  private readonly data: SearchIndexerData;

  constructor(databaseFile: string, options: { indexing: boolean; onError?: (message: string) => void }) {
    this.data = {
      databaseFile,
      indexFile: searchIndexFile(databaseFile),
      indexing: options.indexing,
      flushDelayMs: SEARCH_FLUSH_DELAY_MS,
    };
    this.start(options.onError);
  }

  private start(onError?: (message: string) => void): void {
    const worker = startWorker(workerUrl, this.data, INDEXER_THREAD_LIMITS);
    this.worker = worker;
    worker.on('message', (report: SearchIndexerReport) => {
      if (report.type === 'deletions') this.applied = Math.max(this.applied, report.through);
    });
    worker.on('error', (error) => onError?.(`the search indexer thread failed: ${error.message}`));
    // A thread that stopped by itself is started again: what it held is indexed again at its start.
    worker.on('exit', () => {
      this.worker = null;
      if (!this.closed) setTimeout(() => !this.closed && this.start(onError), RESTART_DELAY_MS).unref();
    });
  }

  index(rowids: number[], texts: string[]): void {
    this.worker?.postMessage({ type: 'spans', rowids, texts } satisfies SearchIndexerMessage);
  }

  deletionsApplied(): number {
    return this.applied;
  }

  /** Asks the thread to index what it holds and stop; the calling thread lives on until it has. */
  close(): void {
    this.closed = true;
    this.worker?.postMessage({ type: 'close' } satisfies SearchIndexerMessage);
  }
}

/**
 * Writes new spans' words to the index file at once, on the calling thread, in a transaction per
 * call; for bulk loaders with no server running. Deletions are left to the indexer thread.
 */
export class DirectSearchIndex implements SearchIndexSink {
  private readonly connection;
  private readonly insert;
  private readonly write;

  constructor(databaseFile: string) {
    this.connection = openSqlite(searchIndexFile(databaseFile));
    this.connection.pragma('synchronous = NORMAL');
    createSearchIndexTables(this.connection);
    this.insert = this.connection.prepare('INSERT INTO span_search (rowid, words) VALUES (?, ?)');
    const mark = this.connection.prepare(
      `INSERT INTO search_state (name, value) VALUES ('live_through', ?)
       ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value)`,
    );
    this.write = this.connection.transaction((rowids: number[], texts: string[]) => {
      for (let i = 0; i < rowids.length; i++) this.insert.run(rowids[i], texts[i]);
      if (rowids.length > 0) mark.run(rowids.at(-1));
    });
  }

  index(rowids: number[], texts: string[]): void {
    this.write(rowids, texts);
  }

  deletionsApplied(): number {
    return 0;
  }

  close(): void {
    this.connection.close();
  }
}
