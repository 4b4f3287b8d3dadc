/**
 * PostgreSQL's search words behind ingest (migrations 0048 and 0049, docs/search.md): each ingest
 * transaction notes the spans it stored in one `span_search_pending` row; the search-vectors job
 * takes the oldest notes, reads their spans' attributes, has their words cut (search-sql.ts
 * tsVectorText, in JavaScript: cutting them with PostgreSQL's regular expressions cost about 3 µs
 * a word, docs/performance.md) and stores the vectors in the GIN-indexed `span_search_vectors`.
 */
import { type Kysely, sql } from 'kysely';
import type { DB } from '../schema.js';

/** A pending span's attributes as stored: the JSON column and the packed long values (span-model/long-attributes.ts). */
export interface PendingSpan {
  attributes: Record<string, unknown>;
  longAttributes: Uint8Array | null;
}

/** Notes looked at per batch: enough for a batch of spans written a few at a time. */
const NOTES_PER_BATCH = 500;

export function createSearchVectorsRepository(db: Kysely<DB>) {
  return {
    /**
     * Indexes the spans of the oldest notes, about `limit` spans (whole notes, at least one), in
     * one transaction: a crash leaves them noted. `vectorsOf` gives each span's tsvector text, or
     * null for a span without words. Resolves to how many spans were taken.
     *
     * - SKIP LOCKED lets a replica that runs the job alongside (outside the job's lease, such as
     *   a test calling it) take other notes instead of waiting.
     * - The spans are read FOR KEY SHARE: a delete of one of them waits for this commit, and every
     *   path that deletes spans deletes their words after the spans (span-dependents.ts), so a
     *   deleted span leaves no words behind. A span deleted before is simply not found.
     */
    async indexQueued(limit: number, vectorsOf: (spans: PendingSpan[]) => Promise<(string | null)[]>): Promise<number> {
      return db.transaction().execute(async (trx) => {
        const { rows: notes } = await sql<{ id: string; trace_rowids: string[]; span_rowids: string[] }>`
          SELECT id, trace_rowids, span_rowids FROM span_search_pending
          WHERE id IN (
            SELECT id FROM (
              SELECT id, sum(span_count) OVER (ORDER BY id) - span_count AS before
              FROM span_search_pending ORDER BY id LIMIT ${NOTES_PER_BATCH}
            ) AS w WHERE before < ${limit})
          ORDER BY id FOR UPDATE SKIP LOCKED`.execute(trx);
        if (notes.length === 0) return 0;
        const { rows: spans } = await sql<{
          id: string;
          trace_rowid: string;
          project_id: string;
          attributes: Record<string, unknown>;
          long_attributes: Uint8Array | null;
        }>`
          SELECT s.id, s.trace_rowid, s.project_id, s.attributes, s.long_attributes
          FROM unnest(${notes.flatMap((note) => note.trace_rowids)}::bigint[], ${notes.flatMap((note) => note.span_rowids)}::bigint[]) AS u(t, i)
          JOIN spans s ON s.trace_rowid = u.t AND s.id = u.i
          FOR KEY SHARE OF s`.execute(trx);
        const vectors = await vectorsOf(spans.map((span) => ({ attributes: span.attributes, longAttributes: span.long_attributes })));
        const indexed = spans.flatMap((span, index) => (vectors[index] == null ? [] : [{ span, vector: vectors[index] }]));
        if (indexed.length > 0) {
          await sql`
            INSERT INTO span_search_vectors (span_rowid, trace_rowid, project_id, search_vector)
            SELECT s, t, p, cast(v AS tsvector) FROM unnest(${indexed.map(({ span }) => span.id)}::bigint[],
              ${indexed.map(({ span }) => span.trace_rowid)}::bigint[], ${indexed.map(({ span }) => span.project_id)}::bigint[],
              ${indexed.map(({ vector }) => vector)}::text[]) AS u(s, t, p, v)
            ON CONFLICT DO NOTHING`.execute(trx);
        }
        await sql`DELETE FROM span_search_pending WHERE id = ANY(${notes.map((note) => note.id)}::bigint[])`.execute(trx);
        return notes.reduce((sum, note) => sum + note.span_rowids.length, 0);
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

    /** How many spans wait for their words to be indexed. */
    async queued(): Promise<number> {
      const { rows } = await sql<{ n: string | null }>`SELECT sum(span_count) AS n FROM span_search_pending`.execute(db);
      return Number(rows[0]?.n ?? 0);
    },
  };
}

export type SearchVectorsRepository = ReturnType<typeof createSearchVectorsRepository>;
