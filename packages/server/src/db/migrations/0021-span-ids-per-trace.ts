/**
 * Span ids unique per trace (db/span-ids.ts): the unique index on `spans.span_id` alone gives
 * way to `spans_trace_span (trace_rowid, span_id)`, which new spans append to in time order, and
 * lookups by span id alone use `spans_span_id ((id >> 14), span_id)`, whose newest part stays in
 * the page cache. The index on random span ids made ingest into a grown database read and rewrite
 * a page of it per span once it no longer fit the cache (docs/performance.md, "Span ids per trace"). `spans_trace_start (trace_rowid,
 * start_time, id)` goes: the new unique index leads with the trace too, and the spans of a trace
 * are few enough to sort, so keeping both would only cost ingest time and disk.
 *
 * SQLite cannot drop a column's UNIQUE constraint, so this rebuilds the spans table: a copy in
 * row-id order, then its indexes again (about 5 minutes at 10 million spans, and free disk of
 * about twice the file's size; docs/deployment.md, "Upgrades"). migrateToLatest runs SQLite
 * migrations with foreign keys off, so dropping the old table does not cascade to the rows that
 * reference spans (annotations, costs): they keep their span row ids, which the copy keeps.
 * PostgreSQL drops the constraint in place.
 */
import { sql, type Kysely } from 'kysely';
import { SPAN_ID_BUCKET_BITS } from '../span-ids.js';
import type { MigrationContext } from './index.js';

const BY_TRACE = 'CREATE UNIQUE INDEX spans_trace_span ON spans (trace_rowid, span_id)';
const BY_SPAN_ID = `CREATE INDEX spans_span_id ON spans ((id >> ${SPAN_ID_BUCKET_BITS}), span_id)`;

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    if (dialect === 'postgres') {
      await sql`ALTER TABLE spans DROP CONSTRAINT spans_span_id_key`.execute(db);
      await sql`DROP INDEX spans_trace_start`.execute(db);
    } else {
      await rebuildSqliteSpans(db);
    }
    await sql.raw(BY_TRACE).execute(db);
    await sql.raw(BY_SPAN_ID).execute(db);
  };
}

async function rebuildSqliteSpans(db: Kysely<unknown>): Promise<void> {
  const foreignKeys = await sql<{ foreign_keys: number }>`PRAGMA foreign_keys`.execute(db);
  if (foreignKeys.rows[0]?.foreign_keys !== 0) throw new Error('the spans table can only be rebuilt with foreign keys off');
  const table = await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'spans'`.execute(db);
  const unique = /"span_id" text not null unique/;
  const createSql = table.rows[0]?.sql;
  if (!createSql || !unique.test(createSql)) throw new Error('unexpected definition of the spans table');
  const indexes = await sql<{ sql: string }>`
    SELECT sql FROM sqlite_master
    WHERE type = 'index' AND tbl_name = 'spans' AND sql IS NOT NULL AND name <> 'spans_trace_start'`.execute(db);
  const sequence = await sql<{ seq: number }>`SELECT seq FROM sqlite_sequence WHERE name = 'spans'`.execute(db);

  await sql
    .raw(createSql.replace(unique, '"span_id" text not null').replace(/^CREATE TABLE "spans"/, 'CREATE TABLE "spans_0021"'))
    .execute(db);
  await sql`INSERT INTO spans_0021 SELECT * FROM spans ORDER BY id`.execute(db);
  await sql`DROP TABLE spans`.execute(db);
  await sql`ALTER TABLE spans_0021 RENAME TO spans`.execute(db);
  for (const index of indexes.rows) await sql.raw(index.sql).execute(db);
  // AUTOINCREMENT never reuses an id, not even one whose span was deleted before the copy.
  const seq = sequence.rows[0]?.seq;
  if (seq !== undefined) {
    await sql`INSERT INTO sqlite_sequence (name, seq) SELECT 'spans', ${seq} WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'spans')`.execute(
      db,
    );
    await sql`UPDATE sqlite_sequence SET seq = max(seq, ${seq}) WHERE name = 'spans'`.execute(db);
  }
}
