/**
 * Lookups by OpenTelemetry span id (docs/api.md, "Indexes").
 *
 * A span is unique within its trace, `spans_trace_span (trace_rowid, span_id)`: new spans land at
 * the end of that index, since new traces get the highest row ids. An index on span ids alone
 * takes every new span at a random place, so each commit rewrote about one page of it per span,
 * the largest cost of ingest into a grown database (docs/performance.md, "Span ids per trace").
 * Instead `spans_span_id` is keyed by the span's row-id bucket first, `(id >> 14, span_id)`:
 * inserts land in the newest bucket (16,384 spans, about a hundred pages, which stay cached), and
 * a lookup by span id alone probes the buckets newest first, where the spans that callers name
 * (to annotate, to fetch) usually are, and stops once every id is found.
 */
import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.js';

/** Row ids per bucket of `spans_span_id`: 2^14. Migration 0021 builds the index with this literal. */
export const SPAN_ID_BUCKET_BITS = 14;

/** Buckets probed per statement: with 500 ids, 32,000 index probes at most. */
const BUCKETS_PER_STATEMENT = 64;
const IDS_PER_STATEMENT = 500;

const BUCKET_SIZE = 2 ** SPAN_ID_BUCKET_BITS;

/** The row-id bucket expression, spelled as the index spells it (a literal shift) so both planners use it. */
const BUCKET = sql<number>`(${sql.ref('id')} >> ${sql.lit(SPAN_ID_BUCKET_BITS)})`;

/**
 * Row id of the span with each of these OpenTelemetry span ids, in any project: the newest span
 * when two traces hold the same id (span ids are unique per trace). Stops at the newest bucket
 * that holds every id. Ids must be lower-case hex.
 */
export async function spanRowidsBySpanId(db: Kysely<DB>, spanIds: Iterable<string>): Promise<Map<string, number>> {
  const found = await probe(db, spanIds, { untilFound: true });
  return new Map([...found].map(([spanId, rowids]) => [spanId, Math.max(...rowids)]));
}

/** Row ids of every span with one of these span ids, in any project (filters: a span id may be in several traces). */
export async function allSpanRowidsBySpanId(db: Kysely<DB>, spanIds: Iterable<string>): Promise<number[]> {
  const found = await probe(db, spanIds, { untilFound: false });
  return [...found.values()].flat();
}

/** Probes the buckets newest first, 64 per statement, for every wanted id (or until each was found once). */
async function probe(db: Kysely<DB>, spanIds: Iterable<string>, options: { untilFound: boolean }): Promise<Map<string, number[]>> {
  const found = new Map<string, number[]>();
  const wanted = new Set(spanIds);
  if (wanted.size === 0) return found;
  // Two subqueries: SQLite reads min and max off the row-id B-tree only when each is alone in its query.
  const bounds = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('spans')
        .select((inner) => inner.fn.min('id').as('id'))
        .as('low'),
      eb
        .selectFrom('spans')
        .select((inner) => inner.fn.max('id').as('id'))
        .as('high'),
    ])
    .executeTakeFirst();
  if (bounds?.low == null || bounds.high == null) return found;
  const lowest = Math.floor(Number(bounds.low) / BUCKET_SIZE);
  for (let top = Math.floor(Number(bounds.high) / BUCKET_SIZE); top >= lowest && wanted.size > 0; top -= BUCKETS_PER_STATEMENT) {
    const buckets: number[] = [];
    for (let bucket = top; bucket > top - BUCKETS_PER_STATEMENT && bucket >= lowest; bucket--) buckets.push(bucket);
    const ids = [...wanted];
    for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
      const rows = await db
        .selectFrom('spans')
        .select(['id', 'span_id'])
        .where(BUCKET, 'in', buckets)
        .where('span_id', 'in', ids.slice(i, i + IDS_PER_STATEMENT))
        .execute();
      for (const row of rows) {
        const rowids = found.get(row.span_id);
        if (rowids) rowids.push(Number(row.id));
        else found.set(row.span_id, [Number(row.id)]);
      }
    }
    if (options.untilFound) for (const spanId of found.keys()) wanted.delete(spanId);
  }
  return found;
}

/** The newest span's row id (0 without spans): the jobs that follow the span writer read up to it. */
export async function maxSpanRowid(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('spans')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}
