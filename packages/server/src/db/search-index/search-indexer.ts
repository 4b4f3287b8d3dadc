/**
 * Where the span writer sends new spans' words (docs/search.md, "SQLite"): `SearchIndexer` runs
 * the indexer thread (search-indexer-thread.ts) from the span writer thread; `DirectSearchIndex`
 * writes the index file on the caller's thread, for loaders that write spans in bulk (the
 * benchmarks' corpora, tests below the ingest queue).
 */
import type { Worker } from 'node:worker_threads';
import { openSqlite, siblingModuleUrl, startWorker } from '@sightline/common';
import { DEFERRED_SEARCH_TEXT } from '../../span-model/search-text.js';
import { createSearchIndexTables, INSERT_WORDS_SQL, searchIndexFile } from './search-index-file.js';
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
/**
 * Most spans whose words may wait for the thread: about 25 MB of text with the ingest
 * benchmark's spans. Beyond it (the thread, at the lowest priority, may get little CPU while
 * ingest fills the cores) new spans' words are not sent; the thread indexes those spans later
 * from the database, as a backfill, so memory stays bounded whatever the rate.
 */
export const MAX_WAITING_SPANS = 40_000;
/** How long after the thread stopped it is started again (ms); the spans it held are indexed again from the database. */
const RESTART_DELAY_MS = 1_000;
/** The thread's young generation: its objects (each batch's words) die at once. */
const INDEXER_THREAD_LIMITS = { maxYoungGenerationSizeMb: 4 };

/** The indexer thread, run from the span writer thread. */
export class SearchIndexer implements SearchIndexSink {
  private worker: Worker | null = null;
  private applied = 0;
  private closed = false;
  /** Spans sent to the thread whose words it has not written yet. */
  private waiting = 0;
  /**
   * One Int32, 1 while the thread holds its work back, the machine being saturated: new spans'
   * words are then neither cut at ingest nor sent, but indexed later from the database, so they
   * neither wait in memory nor cost ingest now. Shared with the threads that ingest spans.
   */
  readonly heldBack: SharedArrayBuffer;
  private readonly heldBackFlag: Int32Array;
  /** Spans whose words were not sent, the thread being behind (indexed later from the database). */
  skippedSpans = 0;
  private readonly maxWaiting: number;
  private readonly data: SearchIndexerData;

  constructor(
    databaseFile: string,
    options: {
      indexing: boolean;
      onError?: (message: string) => void;
      maxWaitingSpans?: number;
      saturatedShare?: number;
      heldBack?: SharedArrayBuffer;
    },
  ) {
    this.heldBack = options.heldBack ?? new SharedArrayBuffer(4);
    this.heldBackFlag = new Int32Array(this.heldBack);
    this.maxWaiting = options.maxWaitingSpans ?? MAX_WAITING_SPANS;
    this.data = {
      databaseFile,
      indexFile: searchIndexFile(databaseFile),
      indexing: options.indexing,
      flushDelayMs: SEARCH_FLUSH_DELAY_MS,
      saturatedShare: options.saturatedShare,
      heldBack: this.heldBack,
    };
    this.start(options.onError);
  }

  private start(onError?: (message: string) => void): void {
    const worker = startWorker(workerUrl, this.data, INDEXER_THREAD_LIMITS);
    this.worker = worker;
    // What an earlier thread held is indexed again by this one, from the database, at its start.
    this.waiting = 0;
    Atomics.store(this.heldBackFlag, 0, 0);
    worker.on('message', (report: SearchIndexerReport) => {
      if (report.type === 'deletions') this.applied = Math.max(this.applied, report.through);
      else this.waiting = Math.max(0, this.waiting - report.spans);
    });
    worker.on('error', (error) => onError?.(`the search indexer thread failed: ${error.message}`));
    // A thread that stopped by itself is started again: what it held is indexed again at its start.
    worker.on('exit', () => {
      this.worker = null;
      if (!this.closed) setTimeout(() => !this.closed && this.start(onError), RESTART_DELAY_MS).unref();
    });
  }

  index(rowids: number[], texts: string[]): void {
    if (this.worker === null) return;
    const deferred = Atomics.load(this.heldBackFlag, 0) === 1 || texts.includes(DEFERRED_SEARCH_TEXT);
    if (deferred || this.waiting + rowids.length > this.maxWaiting) {
      // Row ids grow with each commit: the range holds these spans (and no span of another batch still waiting).
      this.worker.postMessage({ type: 'skipped', low: rowids[0]! - 1, high: rowids.at(-1)! } satisfies SearchIndexerMessage);
      this.skippedSpans += rowids.length;
      return;
    }
    this.waiting += rowids.length;
    this.worker.postMessage({ type: 'spans', rowids, texts } satisfies SearchIndexerMessage);
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
    this.insert = this.connection.prepare(INSERT_WORDS_SQL);
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
