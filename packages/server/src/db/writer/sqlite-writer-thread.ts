/** The SQLite writer thread of span ingest: owns the write connection and folds queued batches into one commit. */
import { workerData } from 'node:worker_threads';
import { BACKSTOP_AUTOCHECKPOINT_PAGES, openSqlite, serveWriterThread } from '@sightline/common/writer-thread';
import { isCostTask, SqliteCostStore } from './cost-writes-sqlite.js';
import { isLongAttributesTask, SqliteLongAttributesStore } from './long-attributes-writes-sqlite.js';
import { isRetentionTask, SqliteRetentionStore } from './retention-writes-sqlite.js';
import { isSpanLogEventsTask, SqliteSpanLogEventsStore } from './span-log-events-writes-sqlite.js';
import { SqliteSpanStore } from './span-writes-sqlite.js';
import { SearchIndexer } from '../search-index/search-indexer.js';
import { isStatementsTask, SqliteStatementStore } from './statement-writes-sqlite.js';
import type { SpanRow } from '../../span-model/span-rows.js';
import { type PackedSpans, unpackSpanRows } from '../../span-model/span-row-codec.js';

/**
 * Each request's rows, unpacked only when the transaction reaches them: a fold of many requests
 * unpacked at once held up to 5,000 rows of strings alive, which made every young-generation
 * collection of this thread copy them and grew its heap (docs/performance.md, "Memory").
 */
function* requestRows(requests: PackedSpans[]): Generator<SpanRow[]> {
  for (const packed of requests) yield unpackSpanRows(packed);
}

/** What the thread is started with (database-writer.ts). */
export interface SqliteWriterThreadData {
  file: string;
  /** SERVICE_FULL_TEXT_SEARCH: new spans' words go to the search index. */
  fullTextSearch: boolean;
  /** SERVICE_DASHBOARD_ROLLUPS: spans are added to the per-minute rollups. */
  rollups: boolean;
  /** The search indexer's flag, 1 while it holds back (search-indexer.ts); shared with the request thread. */
  searchHeldBack: SharedArrayBuffer;
}

const data = workerData as SqliteWriterThreadData;
const connection = openSqlite(data.file);
// The compression thread checkpoints (long-attributes-compressor.ts); this threshold is only its backstop.
connection.pragma(`wal_autocheckpoint = ${BACKSTOP_AUTOCHECKPOINT_PAGES}`);
// The search index's own thread (docs/search.md, "SQLite"); it runs even with indexing off, to apply deletions.
const search = new SearchIndexer(data.file, {
  indexing: data.fullTextSearch,
  onError: (message) => console.error(message),
  heldBack: data.searchHeldBack,
});
const store = new SqliteSpanStore(connection, { rollups: data.rollups, search });
const retention = new SqliteRetentionStore(connection);
const costs = new SqliteCostStore(connection, { rollups: data.rollups });
const longAttributes = new SqliteLongAttributesStore(connection);
const spanLogEvents = new SqliteSpanLogEventsStore(connection);
const statements = new SqliteStatementStore(connection);

serveWriterThread<PackedSpans>({
  commit: (requests) => store.writeAll(requestRows(requests)),
  reset: () => store.forgetProjects(),
  // The retention job's deletions, the cost job's writes, the long-attributes conversion's and the log records' run
  // here, between commits (docs/retention.md, docs/costs.md, docs/ingest.md).
  task: (task) => {
    if (isRetentionTask(task)) return retention.run(task);
    if (isCostTask(task)) return costs.run(task);
    if (isLongAttributesTask(task)) return longAttributes.run(task);
    if (isSpanLogEventsTask(task)) return spanLogEvents.run(task);
    if (isStatementsTask(task)) return statements.run(task);
    throw new Error('unknown writer task');
  },
  close: () => {
    search.close();
    connection.close();
  },
});
