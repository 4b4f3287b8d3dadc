/**
 * PostgreSQL: ingest no longer copies each span's search text into a queue (0048); it notes which
 * spans its transaction stored, one row per transaction, and the search-vectors job reads their
 * words from the spans themselves (docs/search.md, "PostgreSQL"). Appending a text per span cost
 * ingest about 15 % of its rate (docs/performance.md, "PostgreSQL's index behind ingest"): a heap
 * row, a b-tree entry and the text's bytes again in the WAL, and the text's escaping into an
 * array literal on the server's main thread.
 *
 * - `span_search_pending`: the row ids of the spans one ingest transaction stored, as two arrays
 *   in step (trace row id, span row id: the spans' partitions are found by their traces), and
 *   their count, which the job reads to take about a batch of spans without reading the arrays.
 *
 * Texts still queued are carried over as pending spans, in their order, a thousand to a row.
 * SQLite keeps its own index file (0045) and changes nothing.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    if (dialect !== 'postgres') return;
    const run = (statement: string) => sql.raw(statement).execute(db);
    await run(`CREATE TABLE span_search_pending (
      id bigserial PRIMARY KEY,
      span_count integer NOT NULL,
      trace_rowids bigint[] NOT NULL,
      span_rowids bigint[] NOT NULL
    )`);
    // A transaction's arrays take a few kB, read once and deleted: stored apart but not compressed,
    // which would cost the writer's transaction time for no lasting saving.
    await run('ALTER TABLE span_search_pending ALTER COLUMN trace_rowids SET STORAGE EXTERNAL');
    await run('ALTER TABLE span_search_pending ALTER COLUMN span_rowids SET STORAGE EXTERNAL');
    await run(`INSERT INTO span_search_pending (span_count, trace_rowids, span_rowids)
      SELECT count(*), array_agg(trace_rowid ORDER BY span_rowid), array_agg(span_rowid ORDER BY span_rowid)
      FROM span_search_queue GROUP BY span_rowid / 1000 ORDER BY span_rowid / 1000`);
    await run('DROP TABLE span_search_queue');
  };
}
