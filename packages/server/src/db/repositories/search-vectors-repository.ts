/**
 * PostgreSQL's search words behind ingest (migration 0048, docs/search.md): ingest queues each new
 * span's search text in `span_search_queue`; the search-vectors job takes the oldest, has them cut
 * into words (search-sql.ts tsVectorText, in JavaScript: cutting them with PostgreSQL's regular
 * expressions cost about 3 µs a word, docs/performance.md) and stores the vectors in the GIN-indexed `span_search_vectors`.
 */
import { type Kysely, sql } from 'kysely';
import type { DB } from '../schema.js';

export function createSearchVectorsRepository(db: Kysely<DB>) {
  return {
    /**
     * Indexes up to `limit` queued spans, oldest first, in one transaction (a crash leaves them
     * queued): `vectorsOf` gives each text's tsvector text. SKIP LOCKED lets a replica that runs
     * the job alongside (outside the job's lease, such as a test calling it) take other rows
     * instead of waiting. A span deleted while queued lost its row here with it
     * (span-dependents.ts), and a day dropped by retention its rows (retention-repository.ts).
     * Resolves to how many spans were taken from the queue.
     */
    async indexQueued(limit: number, vectorsOf: (texts: string[]) => Promise<string[]>): Promise<number> {
      return db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ span_rowid: number; trace_rowid: number; project_id: number; search_text: string }>`
          SELECT span_rowid, trace_rowid, project_id, search_text FROM span_search_queue
          ORDER BY span_rowid LIMIT ${limit} FOR UPDATE SKIP LOCKED`.execute(trx);
        if (rows.length === 0) return 0;
        const spanRowids = rows.map((row) => row.span_rowid);
        const vectors = await vectorsOf(rows.map((row) => row.search_text));
        await sql`
          INSERT INTO span_search_vectors (span_rowid, trace_rowid, project_id, search_vector)
          SELECT s, t, p, cast(v AS tsvector) FROM unnest(${spanRowids}::bigint[], ${rows.map((row) => row.trace_rowid)}::bigint[],
            ${rows.map((row) => row.project_id)}::bigint[], ${vectors}::text[]) AS u(s, t, p, v)
          ON CONFLICT DO NOTHING`.execute(trx);
        await sql`DELETE FROM span_search_queue WHERE span_rowid = ANY(${spanRowids}::bigint[])`.execute(trx);
        return rows.length;
      });
    },

    /** When the words' statistics were last gathered (null: never). */
    async lastAnalyzed(): Promise<Date | null> {
      const { rows } = await sql<{ at: Date | null }>`
        SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relid = 'span_search_vectors'::regclass`.execute(db);
      return rows[0]?.at ?? null;
    },

    /**
     * Gathers the words' statistics over every partition. Autovacuum analyzes each partition but
     * never a partitioned table, and searches read the most common words from the table's own
     * statistics (search-sql.ts). ANALYZE reads a sample of fixed size: about 3 s at 10M spans.
     */
    async analyze(): Promise<void> {
      await sql`ANALYZE span_search_vectors`.execute(db);
    },

    /** How many spans' words wait in the queue. */
    async queued(): Promise<number> {
      const row = await db
        .selectFrom('span_search_queue')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type SearchVectorsRepository = ReturnType<typeof createSearchVectorsRepository>;
