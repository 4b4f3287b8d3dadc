/** The one database opener and migration runner of both services: Kysely over SQLite or PostgreSQL. */
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type Migration,
  Migrator,
  PostgresAdapter,
  PostgresDialect,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  sql,
} from 'kysely';
import type SQLite from 'better-sqlite3';
import type { DatabaseConfig, Dialect } from '../env.js';
import { createPgPool } from '../postgres.js';
import { openSqlite } from '../sqlite.js';

export interface OpenDatabase<DB> {
  dialect: Dialect;
  db: Kysely<DB>;
  config: DatabaseConfig;
  close(): Promise<void>;
}

/**
 * SQLite transactions that take the write lock as they begin (BEGIN IMMEDIATE), as
 * `immediateTransaction` (sqlite.ts, which says why) does for the writer threads' connections:
 * a deferred one that read first failed with SQLITE_BUSY while a writer thread committed.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** Kysely's SQLite dialect with {@link ImmediateSqliteDriver}. */
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

export interface OpenKyselyOptions {
  /**
   * Runs on a new SQLite connection before any query, e.g. to attach other files. BEGIN
   * IMMEDIATE takes the write lock of every attached file too: each transaction of the
   * connection waits for those files' writers, and they for it.
   */
  sqliteAttach?: (connection: SQLite.Database) => void;
}

/** Opens the database named by the config behind one Kysely instance. */
export function openKysely<DB>(config: DatabaseConfig, options: OpenKyselyOptions = {}): OpenDatabase<DB> {
  let dialect: PostgresDialect | ImmediateSqliteDialect;
  if (config.dialect === 'postgres') dialect = new PostgresDialect({ pool: createPgPool(config.url) });
  else {
    const connection = openSqlite(config.url);
    try {
      options.sqliteAttach?.(connection);
    } catch (error) {
      connection.close();
      throw error;
    }
    dialect = new ImmediateSqliteDialect({ database: connection });
  }
  const db = new Kysely<DB>({ dialect });
  return { dialect: config.dialect, db, config, close: () => db.destroy() };
}

export interface MigrationOptions {
  /** Names the failing migration in the error ("database", "monitor database"). */
  label: string;
  /** Own bookkeeping tables, so two services may share one PostgreSQL database. */
  tableName?: string;
  lockTableName?: string;
}

/**
 * Applies every pending migration, or throws naming the one that failed. Safe when several
 * replicas start together: on PostgreSQL the whole run, from creating the bookkeeping tables to
 * the last migration, holds a session advisory lock named after the migrations table, so exactly
 * one replica migrates while the others wait, then find nothing pending (docs/deployment.md).
 */
export async function runMigrations(db: Kysely<unknown>, migrations: Record<string, Migration>, options: MigrationOptions): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return migrate(db, migrations, options);
  // Kysely takes an advisory lock of its own too, but only around the migrations: two replicas
  // would still race to create its bookkeeping tables. The lock lives on one dedicated connection
  // and ends with it, so a replica that dies mid-migration frees it (and its transaction rolls back).
  const key = `sightline:${options.tableName ?? 'kysely_migration'}`;
  await db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(hashtext(${key}))`.execute(connection);
    try {
      // On the lock's own connection: a pool of one (tests, small deployments) has no second one to wait for.
      await migrate(connection, migrations, options);
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(connection);
    }
  });
}

async function migrate(
  db: Kysely<unknown>,
  migrations: Record<string, Migration>,
  { label, tableName, lockTableName }: MigrationOptions,
): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(tableName ? { migrationTableName: tableName } : {}),
    ...(lockTableName ? { migrationLockTableName: lockTableName } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`${label} migration ${failed} failed: ${(error as Error).message ?? String(error)}`);
  }
}
