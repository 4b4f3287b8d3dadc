/**
 * SQL of the conversion of spans written before migration 0019 (ingest/long-attributes-job.ts):
 * their JSON column still holds every attribute; converted, it keeps the short ones and
 * `long_attributes` the rest (span-model/long-attributes.ts). The job's progress is in `job_state`.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import type { DB } from '../schema.js';
import { parseJsonColumn } from '../sql-dialect.js';

/** job_state rows written by migration 0019: the newest row id that may need converting, and how far the job has come. */
export const LONG_ATTRIBUTES_LAST = 'long-attributes.last';
export const LONG_ATTRIBUTES_DONE = 'long-attributes.done';

/** A span to convert: its row id and every attribute, as the JSON column holds them. */
export interface UnconvertedSpan {
  id: number;
  attributes: Record<string, unknown>;
}

/** A converted span: the JSON column's new text and its long values. */
export interface ConvertedSpan {
  id: number;
  attributes: string;
  longAttributes: Buffer;
}

export type LongAttributesRepository = ReturnType<typeof createLongAttributesRepository>;

/** The conversion's SQL over a Kysely connection (or transaction). */
export function createLongAttributesRepository(db: Kysely<DB>, dialect: Dialect) {
  const readState = async (name: string): Promise<number> =>
    Number((await db.selectFrom('job_state').select('value').where('name', '=', name).executeTakeFirst())?.value ?? 0);

  return {
    /** The newest row id that may need converting (0: none) and the last one converted. */
    async progress(): Promise<{ last: number; done: number }> {
      return { last: await readState(LONG_ATTRIBUTES_LAST), done: await readState(LONG_ATTRIBUTES_DONE) };
    },

    /** Spans with row ids in (afterId, upToId] not converted yet, in id order, at most `limit`. */
    async unconverted(afterId: number, upToId: number, limit: number): Promise<UnconvertedSpan[]> {
      const rows = await db
        .selectFrom('spans')
        .select(['id', 'attributes'])
        .where('id', '>', afterId)
        .where('id', '<=', upToId)
        .where('long_attributes', 'is', null)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ id: Number(row.id), attributes: parseJsonColumn<Record<string, unknown>>(row.attributes, {}) }));
    },

    /**
     * Stores converted spans and the progress (PostgreSQL; on SQLite the writer thread does, see
     * long-attributes-writes-sqlite.ts). A span converted meanwhile (another replica) is left alone.
     */
    async store(spans: ConvertedSpan[], done: number): Promise<void> {
      if (spans.length > 0) {
        if (dialect === 'postgres') {
          await sql`UPDATE spans SET attributes = cast(u.a as jsonb), long_attributes = u.la
            FROM unnest(${spans.map((span) => span.id)}::bigint[], ${spans.map((span) => span.attributes)}::text[], ${spans.map((span) => span.longAttributes)}::bytea[]) AS u(id, a, la)
            WHERE spans.id = u.id AND spans.long_attributes IS NULL`.execute(db);
        } else {
          for (const span of spans) {
            await db
              .updateTable('spans')
              .set({ attributes: span.attributes, long_attributes: span.longAttributes })
              .where('id', '=', span.id)
              .where('long_attributes', 'is', null)
              .execute();
          }
        }
      }
      await db
        .updateTable('job_state')
        .set({ value: String(done) })
        .where('name', '=', LONG_ATTRIBUTES_DONE)
        .execute();
    },
  };
}
