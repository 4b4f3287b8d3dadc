/**
 * The SQL of OTLP log records waiting to become events of their span (migration 0031,
 * docs/ingest.md "Logs"). On SQLite the writes run on the writer thread
 * (db/writer/span-log-events-writes-sqlite.ts, same statements); the reads run here on both.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import { chunks, MAX_IN_LIST } from '../chunks.js';
import type { DB } from '../schema.js';
import { parseJsonColumn } from '../sql-dialect.js';

/** A log record to keep until its span exists. */
export interface NewSpanLogEvent {
  traceId: string;
  spanId: string;
  name: string;
  /** Nanoseconds since 1970, as decimal text. */
  time: string;
  /** JSON object. */
  attributes: string;
}

/** A waiting record whose span exists now, with what the job needs of the span. */
export interface AttachableLogEvent {
  id: number;
  name: string;
  time: string;
  attributes: Record<string, unknown>;
  spanRowid: number;
  spanStartTime: string;
  spanKind: string;
  spanAttributes: Record<string, unknown>;
  spanLongAttributes: Buffer | null;
  spanEvents: unknown[];
}

/** What the job writes back to a span. */
export interface SpanEventsUpdate {
  spanRowid: number;
  spanStartTime: string;
  spanKind: string;
  attributes: string;
  longAttributes: Buffer | null;
  events: string;
}

/** Expired records deleted per run of the job, so that one run stays short. */
export const EXPIRED_PER_RUN = 1000;

export type SpanLogEventsRepository = ReturnType<typeof createSpanLogEventsRepository>;

export function createSpanLogEventsRepository(db: Kysely<DB>, dialect: Dialect) {
  return {
    /** Keeps records for the job (PostgreSQL; SQLite's writer thread does the same). */
    async insert(events: NewSpanLogEvent[], receivedAt: string): Promise<void> {
      // Six values a row: 150 rows a statement stays far below both databases' parameter limits.
      for (const chunk of chunks(events, 150)) {
        await db
          .insertInto('span_log_events')
          .values(
            chunk.map((event) => ({
              trace_id: event.traceId,
              span_id: event.spanId,
              name: event.name,
              time: event.time,
              attributes: event.attributes,
              received_at: receivedAt,
            })),
          )
          .execute();
      }
    },

    /** The oldest waiting records whose span exists, at most `limit`, oldest first. */
    async attachable(limit: number): Promise<AttachableLogEvent[]> {
      const query = db.selectFrom('span_log_events as e');
      const joined =
        dialect === 'postgres'
          ? query
              .innerJoin('trace_ids as t', 't.trace_id', 'e.trace_id')
              .innerJoin('spans as s', (join) => join.onRef('s.trace_rowid', '=', 't.trace_rowid').onRef('s.span_id', '=', 'e.span_id'))
          : query
              .innerJoin('traces as t', 't.trace_id', 'e.trace_id')
              .innerJoin('spans as s', (join) => join.onRef('s.trace_rowid', '=', 't.id').onRef('s.span_id', '=', 'e.span_id'));
      const rows = await joined
        .select([
          'e.id',
          'e.name',
          'e.time',
          'e.attributes',
          's.id as span_rowid',
          's.start_time as span_start_time',
          's.span_kind',
          's.attributes as span_attributes',
          's.long_attributes as span_long_attributes',
          's.events as span_events',
        ])
        .orderBy('e.id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        name: row.name,
        time: String(row.time),
        attributes: parseJsonColumn<Record<string, unknown>>(row.attributes, {}),
        spanRowid: Number(row.span_rowid),
        spanStartTime: String(row.span_start_time),
        spanKind: row.span_kind,
        spanAttributes: parseJsonColumn<Record<string, unknown>>(row.span_attributes, {}),
        spanLongAttributes: row.span_long_attributes,
        spanEvents: parseJsonColumn<unknown[]>(row.span_events, []),
      }));
    },

    /**
     * Writes the spans' new events and attributes, forgets the records they took and at most
     * EXPIRED_PER_RUN records received before `expireBefore` (their span never came), in the
     * caller's transaction (PostgreSQL; SQLite's writer thread does the same).
     */
    async attach(updates: SpanEventsUpdate[], attachedIds: number[], expireBefore: string): Promise<void> {
      for (const update of updates) {
        await db
          .updateTable('spans')
          .set({
            attributes: update.attributes,
            long_attributes: update.longAttributes,
            events: update.events,
            span_kind: update.spanKind,
          })
          .where('id', '=', update.spanRowid)
          // The partition key, so PostgreSQL looks in one day's partition only.
          .where('start_time', '=', update.spanStartTime)
          .execute();
      }
      for (const ids of chunks(attachedIds, MAX_IN_LIST)) await db.deleteFrom('span_log_events').where('id', 'in', ids).execute();
      await db
        .deleteFrom('span_log_events')
        .where('id', 'in', (eb) =>
          eb.selectFrom('span_log_events').select('id').where('received_at', '<', expireBefore).orderBy('id').limit(EXPIRED_PER_RUN),
        )
        .execute();
    },
  };
}
