/**
 * PostgreSQL: a span's search words leave its row for a table of their own, filled behind ingest
 * (docs/search.md, "PostgreSQL"). Keeping the GIN index of `spans.search_vector` up to date in
 * the ingest transaction cost about 100 µs a span of the single writer connection's time, more
 * than half of ingest's rate (docs/performance.md, "Where PostgreSQL's time goes"):
 *
 * - `span_search_queue`: the search text of each span just stored (span-model/search-text.ts),
 *   written by ingest in the spans' transaction, so it is as durable as the span: a heap row plus
 *   one append to the right end of a b-tree. The job cuts it into words.
 * - `span_search_vectors`: the indexed words, partitioned by day like `spans` (the same bounds and
 *   suffixes), so retention drops a day's words with its spans. The search-vectors job moves the
 *   queue's rows here a moment after ingest.
 *
 * The words already in `spans.search_vector` are copied before the column goes. SQLite keeps its
 * own index file (0045) and changes nothing.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    if (dialect !== 'postgres') return;
    const run = (statement: string) => sql.raw(statement).execute(db);
    await run(`CREATE TABLE span_search_vectors (
      span_rowid bigint NOT NULL,
      trace_rowid bigint NOT NULL,
      project_id bigint NOT NULL,
      search_vector tsvector NOT NULL
    ) PARTITION BY RANGE (trace_rowid)`);
    // One partition beside each of the spans' (the legacy one and each day's), with its bounds.
    const partitions = await sql<{ name: string; bound: string }>`
      SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'spans'::regclass`.execute(db);
    for (const partition of partitions.rows) {
      const suffix = partition.name.slice('spans'.length);
      await run(`CREATE TABLE span_search_vectors${suffix} PARTITION OF span_search_vectors ${partition.bound}`);
    }
    // Indexes after the copy: one build per partition instead of an insert per span.
    await run(`INSERT INTO span_search_vectors (span_rowid, trace_rowid, project_id, search_vector)
      SELECT id, trace_rowid, project_id, search_vector FROM spans WHERE search_vector IS NOT NULL`);
    // Keyed by trace first: a list of traces walked newest first probes each trace's words (search-sql.ts).
    await run('ALTER TABLE span_search_vectors ADD PRIMARY KEY (trace_rowid, span_rowid)');
    await run('CREATE INDEX span_search_vectors_words ON span_search_vectors USING gin (search_vector)');
    await run('ALTER TABLE spans DROP COLUMN search_vector');
    await run(`CREATE TABLE span_search_queue (
      span_rowid bigint PRIMARY KEY,
      trace_rowid bigint NOT NULL,
      project_id bigint NOT NULL,
      search_text text NOT NULL
    )`);
  };
}
