/** Brings the schema up to date on start, with the shared runner (safe from several replicas at once). */
import { runMigrations } from '@sightline/common';
import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../config.js';
import type { Database } from './database.js';
import { migrations } from './migrations/index.js';

/** Applies every pending migration, or throws with the name of the one that failed. */
export async function migrateToLatest(database: Database): Promise<void> {
  await applyMigrations(database.db as Kysely<unknown>, database.dialect, migrations({ dialect: database.dialect }));
}

/** Applies the pending ones of a set of migrations (tests pass a prefix to build an older database). */
export async function applyMigrations(db: Kysely<unknown>, dialect: Dialect, set: Record<string, Migration>): Promise<void> {
  const run = () => runMigrations(db, set, { label: 'database' });
  if (dialect !== 'sqlite') return run();
  // SQLite rebuilds a table that others reference by dropping the old one (0021), which with
  // foreign keys on would delete the referencing rows too; the setting cannot change inside the
  // migrations' transaction, so it is off around them. No migration relies on a cascade.
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  try {
    await run();
  } finally {
    await sql`PRAGMA foreign_keys = ON`.execute(db);
  }
}
