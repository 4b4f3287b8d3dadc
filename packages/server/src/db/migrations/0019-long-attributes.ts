/**
 * Smaller span rows (docs/ingest.md, "How attributes are stored"): long attribute values move out
 * of the JSON column into `long_attributes`, compressed by the server (span-model/long-attributes.ts).
 *
 * The migration only adds the column, at once on both dialects (no table rewrite), and records
 * which rows are older: those up to `long-attributes.last`. Converting them is the job of
 * ingest/long-attributes-job.ts, in short transactions after start-up, because a migration cannot
 * do it in batches that a large database bears: on PostgreSQL every pending migration runs in one
 * transaction, and a server converting ten million rows before it answers would be killed by its
 * health checks long before the end. Rows not yet converted read as before (their JSON column
 * holds every attribute).
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

/** job_state rows of the conversion: the newest row id that may need it, and how far it has come. */
export const LONG_ATTRIBUTES_LAST = 'long-attributes.last';
export const LONG_ATTRIBUTES_DONE = 'long-attributes.done';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    await db.schema
      .alterTable('spans')
      .addColumn('long_attributes', pg ? 'bytea' : 'blob')
      .execute();
    // Already compressed: PostgreSQL's own compression of a large row would spend time for nothing.
    if (pg) await sql`ALTER TABLE spans ALTER COLUMN long_attributes SET STORAGE EXTERNAL`.execute(db);
    await sql`INSERT INTO job_state (name, value) SELECT ${LONG_ATTRIBUTES_LAST}, cast(coalesce(max(id), 0) as text) FROM spans`.execute(
      db,
    );
    await sql`INSERT INTO job_state (name, value) VALUES (${LONG_ATTRIBUTES_DONE}, '0')`.execute(db);
  };
}
