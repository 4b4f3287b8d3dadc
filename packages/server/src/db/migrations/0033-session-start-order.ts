/**
 * Sessions listed by when they started (docs/sessions.md, "Order"): a session's row id is when
 * ingest first saw it, which is not when it started once traces arrive out of order, so the
 * sessions table's "newest first" needs its own index.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up(_context: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await sql.raw('CREATE INDEX project_sessions_project_start ON project_sessions (project_id, start_time, id)').execute(db);
  };
}
