/** The span writer behind the ingest queue: the SQLite writer thread, or PostgreSQL on one connection. */
import { siblingModuleUrl, ThreadBatchWriter, type BatchWriter, type DatabaseConfig } from '@sightline/common';
import type { CostTask } from './cost-writes-sqlite.js';
import type { NewSpanCost } from '../repositories/costs-repository.js';
import type { ConvertedSpan } from '../repositories/long-attributes-repository.js';
import type { LongAttributesTask } from './long-attributes-writes-sqlite.js';
import type { RetentionTask, SqliteDeletedTraces } from './retention-writes-sqlite.js';
import type { SpanLogEventsTask } from './span-log-events-writes-sqlite.js';
import type { CompiledStatement, StatementsTask } from './statement-writes-sqlite.js';
import type { NewSpanLogEvent, SpanEventsUpdate } from '../repositories/span-log-events-repository.js';
import { PostgresSpanWriter } from './span-writes-postgres.js';
import type { SqliteWriterThreadData } from './sqlite-writer-thread.js';
import { type PackedSpans, packSpanRows } from '../../span-model/span-row-codec.js';
import type { SpanRow } from '../../span-model/span-rows.js';

/**
 * One request's spans as they wait in the span queue: packed into one buffer for the SQLite
 * writer thread (span-row-codec.ts says why), or the rows themselves for PostgreSQL.
 */
export type QueuedSpans = { count: number; rows: SpanRow[] } | { count: number; packed: PackedSpans };

/** What the ingest queue writes to: each item is one request's spans. */
export interface DatabaseWriter extends BatchWriter<QueuedSpans> {
  /** Turns a request's rows into what waits in the queue (as they are when absent). */
  prepare?(rows: SpanRow[]): QueuedSpans;
  /** Forgets cached project ids (after a project is deleted, or a failed batch). */
  forgetProjects(): void;
  /**
   * SQLite only: the retention job's deletions, run by the writer thread between commits
   * (docs/retention.md); undefined on PostgreSQL, where the job uses its own transactions.
   */
  retention?: SqliteRetentionWriter;
  /** SQLite only: the cost job's writes, on the writer thread too (docs/costs.md); undefined on PostgreSQL. */
  costs?: SqliteCostWriter;
  /** SQLite only: the long-attributes conversion's writes, on the writer thread too (docs/ingest.md); undefined on PostgreSQL. */
  longAttributes?: SqliteLongAttributesWriter;
  /** SQLite only: log records kept for their span, and their move onto it (docs/ingest.md, "Logs"); undefined on PostgreSQL. */
  spanLogEvents?: SqliteSpanLogEventsWriter;
  /** SQLite only: statements a repository compiled, run in one transaction on the writer thread; undefined on PostgreSQL. */
  statements?: SqliteStatementsWriter;
  /**
   * SQLite only: true while the search indexer holds back, the machine being saturated; ingest then
   * leaves the new spans' words to be read from the database later (docs/search.md, "SQLite").
   */
  searchHeldBack?(): boolean;
  close(): Promise<void>;
}

/** The log-record writes on the SQLite writer thread. */
export interface SqliteSpanLogEventsWriter {
  /** Keeps the records, committed when it resolves. */
  store(events: NewSpanLogEvent[], receivedAt: string): Promise<void>;
  /** Writes the spans' new events and attributes, forgets the records they took and expires old ones, in one transaction. */
  attach(updates: SpanEventsUpdate[], attachedIds: number[], expireBefore: string): Promise<void>;
}

/** The cost job's writes on the SQLite writer thread. */
export interface SqliteCostWriter {
  /** Stores the costs and moves the job's watermark in one transaction. */
  store(costs: NewSpanCost[], watermark: { name: string; value: string }): Promise<void>;
}

/** The long-attributes conversion's writes on the SQLite writer thread. */
export interface SqliteLongAttributesWriter {
  /** Stores converted spans and the conversion's progress in one transaction. */
  store(spans: ConvertedSpan[], done: number): Promise<void>;
}

/** Compiled statements run on the SQLite writer thread (statement-writes-sqlite.ts). */
export interface SqliteStatementsWriter {
  /** Runs them in order in one transaction, committed when it resolves; answers the rows changed. */
  run(statements: CompiledStatement[]): Promise<number>;
}

/** The retention job's writes on the SQLite writer thread. */
export interface SqliteRetentionWriter {
  deleteTraces(traceRowids: number[]): Promise<SqliteDeletedTraces>;
  /** Resolves to how long the vacuum step took on the thread (ms). */
  incrementalVacuum(pages: number): Promise<number>;
}

const workerUrl = siblingModuleUrl(import.meta.url, 'sqlite-writer-thread');

/**
 * The writer thread's young generation (V8's default grows it to 32 MB). The thread unpacks one
 * request at a time, so little survives a collection and a small one costs no throughput: peak
 * RSS 20-25 MB lower under bench:ingest (docs/performance.md, "Memory").
 */
const WRITER_THREAD_LIMITS = { maxYoungGenerationSizeMb: 8 };

/** The rows of a queued request that was not packed. */
function rowsOf(item: QueuedSpans): SpanRow[] {
  if ('rows' in item) return item.rows;
  throw new Error('packed spans reached a writer that takes rows');
}

/** The packed buffer of a queued request. */
function packedOf(item: QueuedSpans): PackedSpans {
  if ('packed' in item) return item.packed;
  return packSpanRows(item.rows);
}

/**
 * The buffers of a request's packed spans, which move to the writer thread rather than being
 * copied: the copy cost about 20 MB of peak RSS under bench:ingest (docs/performance.md,
 * "Memory"). The thread retries a bad request alone itself, so the queue never needs them again.
 */
function packedBuffers(packed: PackedSpans): ArrayBuffer[] {
  return packed.long === undefined ? [packed.buffer] : [packed.buffer, packed.long.values, packed.long.ends.buffer as ArrayBuffer];
}

/** A batch of requests as one list of rows (no copy for the common single-request batch). */
const flatten = (requests: QueuedSpans[]): SpanRow[] => (requests.length === 1 ? rowsOf(requests[0]!) : requests.flatMap(rowsOf));

/**
 * The span writer for the configured database. On SQLite the WAL checkpoints run on the
 * compression thread, not the writer thread (long-attributes-compressor.ts, docs/ingest.md);
 * `onStopped` hears of a writer thread that stopped by itself, after which nothing is stored.
 */
export interface DatabaseWriterOptions {
  /** Hears of a writer thread that stopped (SQLite). */
  onStopped?: (error: Error) => void;
  /**
   * SERVICE_FULL_TEXT_SEARCH (default true): SQLite's writer thread runs the search indexer with
   * indexing on; PostgreSQL's writer notes the spans it stores for the search-vectors job.
   */
  fullTextSearch?: boolean;
  /** SERVICE_DASHBOARD_ROLLUPS (default true). */
  rollups?: boolean;
}

export function createDatabaseWriter(database: DatabaseConfig, options: DatabaseWriterOptions = {}): DatabaseWriter {
  const rollups = options.rollups !== false;
  if (database.dialect === 'sqlite') {
    const searchHeldBack = new SharedArrayBuffer(4);
    const heldBack = new Int32Array(searchHeldBack);
    const data: SqliteWriterThreadData = { file: database.url, fullTextSearch: options.fullTextSearch !== false, rollups, searchHeldBack };
    const thread = new ThreadBatchWriter<QueuedSpans, PackedSpans>(workerUrl, data, packedOf, {
      resourceLimits: WRITER_THREAD_LIMITS,
      transfer: packedBuffers,
      onStopped: options.onStopped,
    });
    const task = (work: RetentionTask | CostTask | LongAttributesTask | SpanLogEventsTask | StatementsTask) => thread.task(work);
    return {
      prepare: (rows) => ({ count: rows.length, packed: packSpanRows(rows) }),
      write: (requests) => thread.write(requests),
      forgetProjects: () => thread.reset(),
      retention: {
        deleteTraces: async (traceRowids) => (await task({ kind: 'retention.deleteTraces', traceRowids })) as SqliteDeletedTraces,
        incrementalVacuum: async (pages) => (await task({ kind: 'retention.vacuum', pages })) as number,
      },
      costs: {
        store: async (costs, watermark) => {
          await task({ kind: 'costs.store', costs, watermark });
        },
      },
      longAttributes: {
        store: async (spans, done) => {
          await task({ kind: 'longAttributes.store', spans, done });
        },
      },
      spanLogEvents: {
        store: async (events, receivedAt) => {
          await task({ kind: 'spanLogEvents.store', events, receivedAt });
        },
        attach: async (updates, attachedIds, expireBefore) => {
          await task({ kind: 'spanLogEvents.attach', updates, attachedIds, expireBefore });
        },
      },
      statements: {
        run: async (statements) => (await task({ kind: 'statements.run', statements })) as number,
      },
      searchHeldBack: () => Atomics.load(heldBack, 0) === 1,
      close: () => thread.close(),
    };
  }
  const postgres = new PostgresSpanWriter(database.url, { rollups, searchIndex: options.fullTextSearch !== false });
  return {
    write: (requests) => postgres.write(flatten(requests)),
    forgetProjects: () => postgres.forgetProjects(),
    close: () => postgres.close(),
  };
}
