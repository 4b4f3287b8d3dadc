/**
 * PostgreSQL: `span_costs` loses its foreign keys to the partitioned `traces` and `spans`. Each
 * check is a query through the partitioned table that locks the referenced row, and the cost job
 * stores a row for nearly every LLM span: 177 of its 230 µs a row, more of PostgreSQL's time than
 * inserting the spans themselves (docs/performance.md, "Where PostgreSQL's time goes"). As for
 * spans without a key to traces (0022), whatever deletes spans or traces deletes their costs
 * itself; the key to projects stays, so a deleted project's costs still cascade. SQLite's keys
 * cost little and stay.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    if (dialect !== 'postgres') return;
    const keys = await sql<{ name: string }>`
      SELECT c.conname AS name FROM pg_constraint c
      WHERE c.contype = 'f' AND c.conrelid = 'span_costs'::regclass
        AND c.confrelid IN ('spans'::regclass, 'traces'::regclass)`.execute(db);
    for (const key of keys.rows) await sql`ALTER TABLE span_costs DROP CONSTRAINT ${sql.id(key.name)}`.execute(db);
  };
}
