/** Opens the configured database (embedded SQLite or PostgreSQL) behind one Kysely instance. */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { DatabaseConfig, Dialect } from '../config.js';
import type { DB } from './schema.js';

export interface Database {
  dialect: Dialect;
  db: Kysely<DB>;
  config: DatabaseConfig;
  close(): Promise<void>;
}

/** Connection settings every SQLite connection of the server uses (reader and writer alike). */
export function openSqlite(file: string, options: { readonly?: boolean } = {}): SQLite.Database {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const connection = new SQLite(file, { readonly: options.readonly ?? false });
  connection.pragma('journal_mode = WAL');
  // FULL makes every commit durable before ingest acknowledges it; group commit keeps it cheap.
  connection.pragma('synchronous = FULL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 10000');
  return connection;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** pg type parsers: BIGINT ids and counts as numbers when exact; times are read as text by the queries. */
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

/** A PostgreSQL pool configured like every other connection of the server. */
export function createPgPool(url: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, types: pgTypes });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  return pool;
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
