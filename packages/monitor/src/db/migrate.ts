/**
 * Brings the monitor schema up to date on start. The migration tables have their own names, so
 * the monitor may share a PostgreSQL database with the observability server.
 */
import { Migrator } from 'kysely';
import type { MonitorDatabase } from './database.js';
import { migrations } from './migrations/index.js';

/** Applies every pending migration, or throws with the name of the one that failed. */
export async function migrateMonitorDatabase(database: MonitorDatabase): Promise<void> {
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations({ dialect: database.dialect }) },
    migrationTableName: 'monitor_migration',
    migrationLockTableName: 'monitor_migration_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`monitor database migration ${failed} failed: ${(error as Error).message ?? String(error)}`);
  }
}
