/**
 * Experiment projects by name: the projects list hides the projects that hold experiments' task
 * traces unless asked (as Phoenix does), with a NOT EXISTS probe per project that this serves.
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up(_context: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.createIndex('experiments_project_name').on('experiments').column('project_name').execute();
  };
}
