/** The one way every SQLite connection of Sightline is opened. */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';

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
  connection.pragma('busy_timeout = 10000');
  return connection;
}
