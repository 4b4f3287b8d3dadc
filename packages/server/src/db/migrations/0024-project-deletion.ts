/**
 * Projects deleted in the background (docs/api.md, "Deleting projects"): `projects.deleted_at`.
 * A deleted project disappears at once for every reader and its name is free again; the retention
 * job then deletes its traces in short batches, as it does for a policy, and finally the row, so
 * that deleting a project of millions of spans never holds the database (or, on SQLite, the event
 * loop) for the length of one cascading statement.
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up(_context: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.alterTable('projects').addColumn('deleted_at', 'text').execute();
  };
}
