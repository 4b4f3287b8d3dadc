/** SQL for failed-login counting per email (the lockout survives restarts and spans replicas). */
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

export interface LoginFailures {
  failures: number;
  windowStartedAt: string;
  lockedUntil: string | null;
}

export type LoginFailuresRepository = ReturnType<typeof createLoginFailuresRepository>;

/** Login failures repository over a Kysely connection. */
export function createLoginFailuresRepository(db: Kysely<DB>) {
  return {
    async find(email: string): Promise<LoginFailures | undefined> {
      const row = await db.selectFrom('login_failures').selectAll().where('email', '=', email).executeTakeFirst();
      return row && { failures: Number(row.failures), windowStartedAt: row.window_started_at, lockedUntil: row.locked_until };
    },
    async save(email: string, state: LoginFailures): Promise<void> {
      const values = { failures: state.failures, window_started_at: state.windowStartedAt, locked_until: state.lockedUntil };
      await db
        .insertInto('login_failures')
        .values({ email, ...values })
        .onConflict((oc) => oc.column('email').doUpdateSet(values))
        .execute();
    },
    async clear(email: string): Promise<void> {
      await db.deleteFrom('login_failures').where('email', '=', email).execute();
    },
  };
}
