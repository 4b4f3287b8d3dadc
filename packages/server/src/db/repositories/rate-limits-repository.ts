/** SQL for per-client request counts of rate-limited routes (shared by every replica of the database). */
import { type Kysely, sql } from 'kysely';
import type { DB } from '../schema.js';

export interface RateLimitWindow {
  /** Requests counted in the current window, this one included. */
  hits: number;
  /** When the current window started (milliseconds since the epoch). */
  windowStartedAt: number;
}

export type RateLimitsRepository = ReturnType<typeof createRateLimitsRepository>;

/** Rate limits repository over a Kysely connection. */
export function createRateLimitsRepository(db: Kysely<DB>) {
  return {
    /**
     * Counts one more request in the bucket in ONE statement, so requests reaching different
     * replicas at once can neither lose an increment nor see the same count: a window older
     * than `windowMs` starts again at 1.
     */
    async hit(bucket: string, nowMs: number, windowMs: number): Promise<RateLimitWindow> {
      const expired = sql<boolean>`rate_limits.window_started_at <= ${nowMs - windowMs}`;
      const row = await db
        .insertInto('rate_limits')
        .values({ bucket, hits: 1, window_started_at: nowMs })
        .onConflict((oc) =>
          oc.column('bucket').doUpdateSet({
            hits: sql`CASE WHEN ${expired} THEN 1 ELSE rate_limits.hits + 1 END`,
            window_started_at: sql`CASE WHEN ${expired} THEN ${nowMs} ELSE rate_limits.window_started_at END`,
          }),
        )
        .returning(['hits', 'window_started_at'])
        .executeTakeFirstOrThrow();
      return { hits: Number(row.hits), windowStartedAt: Number(row.window_started_at) };
    },

    /** Deletes the buckets whose window started before the time (they count from 1 again anyway). */
    async deleteStartedBefore(beforeMs: number): Promise<number> {
      const result = await db.deleteFrom('rate_limits').where('window_started_at', '<', beforeMs).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
