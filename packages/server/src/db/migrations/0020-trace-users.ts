/**
 * The user of each trace (span-model/trace-users.ts): `traces.user_id`, filled in for the traces already
 * stored, and an index on it per project, so that a span list filtered on one `user.id` reads
 * that user's traces instead of every span of the project (about 350 ms at 10 million spans for
 * a user with one span in 5,000; docs/performance.md).
 *
 * The fill reads every span's JSON once, in this migration: about 50 s at 10 million spans on
 * SQLite, during which the server does not yet answer (docs/deployment.md, "Upgrades"). Unlike
 * 0019's conversion it rewrites only trace rows, a fifth of the span count or fewer. The key
 * rules here are frozen copies of userKeyOf's in SQL (long strings may be keyed by value here,
 * which userKeysMatching allows for).
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema.alterTable('traces').addColumn('user_id', 'text').execute();
    const key =
      dialect === 'postgres'
        ? sql`(case jsonb_typeof(s.attributes -> 'user.id')
            when 'string' then s.attributes ->> 'user.id'
            when 'number' then case when (s.attributes ->> 'user.id') ~ '^-?[0-9]{1,15}$'
              then cast(cast(s.attributes ->> 'user.id' as bigint) as text) else '*' end
            when 'boolean' then '*' end)`
        : sql`(case json_type(s.attributes, '$."user.id"')
            when 'text' then json_extract(s.attributes, '$."user.id"')
            when 'integer' then case when abs(json_extract(s.attributes, '$."user.id"')) < 1e15
              then cast(json_extract(s.attributes, '$."user.id"') as text) else '*' end
            when 'real' then '*' when 'true' then '*' when 'false' then '*' end)`;
    await sql`UPDATE traces SET user_id = (
        SELECT CASE WHEN count(DISTINCT k) > 1 THEN '*' ELSE min(k) END
        FROM (SELECT ${key} AS k FROM spans s WHERE s.trace_rowid = traces.id) AS keyed
        WHERE k IS NOT NULL)`.execute(db);
    await sql`CREATE INDEX traces_project_user ON traces (project_id, user_id, id) WHERE user_id IS NOT NULL`.execute(db);
  };
}
