/**
 * The narrow entry a worker thread imports (`@sightline/common/writer-thread`): the main entry
 * pulls in Kysely, pg and the HTTP helpers, about 23 MB per thread that a writer thread never
 * uses (docs/performance.md, "Memory").
 */
export { immediateTransaction, openSqlite } from './sqlite.js';
export { BACKSTOP_AUTOCHECKPOINT_PAGES, runWalCheckpoints, type WalCheckpoints } from './sqlite-checkpointer.js';
export { serveWriterThread } from './group-commit/writer-thread.js';
