/**
 * Error spans by kind: "LLM spans that failed" is a common filter, and without statistics
 * SQLite would otherwise scan every span of the kind. Partial, so it costs ingest little.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up(_context: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await sql`CREATE INDEX spans_project_kind_errors ON spans (project_id, span_kind, start_time DESC, id DESC) WHERE status_code = 'ERROR'`.execute(
      db,
    );
  };
}
