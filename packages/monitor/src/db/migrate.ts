/**
 * Brings the monitor schema up to date on start, with the shared runner. The migration tables
 * have their own names, so the monitor may share a PostgreSQL database with the observability server.
 */
import { runMigrations } from '@sightline/common';
import type { Kysely } from 'kysely';
import type { MonitorDatabase } from './database.js';
import { migrations } from './migrations/index.js';

/** Applies every pending migration, or throws with the name of the one that failed. */
export async function migrateMonitorDatabase(database: MonitorDatabase): Promise<void> {
  await runMigrations(database.db as Kysely<unknown>, migrations({ dialect: database.dialect }), {
    label: 'monitor database',
    tableName: 'monitor_migration',
    lockTableName: 'monitor_migration_lock',
  });
}
