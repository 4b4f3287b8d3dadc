/** Login, token refresh with rotation and reuse detection, logout, and login lockout. */
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import type { LoginFailuresRepository } from '../db/repositories/login-failures-repository.js';
import type { SessionsRepository } from '../db/repositories/sessions-repository.js';
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
  sessions: SessionsRepository;
  loginFailures: LoginFailuresRepository;
  jwt: JwtCodec;
  authenticator: Authenticator;
}

export type SessionsService = ReturnType<typeof createSessionsService>;

/** The session service. */
export function createSessionsService({ config, users, sessions, loginFailures, jwt, authenticator }: Dependencies) {
  const issue = async (userId: number, sessionId: string, now: Date): Promise<IssuedTokens> => {
    const accessExpiresAt = new Date(now.getTime() + config.accessTokenExpiryMinutes * 60_000);
    const refreshExpiresAt = new Date(now.getTime() + config.refreshTokenExpiryMinutes * 60_000);
    const accessJti = randomUUID();
    const refreshJti = randomUUID();
    await sessions.insertToken(accessJti, sessionId, 'access', now.toISOString(), accessExpiresAt.toISOString());
    await sessions.insertToken(refreshJti, sessionId, 'refresh', now.toISOString(), refreshExpiresAt.toISOString());
    const sub = String(userId);
    return {
      accessToken: await jwt.sign({ jti: accessJti, sub, sid: sessionId, typ: 'access' }, accessExpiresAt),
      refreshToken: await jwt.sign({ jti: refreshJti, sub, sid: sessionId, typ: 'refresh' }, refreshExpiresAt),
      accessExpiresAt,
      refreshExpiresAt,
    };
  };

  const recordFailure = async (email: string, now: Date) => {
    const current = await loginFailures.find(email);
    const windowOpen = current && now.getTime() - Date.parse(current.windowStartedAt) < LOCKOUT_WINDOW_MS;
    const failures = windowOpen ? current.failures + 1 : 1;
    await loginFailures.save(email, {
      failures,
      windowStartedAt: windowOpen ? current.windowStartedAt : now.toISOString(),
      lockedUntil: failures >= LOCKOUT_FAILURES ? new Date(now.getTime() + LOCKOUT_DURATION_MS).toISOString() : null,
    });
  };

  return {
    /** Opens a session for a local user, or throws 401 (same text for every failure) / 429 when locked out. */
    async login(rawEmail: unknown, password: unknown, now = new Date()): Promise<IssuedTokens> {
      const email = typeof rawEmail === 'string' ? normalizeEmail(rawEmail) : '';
      const secret = typeof password === 'string' ? password : '';
      const failures = email ? await loginFailures.find(email) : undefined;
      if (failures?.lockedUntil && Date.parse(failures.lockedUntil) > now.getTime()) {
        const seconds = Math.ceil((Date.parse(failures.lockedUntil) - now.getTime()) / 1000);
        throw new TooManyRequestsError(`too many failed logins for this email; try again in ${seconds} seconds`, seconds);
      }
      const user = email ? await users.findByEmail(email) : undefined;
      const usable = user && user.deletedAt === null && user.authMethod === 'LOCAL' && user.passwordHash && user.passwordSalt;
      let ok = false;
      if (usable && secret !== '') {
        ok = await verifyPassword(secret, { hash: user.passwordHash!, salt: user.passwordSalt! });
      } else {
        await verifyNothing(secret || 'x'); // same time as a real check, so the answer reveals nothing
      }
      if (!ok || !user) {
        if (email) await recordFailure(email, now);
        throw new UnauthenticatedError(INVALID_CREDENTIALS);
      }
      await loginFailures.clear(email);
      const sessionId = randomUUID();
      const refreshExpiresAt = new Date(now.getTime() + config.refreshTokenExpiryMinutes * 60_000);
      await sessions.createSession(sessionId, user.id, now.toISOString(), refreshExpiresAt.toISOString());
      return issue(user.id, sessionId, now);
    },

    /** Opens a session for a user already authenticated elsewhere (an identity provider). */
    async openSession(userId: number, now = new Date()): Promise<IssuedTokens> {
      const sessionId = randomUUID();
      const refreshExpiresAt = new Date(now.getTime() + config.refreshTokenExpiryMinutes * 60_000);
      await sessions.createSession(sessionId, userId, now.toISOString(), refreshExpiresAt.toISOString());
      return issue(userId, sessionId, now);
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
      const firstUse = record.usedAt === null && (await sessions.markUsed(claims.jti, now.toISOString()));
      if (!firstUse) {
        await sessions.revokeSession(record.sessionId, now.toISOString());
        authenticator.invalidate();
        throw new UnauthenticatedError('this refresh token was already used; the session has been revoked for safety');
      }
      return issue(user.id, record.sessionId, now);
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
