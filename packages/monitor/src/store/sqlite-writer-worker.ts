/** The SQLite writer thread of the log API: owns the write connection, folds queued batches into one commit and syncs the WAL before acknowledging it. */
import { workerData } from 'node:worker_threads';
import { openSqlite, serveWriterThread } from '@sightline/common/writer-thread';
import type { RowValues } from '../db/repositories/record-writes.js';
import { SqliteRecordStore } from '../db/repositories/record-writes-sqlite.js';
import { WalSync } from './wal-sync.js';

const { file, syncs } = workerData as { file: string; syncs: number };
const connection = openSqlite(file);
// Commits write the WAL frames without syncing them; the thread syncs the WAL itself (below)
// before a commit is acknowledged, which makes the frames as durable as synchronous=FULL would.
// SQLite still syncs the WAL before every checkpoint and the database file after it.
connection.pragma('synchronous = NORMAL');
// A larger page cache keeps the indexes' hot pages in memory (the writer touches three b-trees per row).
connection.pragma('cache_size = -65536');
const store = new SqliteRecordStore(connection);

// The WAL is synced before a commit is acknowledged (wal-sync.ts).
const wal = new WalSync(file, syncs);

serveWriterThread<RowValues>({
  commit: (rows) => store.writeRows(rows),
  durable: (done) => wal.sync(done),
  close: () => {
    wal.close();
    connection.close();
  },
});
