/** The server's database: the shared opener (@sightline/common) typed with the server's schema. */
import { createPgPool, type OpenDatabase, openKysely, openSqlite } from '@sightline/common';
import type { DatabaseConfig } from '../config.js';
import type { DB } from './schema.js';
import { attachSearchIndex } from './search-index/search-index-file.js';

// Re-exported for the package entry and the benchmarks, which open connections the same way.
export { createPgPool, openSqlite };

export type Database = OpenDatabase<DB>;

/**
 * Opens the database named by the config. A SQLite connection attaches the full-text index's file
 * (created when missing) as `search`, where the span and trace lists' searches read it.
 */
export function openDatabase(config: DatabaseConfig): Database {
  if (config.dialect === 'postgres') return openKysely<DB>(config);
  return openKysely<DB>(config, { sqliteAttach: (connection) => attachSearchIndex(connection, config.url) });
}
