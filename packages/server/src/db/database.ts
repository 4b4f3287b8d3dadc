/** The server's database: the shared opener (@sightline/common) typed with the server's schema. */
import { createPgPool, type OpenDatabase, openKysely, openSqlite } from '@sightline/common';
import type { DatabaseConfig } from '../config.js';
import type { DB } from './schema.js';

// Re-exported for the package entry and the benchmarks, which open connections the same way.
export { createPgPool, openSqlite };

export type Database = OpenDatabase<DB>;

/** Opens the database named by the config. */
export function openDatabase(config: DatabaseConfig): Database {
  return openKysely<DB>(config);
}
