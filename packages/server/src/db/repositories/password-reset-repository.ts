/** SQL for password reset tokens. */
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

export interface ResetTokenRecord {
  userId: number;
  expiresAt: string;
  usedAt: string | null;
}

export type PasswordResetRepository = ReturnType<typeof createPasswordResetRepository>;

/** Password reset tokens repository over a Kysely connection (or transaction). */
export function createPasswordResetRepository(db: Kysely<DB>) {
  return {
    /** Stores a new token and drops the user's older ones, so only the newest works. */
    async replace(userId: number, tokenHash: string, now: string, expiresAt: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('password_reset_tokens').where('user_id', '=', userId).execute();
        await trx
          .insertInto('password_reset_tokens')
          .values({ token_hash: tokenHash, user_id: userId, created_at: now, expires_at: expiresAt })
          .execute();
      });
    },
    async find(tokenHash: string): Promise<ResetTokenRecord | undefined> {
      const row = await db.selectFrom('password_reset_tokens').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row && { userId: Number(row.user_id), expiresAt: row.expires_at, usedAt: row.used_at };
    },
    /** Marks the token used; false when it already was (two resets racing). */
    async markUsed(tokenHash: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('password_reset_tokens')
        .set({ used_at: now })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
