/** The SQLite writer thread of span ingest: owns the write connection and folds queued batches into one commit. */
import { workerData } from 'node:worker_threads';
import { BACKSTOP_AUTOCHECKPOINT_PAGES, openSqlite, serveWriterThread } from '@sightline/common';
import { isRetentionTask, SqliteRetentionStore } from '../db/repositories/retention-writes-sqlite.js';
import { SqliteSpanStore } from '../db/repositories/span-writes-sqlite.js';
import type { SpanRow } from './span-rows.js';

const connection = openSqlite((workerData as { file: string }).file);
// The checkpointer thread checkpoints (span-writer.ts); this threshold is only its backstop.
connection.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT_PAGES}`);
const store = new SqliteSpanStore(connection);
const retention = new SqliteRetentionStore(connection);

serveWriterThread<SpanRow[]>({
  commit: (batches) => store.writeAll(batches),
  reset: () => store.forgetProjects(),
  // The retention job's deletions run here, between commits (docs/retention.md).
  task: (task) => {
    if (!isRetentionTask(task)) throw new Error('unknown writer task');
    return retention.run(task);
  },
  close: () => connection.close(),
});
