/**
 * The log API's write path: the shared group-commit engine (@sightline/common) in front of the
 * SQLite writer thread or PostgreSQL. Each request enqueues one row and is answered 200 only
 * after the transaction holding it committed and is on disk.
 */
import fs from 'node:fs';
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
  /** SQLite: batches committing or waiting for their WAL sync at once (default 4). */
  sqliteSyncs?: number;
  onError?: (error: unknown) => void;
}

/**
 * SQLite: the writer thread commits with synchronous=NORMAL (the WAL frames are written, not
 * yet synced); each batch resolves only after an fdatasync of the WAL file that started after
 * its commit returned, which makes those frames as durable as synchronous=FULL would. The
 * syncs run on libuv's thread pool, up to the queue's maxInFlight at once, so commits and
 * syncs overlap instead of taking turns (docs/performance.md, "Log API").
 */
export class SqliteRecordWriter implements RecordWriter {
  private readonly thread: ThreadBatchWriter<RecordRow, RowValues[]>;
  /** The WAL file, opened after the first commit (the writer's open connection keeps it in place). */
  private wal: number | null = null;

  constructor(private readonly file: string) {
    this.thread = new ThreadBatchWriter<RecordRow, RowValues[]>(workerUrl, { file }, (rows) => rows.map(rowValues));
  }

  async write(rows: RecordRow[]): Promise<void> {
    await this.thread.write(rows);
    // SQLite keeps the WAL next to the database file a symbolic link points to.
    this.wal ??= fs.openSync(`${fs.realpathSync(this.file)}-wal`, 'r');
    const wal = this.wal;
    await new Promise<void>((resolve, reject) => fs.fdatasync(wal, (error) => (error ? reject(error) : resolve())));
  }

  async close(): Promise<void> {
    await this.thread.close();
    if (this.wal !== null) fs.closeSync(this.wal);
    this.wal = null;
  }
}

/** The writer for the configured database, and the queue in front of it. */
export function createRecordWritePath(database: DatabaseConfig, options: RecordQueueOptions): { writer: RecordWriter; queue: RecordQueue } {
  const sqlite = database.dialect === 'sqlite';
  const writer: RecordWriter = sqlite
    ? new SqliteRecordWriter(database.url)
    : new PostgresRecordWriter(database.url, POSTGRES_WRITE_CONNECTIONS);
  const queue = new GroupCommitQueue<RecordRow>(writer, {
    maxQueuedWeight: options.maxQueuedRecords,
    maxBatchWeight: options.maxBatchRecords,
    // SQLite: batches committing or syncing at once (the writer thread folds those queued behind
    // a commit into one transaction); PostgreSQL commits on several connections.
    maxInFlight: sqlite ? (options.sqliteSyncs ?? 4) : POSTGRES_WRITE_CONNECTIONS,
    messages: {
      full: 'the service is busy writing earlier records; retry later',
      failed: 'the service cannot store records right now; retry later',
      closing: 'the service is shutting down',
    },
    onError: options.onError,
  });
  return { writer, queue };
}
