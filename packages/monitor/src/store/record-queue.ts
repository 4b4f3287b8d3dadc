/**
 * The log API's write path: the shared group-commit engine (@sightline/common) in front of the
 * SQLite writer thread or PostgreSQL. Each request enqueues one row and is answered 200 only
 * after the transaction holding it committed and is on disk.
 */
import { type BatchWriter, type DatabaseConfig, GroupCommitQueue, siblingModuleUrl, ThreadBatchWriter } from '@sightline/common';
import { type RecordRow, type RowValues, rowValues } from '../db/repositories/record-writes.js';
import { PostgresRecordWriter } from '../db/repositories/record-writes-postgres.js';

/** Connections the PostgreSQL writer commits on concurrently. */
const POSTGRES_WRITE_CONNECTIONS = 4;

const workerUrl = siblingModuleUrl(import.meta.url, 'sqlite-writer-worker');

export type RecordQueue = GroupCommitQueue<RecordRow>;

/** A record writer that can be closed. */
export interface RecordWriter extends BatchWriter<RecordRow> {
  close(): Promise<void>;
}

export interface RecordQueueOptions {
  maxQueuedRecords: number;
  maxBatchRecords: number;
  /** SQLite: WAL syncs at once (default 1: the writer thread syncs after each commit). */
  sqliteSyncs?: number;
  onError?: (error: unknown) => void;
  /** SQLite: hears of a writer thread that stopped by itself. */
  onWriterStopped?: (error: Error) => void;
}

/**
 * SQLite: a writer thread commits and syncs the WAL before it acknowledges a batch
 * (sqlite-writer-worker.ts); batches that queue up meanwhile are folded into its next commit.
 */
export class SqliteRecordWriter implements RecordWriter {
  private readonly thread: ThreadBatchWriter<RecordRow, RowValues>;

  /**
   * `syncs`: WAL syncs the thread runs at once (1: on the thread itself, after each commit);
   * `onStopped` hears of a thread that stopped by itself.
   */
  constructor(file: string, syncs: number, onStopped?: (error: Error) => void) {
    this.thread = new ThreadBatchWriter<RecordRow, RowValues>(workerUrl, { file, syncs }, rowValues, { onStopped });
  }

  write(rows: RecordRow[]): Promise<void> {
    return this.thread.write(rows);
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}

/** The writer for the configured database, and the queue in front of it. */
export function createRecordWritePath(database: DatabaseConfig, options: RecordQueueOptions): { writer: RecordWriter; queue: RecordQueue } {
  const sqlite = database.dialect === 'sqlite';
  const syncs = options.sqliteSyncs ?? 1;
  const writer: RecordWriter = sqlite
    ? new SqliteRecordWriter(database.url, syncs, options.onWriterStopped)
    : new PostgresRecordWriter(database.url, POSTGRES_WRITE_CONNECTIONS);
  const queue = new GroupCommitQueue<RecordRow>(writer, {
    maxQueuedWeight: options.maxQueuedRecords,
    maxBatchWeight: options.maxBatchRecords,
    // SQLite: with one sync at a time, one batch at the writer thread (what arrives meanwhile
    // leaves as the next batch, one message); with more, a batch per sync, so commits go on while
    // the syncs run. PostgreSQL commits on several connections.
    maxInFlight: sqlite ? syncs : POSTGRES_WRITE_CONNECTIONS,
    messages: {
      full: 'the service is busy writing earlier records; retry later',
      failed: 'the service cannot store records right now; retry later',
      closing: 'the service is shutting down',
    },
    onError: options.onError,
  });
  return { writer, queue };
}
