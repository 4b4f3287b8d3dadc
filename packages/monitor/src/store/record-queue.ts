/**
 * The log API's write path: the shared group-commit engine (@sightline/common) in front of the
 * SQLite writer thread or PostgreSQL. Each request enqueues one row and is answered 200 only
 * after the transaction holding it committed.
 */
import { type BatchWriter, type DatabaseConfig, GroupCommitQueue, siblingModuleUrl, ThreadBatchWriter } from '@sightline/common';
import { PostgresRecordWriter } from '../db/repositories/record-writes-postgres.js';
import { type RecordRow, type RowValues, rowValues } from './record-rows.js';

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
  onError?: (error: unknown) => void;
}

/** The writer for the configured database, and the queue in front of it. */
export function createRecordWritePath(database: DatabaseConfig, options: RecordQueueOptions): { writer: RecordWriter; queue: RecordQueue } {
  const sqlite = database.dialect === 'sqlite';
  const writer: RecordWriter = sqlite
    ? new ThreadBatchWriter<RecordRow, RowValues[]>(workerUrl, { file: database.url }, (rows) => rows.map(rowValues))
    : new PostgresRecordWriter(database.url, POSTGRES_WRITE_CONNECTIONS);
  const queue = new GroupCommitQueue<RecordRow>(writer, {
    maxQueuedWeight: options.maxQueuedRecords,
    maxBatchWeight: options.maxBatchRecords,
    // The SQLite writer thread folds queued batches into one transaction; PostgreSQL commits on several connections.
    maxInFlight: sqlite ? 64 : POSTGRES_WRITE_CONNECTIONS,
    messages: {
      full: 'the service is busy writing earlier records; retry later',
      failed: 'the service cannot store records right now; retry later',
      closing: 'the service is shutting down',
    },
    onError: options.onError,
  });
  return { writer, queue };
}
