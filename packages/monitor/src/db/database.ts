/** Opens the monitor database (embedded SQLite or PostgreSQL) behind one Kysely instance. */
import { createPgPool, openSqlite } from '@sightline/common';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { Dialect, MonitorDatabaseConfig } from '../config.js';
import type { MonitorDB } from './schema.js';

export interface MonitorDatabase {
  dialect: Dialect;
  db: Kysely<MonitorDB>;
  config: MonitorDatabaseConfig;
  close(): Promise<void>;
}

/** Opens the database named by the config. */
export function openMonitorDatabase(config: MonitorDatabaseConfig): MonitorDatabase {
  if (config.dialect === 'postgres') {
    const pool = createPgPool(config.url);
    const db = new Kysely<MonitorDB>({ dialect: new PostgresDialect({ pool }) });
    return { dialect: 'postgres', db, config, close: () => db.destroy() };
  }
  const connection = openSqlite(config.url);
  const db = new Kysely<MonitorDB>({ dialect: new SqliteDialect({ database: connection }) });
  return { dialect: 'sqlite', db, config, close: () => db.destroy() };
}
