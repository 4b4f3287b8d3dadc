/** SQL for login sessions and the token records behind every access and refresh JWT. */
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

export interface TokenLookup {
  jti: string;
  kind: 'access' | 'refresh';
  sessionId: string;
  userId: number;
  expiresAt: string;
  usedAt: string | null;
  sessionExpiresAt: string;
  sessionRevokedAt: string | null;
}

export type LoginSessionsRepository = ReturnType<typeof createLoginSessionsRepository>;

/** Sessions repository over a Kysely connection (or transaction). */
export function createLoginSessionsRepository(db: Kysely<DB>) {
  return {
    async createSession(id: string, userId: number, now: string, expiresAt: string): Promise<void> {
      await db.insertInto('sessions').values({ id, user_id: userId, created_at: now, expires_at: expiresAt }).execute();
    },
    async insertToken(jti: string, sessionId: string, kind: 'access' | 'refresh', now: string, expiresAt: string): Promise<void> {
      await db.insertInto('auth_tokens').values({ jti, session_id: sessionId, kind, created_at: now, expires_at: expiresAt }).execute();
    },
    async findToken(jti: string): Promise<TokenLookup | undefined> {
      const row = await db
        .selectFrom('auth_tokens')
        .innerJoin('sessions', 'sessions.id', 'auth_tokens.session_id')
        .select([
          'auth_tokens.jti',
          'auth_tokens.kind',
          'auth_tokens.session_id',
          'sessions.user_id',
          'auth_tokens.expires_at',
          'auth_tokens.used_at',
          'sessions.expires_at as session_expires_at',
          'sessions.revoked_at',
        ])
        .where('auth_tokens.jti', '=', jti)
        .executeTakeFirst();
      return (
        row && {
          jti: row.jti,
          kind: row.kind,
          sessionId: row.session_id,
          userId: Number(row.user_id),
          expiresAt: row.expires_at,
          usedAt: row.used_at,
          sessionExpiresAt: row.session_expires_at,
          sessionRevokedAt: row.revoked_at,
        }
      );
    },
    /** Marks a refresh token used; false when it already was (a replay). */
    async markUsed(jti: string, now: string): Promise<boolean> {
      const result = await db
        .updateTable('auth_tokens')
        .set({ used_at: now })
        .where('jti', '=', jti)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async revokeSession(id: string, now: string): Promise<void> {
      await db.updateTable('sessions').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
    },
    async revokeUserSessions(userId: number, now: string): Promise<void> {
      await db.updateTable('sessions').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
    },
  };
}
