/** Brings the schema up to date on start; safe to run from several replicas at once (Kysely locks). */
import { Migrator } from 'kysely';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';

/** Applies every pending migration, or throws with the name of the one that failed. */
export async function migrateToLatest(database: Database): Promise<void> {
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations({ dialect: database.dialect }) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`database migration ${failed} failed: ${(error as Error).message ?? String(error)}`);
  }
}
