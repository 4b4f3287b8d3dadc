/** Login, token refresh with rotation and reuse detection, logout, and login lockout. */
import type { WithTransaction } from '../db/repositories/index.js';
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import type { LoginFailuresRepository } from '../db/repositories/login-failures-repository.js';
import type { LoginSessionsRepository } from '../db/repositories/login-sessions-repository.js';
import type { UsersRepository } from '../db/repositories/users-repository.js';
import { TooManyRequestsError, UnauthenticatedError } from '@sightline/common';
import type { Authenticator } from './authenticator.js';
import type { JwtCodec } from './jwt.js';
import { verifyNothing, verifyPassword } from './passwords.js';
import { normalizeEmail } from './emails.js';

export const LOCKOUT_FAILURES = 5;
export const LOCKOUT_WINDOW_MS = 5 * 60_000;
export const LOCKOUT_DURATION_MS = 5 * 60_000;
const INVALID_CREDENTIALS = 'Invalid email and/or password';

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  accessExpiresAt: Date;
  refreshExpiresAt: Date;
}

interface Dependencies {
  config: Pick<Config, 'accessTokenExpiryMinutes' | 'refreshTokenExpiryMinutes'>;
  users: UsersRepository;
  sessions: LoginSessionsRepository;
  loginFailures: LoginFailuresRepository;
  withTransaction: WithTransaction;
  jwt: JwtCodec;
  authenticator: Authenticator;
}

export type LoginSessionsService = ReturnType<typeof createLoginSessionsService>;

/** The session service. */
export function createLoginSessionsService({ config, users, sessions, loginFailures, withTransaction, jwt, authenticator }: Dependencies) {
  /** Signs a new access and refresh token for the session (no database work). */
  const sign = async (userId: number, sessionId: string, now: Date) => {
    const accessExpiresAt = new Date(now.getTime() + config.accessTokenExpiryMinutes * 60_000);
    const refreshExpiresAt = new Date(now.getTime() + config.refreshTokenExpiryMinutes * 60_000);
    const accessJti = randomUUID();
    const refreshJti = randomUUID();
    const sub = String(userId);
    const tokens: IssuedTokens = {
      accessToken: await jwt.sign({ jti: accessJti, sub, sid: sessionId, typ: 'access' }, accessExpiresAt),
      refreshToken: await jwt.sign({ jti: refreshJti, sub, sid: sessionId, typ: 'refresh' }, refreshExpiresAt),
      accessExpiresAt,
      refreshExpiresAt,
    };
    /** Writes the records behind both tokens (inside the caller's transaction). */
    const record = async (repository: LoginSessionsRepository) => {
      await repository.insertToken(accessJti, sessionId, 'access', now.toISOString(), accessExpiresAt.toISOString());
      await repository.insertToken(refreshJti, sessionId, 'refresh', now.toISOString(), refreshExpiresAt.toISOString());
    };
    return { tokens, record };
  };

  /** A new session and its two tokens, written in one transaction: never a session without tokens, or the reverse. */
  const openSession = async (userId: number, now: Date): Promise<IssuedTokens> => {
    const sessionId = randomUUID();
    const { tokens, record } = await sign(userId, sessionId, now);
    await withTransaction(async (trx) => {
      await trx.loginSessions.createSession(sessionId, userId, now.toISOString(), tokens.refreshExpiresAt.toISOString());
      await record(trx.loginSessions);
    });
    return tokens;
  };

  /** Counts the attempt first (one atomic statement), so parallel guesses share the limit; throws 429 past it. */
  const admitAttempt = async (email: string, now: Date, tooMany = 'too many failed logins for this email'): Promise<void> => {
    const state = await loginFailures.recordAttempt(email, {
      now: now.toISOString(),
      windowStart: new Date(now.getTime() - LOCKOUT_WINDOW_MS).toISOString(),
      lockUntil: new Date(now.getTime() + LOCKOUT_DURATION_MS).toISOString(),
      lockAt: LOCKOUT_FAILURES,
    });
    if (state.attempts <= LOCKOUT_FAILURES) return;
    const until = state.lockedUntil ? Date.parse(state.lockedUntil) : now.getTime() + LOCKOUT_DURATION_MS;
    // A parallel attempt may have taken the lock a moment after this one's clock: never say more than the lock's length.
    const seconds = Math.min(LOCKOUT_DURATION_MS / 1000, Math.max(1, Math.ceil((until - now.getTime()) / 1000)));
    throw new TooManyRequestsError(`${tooMany}; try again in ${seconds} seconds`, seconds);
  };

  return {
    /** Opens a session for a local user, or throws 401 (same text for every failure) / 429 when locked out. */
    async login(rawEmail: unknown, password: unknown, now = new Date()): Promise<IssuedTokens> {
      const email = typeof rawEmail === 'string' ? normalizeEmail(rawEmail) : '';
      const secret = typeof password === 'string' ? password : '';
      // The attempt counts before the password is checked: N parallel wrong guesses get at most
      // LOCKOUT_FAILURES checks, and a success forgets the count.
      if (email) await admitAttempt(email, now);
      const user = email ? await users.findByEmail(email) : undefined;
      const usable = user && user.deletedAt === null && user.authMethod === 'LOCAL' && user.passwordHash && user.passwordSalt;
      let ok = false;
      if (usable && secret !== '') {
        ok = await verifyPassword(secret, { hash: user.passwordHash!, salt: user.passwordSalt! });
      } else {
        await verifyNothing(secret || 'x'); // same time as a real check, so the answer reveals nothing
      }
      if (!ok || !user) throw new UnauthenticatedError(INVALID_CREDENTIALS);
      await loginFailures.clear(email);
      return openSession(user.id, now);
    },

    /**
     * Counts a guess of a signed-in user's current password (a password change) under the same
     * per-email limit as login: a stolen session cannot try passwords faster than a login form
     * (docs/auth.md, "Protection against guessing and forgery"). Throws 429 past it.
     */
    admitPasswordGuess(rawEmail: string, now = new Date()): Promise<void> {
      return admitAttempt(normalizeEmail(rawEmail), now, 'too many wrong passwords for this account');
    },

    /**
     * Counts a login attempt under another key than an email (an LDAP username, `ldap:<name>`),
     * under the same limit of LOCKOUT_FAILURES per LOCKOUT_WINDOW_MS. Throws 429 past it.
     */
    admitLoginAttempt(key: string, now = new Date()): Promise<void> {
      return admitAttempt(key, now, 'too many failed logins for this username');
    },

    /** Forgets a key's counted attempts (the login succeeded). */
    forgetLoginAttempts(key: string): Promise<void> {
      return loginFailures.clear(key);
    },

    /** Forgets the email's counted guesses (the right password was given). */
    forgetPasswordGuesses(rawEmail: string): Promise<void> {
      return loginFailures.clear(normalizeEmail(rawEmail));
    },

    /** Opens a session for a user already authenticated elsewhere (an identity provider). */
    openSession(userId: number, now = new Date()): Promise<IssuedTokens> {
      return openSession(userId, now);
    },

    /** Rotates a refresh token; a token presented twice revokes its whole session. */
    async refresh(refreshToken: string | undefined, now = new Date()): Promise<IssuedTokens> {
      const invalid = () => new UnauthenticatedError('the refresh token is missing, expired or revoked; log in again');
      if (!refreshToken) throw invalid();
      const claims = await jwt.verify(refreshToken, 'refresh');
      if (!claims) throw invalid();
      const record = await sessions.findToken(claims.jti);
      if (record?.kind !== 'refresh' || record.sessionRevokedAt !== null) throw invalid();
      if (Date.parse(record.expiresAt) <= now.getTime()) throw invalid();
      const user = await users.findActiveById(record.userId);
      if (!user) throw invalid();
      // Marking the old token used and recording the new ones is one transaction: a failure leaves the old one usable.
      const next = await sign(user.id, record.sessionId, now);
      const firstUse =
        record.usedAt === null &&
        (await withTransaction(async (trx) => {
          if (!(await trx.loginSessions.markUsed(claims.jti, now.toISOString()))) return false;
          await next.record(trx.loginSessions);
          return true;
        }));
      if (!firstUse) {
        await sessions.revokeSession(record.sessionId, now.toISOString());
        authenticator.invalidate();
        throw new UnauthenticatedError('this refresh token was already used; the session has been revoked for safety');
      }
      return next.tokens;
    },

    /** Revokes the session the given access or refresh token belongs to (if any). */
    async logout(accessToken: string | undefined, refreshToken: string | undefined, now = new Date()): Promise<void> {
      const claims =
        (accessToken && (await jwt.verify(accessToken, 'access'))) || (refreshToken && (await jwt.verify(refreshToken, 'refresh')));
      if (!claims) return;
      const record = await sessions.findToken(claims.jti);
      if (!record) return;
      await sessions.revokeSession(record.sessionId, now.toISOString());
      authenticator.invalidate();
    },

    /** Revokes every session of a user (password change, role change, deletion). */
    async revokeAll(userId: number, now = new Date()): Promise<void> {
      await sessions.revokeUserSessions(userId, now.toISOString());
      authenticator.invalidate();
    },
  };
}
