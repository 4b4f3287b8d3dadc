/** The SQLite writer thread of the log API: owns the write connection and folds queued batches into one commit. */
import { workerData } from 'node:worker_threads';
import { openSqlite, serveWriterThread } from '@sightline/common';
import { SqliteRecordStore } from '../db/repositories/record-writes-sqlite.js';
import type { RowValues } from './record-rows.js';

const connection = openSqlite((workerData as { file: string }).file);
// Commits return without waiting for the disk: the main thread syncs the WAL after each commit
// and acknowledges only then (SqliteRecordWriter in record-queue.ts), with several syncs in
// flight, so the next commit never waits for the previous one's fsync. SQLite still syncs the
// WAL before every checkpoint and the database file after it.
connection.pragma('synchronous = NORMAL');
// A larger page cache keeps the indexes' hot pages in memory (the writer touches three b-trees per row).
connection.pragma('cache_size = -65536');
const store = new SqliteRecordStore(connection);

serveWriterThread<RowValues[]>({
  commit: (batches) => store.writeBatches(batches),
  close: () => connection.close(),
});
