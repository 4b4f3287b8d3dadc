/** Opens the monitor database (embedded SQLite or PostgreSQL) behind one Kysely instance. */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { Dialect, MonitorDatabaseConfig } from '../config.js';
import type { MonitorDB } from './schema.js';

export interface MonitorDatabase {
  dialect: Dialect;
  db: Kysely<MonitorDB>;
  config: MonitorDatabaseConfig;
  close(): Promise<void>;
}

/** Settings of every SQLite connection: WAL, durable commits (synchronous=FULL), waits on locks. */
export function openSqlite(file: string): SQLite.Database {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const connection = new SQLite(file);
  connection.pragma('journal_mode = WAL');
  // FULL: a commit is on disk before /v1/log answers 200; group commit keeps it cheap.
  connection.pragma('synchronous = FULL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 10000');
  return connection;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** pg type parsers: BIGINT (ids, microsecond times, counts) as numbers when exact. */
const pgTypes = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8_OID || oid === NUMERIC_OID) {
      return (value: string) => {
        const number = Number(value);
        return Number.isSafeInteger(number) || oid === NUMERIC_OID ? number : value;
      };
    }
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/** A PostgreSQL pool configured like every other connection of the service. */
export function createPgPool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, types: pgTypes });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return pool;
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
