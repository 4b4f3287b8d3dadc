/** SQL for failed-login counting per email (the lockout survives restarts and spans replicas). */
import { type Kysely, sql } from 'kysely';
import type { DB } from '../schema.js';

export interface LoginAttempts {
  /** Attempts counted in the current window, this one included. */
  attempts: number;
  windowStartedAt: string;
  lockedUntil: string | null;
}

export interface AttemptRules {
  /** Now, as an ISO 8601 UTC string (the stored times have the same form, so they compare as text). */
  now: string;
  /** Window start before which earlier attempts no longer count. */
  windowStart: string;
  /** When a lock taken by this attempt ends. */
  lockUntil: string;
  /** The attempt count that takes the lock. */
  lockAt: number;
}

export type LoginFailuresRepository = ReturnType<typeof createLoginFailuresRepository>;

/** Login failures repository over a Kysely connection. */
export function createLoginFailuresRepository(db: Kysely<DB>) {
  return {
    /**
     * Counts one more attempt for the email in ONE statement, so parallel attempts can neither
     * lose an increment nor see the same count: a window that has passed (and whose lock has
     * ended) starts again at 1, and the attempt that reaches `lockAt` sets the lock.
     */
    async recordAttempt(email: string, rules: AttemptRules): Promise<LoginAttempts> {
      const fresh = sql<boolean>`(login_failures.window_started_at <= ${rules.windowStart}
        AND (login_failures.locked_until IS NULL OR login_failures.locked_until <= ${rules.now}))`;
      const next = sql<number>`CASE WHEN ${fresh} THEN 1 ELSE login_failures.failures + 1 END`;
      const row = await db
        .insertInto('login_failures')
        .values({ email, failures: 1, window_started_at: rules.now, locked_until: rules.lockAt <= 1 ? rules.lockUntil : null })
        .onConflict((oc) =>
          oc.column('email').doUpdateSet({
            failures: next,
            window_started_at: sql`CASE WHEN ${fresh} THEN ${rules.now} ELSE login_failures.window_started_at END`,
            locked_until: sql`CASE WHEN ${fresh} THEN NULL WHEN ${next} = ${rules.lockAt} THEN ${rules.lockUntil} ELSE login_failures.locked_until END`,
          }),
        )
        .returning(['failures', 'window_started_at', 'locked_until'])
        .executeTakeFirstOrThrow();
      return { attempts: Number(row.failures), windowStartedAt: row.window_started_at, lockedUntil: row.locked_until };
    },

    /** Forgets the email's attempts (after a successful login). */
    async clear(email: string): Promise<void> {
      await db.deleteFrom('login_failures').where('email', '=', email).execute();
    },
  };
}
