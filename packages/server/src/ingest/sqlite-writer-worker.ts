/** The SQLite writer thread of span ingest: owns the write connection and folds queued batches into one commit. */
import { workerData } from 'node:worker_threads';
import { openSqlite, serveWriterThread } from '@sightline/common';
import { SqliteSpanStore } from '../db/repositories/span-writes-sqlite.js';
import type { SpanRow } from './span-rows.js';

const connection = openSqlite((workerData as { file: string }).file);
const store = new SqliteSpanStore(connection);

serveWriterThread<SpanRow[]>({
  commit: (batches) => store.writeAll(batches),
  reset: () => store.forgetProjects(),
  close: () => connection.close(),
});
