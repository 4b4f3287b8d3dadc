/** The one way every SQLite connection of Sightline is opened. */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';

/** Size the WAL file is cut back to when it restarts (docs/ingest.md, "Write path"). */
export const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Opens a SQLite file (creating its directory) with WAL, durable commits (synchronous=FULL), foreign keys and a 10 s lock wait.
 * A new file is created in incremental auto-vacuum mode.
 */
export function openSqlite(file: string, options: { readonly?: boolean } = {}): SQLite.Database {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const connection = new SQLite(file, { readonly: options.readonly ?? false });
  // Only takes effect on a new, empty file, and only before WAL writes its first page: it lets the
  // retention job hand freed pages back to the file system (docs/retention.md). Existing files keep their mode.
  if (!options.readonly) connection.pragma('auto_vacuum = INCREMENTAL');
  connection.pragma('journal_mode = WAL');
  // FULL makes every commit durable before ingest acknowledges it; group commit keeps it cheap.
  connection.pragma('synchronous = FULL');
  connection.pragma('foreign_keys = ON');
  // SQLite reuses the WAL file from its start after a checkpoint but never shrinks it: a burst of
  // writes (retention deleting millions of spans) left hundreds of MB of WAL on disk for good.
  // With a limit, the WAL is cut back to it whenever it restarts.
  connection.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  connection.pragma('busy_timeout = 10000');
  return connection;
}

/**
 * `fn` as a transaction that takes the write lock as it begins (BEGIN IMMEDIATE). Each SQLite file
 * has writers on two connections (a writer thread's and the main thread's); a deferred transaction
 * that reads before it writes cannot wait for the lock the other holds, and fails at once with
 * SQLITE_BUSY despite busy_timeout. An immediate one waits, as a single statement does.
 */
export function immediateTransaction<A extends unknown[], R>(connection: SQLite.Database, fn: (...args: A) => R): (...args: A) => R {
  return connection.transaction(fn).immediate;
}
