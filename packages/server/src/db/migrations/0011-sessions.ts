/**
 * Sessions (docs/sessions.md): one row per `session.id` span attribute and project, upserted by
 * the ingest writers, and the session of each trace. Session lists aggregate from traces, so
 * no read ever scans span attributes. Existing traces are not backfilled: only spans ingested
 * after this migration create sessions.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const run = (statement: string) => sql.raw(statement).execute(db);
    await db.schema
      .createTable('project_sessions')
      .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('start_time', 'bigint', (c) => c.notNull())
      .addColumn('end_time', 'bigint', (c) => c.notNull())
      // The ingest upsert's conflict target.
      .addUniqueConstraint('project_sessions_project_session', ['project_id', 'session_id'])
      .execute();
    // A project's sessions in id order (the list's keyset), and lookups by the session.id text alone.
    await run('CREATE INDEX project_sessions_project_id ON project_sessions (project_id, id)');
    await run('CREATE INDEX project_sessions_session_id ON project_sessions (session_id)');
    // Deleting a session deletes its traces (and so their spans and annotations), as Phoenix does.
    await db.schema
      .alterTable('traces')
      .addColumn('project_session_rowid', 'bigint', (c) => c.references('project_sessions.id').onDelete('cascade'))
      .execute();
    // The traces of a session in start order; also what the cascade above looks up.
    await run('CREATE INDEX traces_project_session ON traces (project_session_rowid, start_time)');
  };
}
