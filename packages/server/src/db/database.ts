/** Opens the configured database (embedded SQLite or PostgreSQL) behind one Kysely instance. */
import { createPgPool, openSqlite } from '@sightline/common';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { DatabaseConfig, Dialect } from '../config.js';
import type { DB } from './schema.js';

// Re-exported for the package entry and the benchmarks, which open connections the same way.
export { createPgPool, openSqlite };

export interface Database {
  dialect: Dialect;
  db: Kysely<DB>;
  config: DatabaseConfig;
  close(): Promise<void>;
}

/** Opens the database named by the config. */
export function openDatabase(config: DatabaseConfig): Database {
  if (config.dialect === 'postgres') {
    const pool = createPgPool(config.url);
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { dialect: 'postgres', db, config, close: () => db.destroy() };
  }
  const connection = openSqlite(config.url);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: connection }) });
  return { dialect: 'sqlite', db, config, close: () => db.destroy() };
}
