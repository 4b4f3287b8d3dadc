/** Brings the schema up to date on start, with the shared runner (safe from several replicas at once). */
import { runMigrations } from '@sightline/common';
import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';

/** Applies every pending migration, or throws with the name of the one that failed. */
export async function migrateToLatest(database: Database): Promise<void> {
  await runMigrations(database.db as Kysely<unknown>, migrations({ dialect: database.dialect }), { label: 'database' });
}
