/**
 * Turns a credential (bearer API key, bearer access token or access-token cookie) into a
 * Principal. Results are cached for at most 5 seconds, so ingest pays a hash and a map lookup;
 * `invalidate()` makes revocations on this replica take effect at once.
 */
import { TtlCache } from '@sightline/common';
import type { ApiKeysRepository } from '../db/repositories/api-keys-repository.js';
import type { LoginSessionsRepository } from '../db/repositories/login-sessions-repository.js';
import type { UserRecord, UsersRepository } from '../db/repositories/users-repository.js';
import { hashApiKey, looksLikeApiKey } from './api-key-secrets.js';
import type { JwtCodec } from './jwt.js';
import type { AuthUser, Principal } from './principal.js';

export const CREDENTIAL_CACHE_MS = 5_000;
const LAST_USED_RESOLUTION_MS = 60_000;

export interface Authenticator {
  /** The principal for an Authorization header value and/or access-token cookie, or null. */
  authenticate(authorization: string | undefined, accessCookie: string | undefined): Promise<Principal | null>;
  /** Forgets every cached result (after a logout, deletion, role or password change, key deletion). */
  invalidate(): void;
}

interface Dependencies {
  users: UsersRepository;
  apiKeys: ApiKeysRepository;
  sessions: LoginSessionsRepository;
  jwt: JwtCodec;
  onError?: (error: unknown) => void;
}

/** Public projection of a user record, as principals carry it. */
export function authUserOf(user: UserRecord): AuthUser {
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    role: user.role,
    authMethod: user.authMethod,
    passwordNeedsReset: user.passwordNeedsReset,
  };
}

/** An authenticator over the given repositories. */
export function createAuthenticator({ users, apiKeys, sessions, jwt, onError }: Dependencies): Authenticator {
  // Cached with the expiry of the credential itself, checked on every use.
  const cache = new TtlCache<{ principal: Principal | null; expiresAt: number }>(CREDENTIAL_CACHE_MS);
  const lastTouched = new Map<number, number>();

  const touch = (keyId: number, now: number) => {
    if ((lastTouched.get(keyId) ?? 0) + LAST_USED_RESOLUTION_MS > now) return;
    if (lastTouched.size > 10_000) lastTouched.clear();
    lastTouched.set(keyId, now);
    apiKeys.touch(keyId, new Date(now).toISOString()).catch((error: unknown) => onError?.(error));
  };

  const lookupApiKey = async (token: string): Promise<{ principal: Principal | null; expiresAt: number }> => {
    const key = await apiKeys.findByHash(hashApiKey(token));
    if (!key) return { principal: null, expiresAt: Infinity };
    const expiresAt = key.expiresAt ? Date.parse(key.expiresAt) : Infinity;
    if (key.kind === 'system') return { principal: { kind: 'system', apiKeyId: key.id }, expiresAt };
    if (!key.owner || key.owner.deleted) return { principal: null, expiresAt: Infinity };
    const owner = await users.findActiveById(key.owner.id);
    if (!owner) return { principal: null, expiresAt: Infinity };
    return { principal: { kind: 'user', user: authUserOf(owner), via: 'api-key', apiKeyId: key.id }, expiresAt };
  };

  const lookupAccessToken = async (token: string): Promise<{ principal: Principal | null; expiresAt: number }> => {
    const claims = await jwt.verify(token, 'access');
    if (!claims) return { principal: null, expiresAt: Infinity };
    const record = await sessions.findToken(claims.jti);
    if (record?.kind !== 'access' || record.sessionRevokedAt !== null || String(record.userId) !== claims.sub) {
      return { principal: null, expiresAt: Infinity };
    }
    const user = await users.findActiveById(record.userId);
    if (!user) return { principal: null, expiresAt: Infinity };
    return {
      principal: { kind: 'user', user: authUserOf(user), via: 'session', sessionId: record.sessionId },
      expiresAt: Math.min(Date.parse(record.expiresAt), claims.exp * 1000),
    };
  };

  return {
    async authenticate(authorization, accessCookie) {
      let token: string | undefined;
      if (authorization !== undefined) {
        const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
        if (!match) return null;
        token = match[1]!;
      } else {
        token = accessCookie;
      }
      if (!token) return null;
      const now = Date.now();
      const isKey = looksLikeApiKey(token);
      const cacheKey = isKey ? `k:${hashApiKey(token)}` : `t:${token}`;
      let result = cache.get(cacheKey, now);
      if (result === undefined) {
        result = isKey ? await lookupApiKey(token) : await lookupAccessToken(token);
        cache.set(cacheKey, result, now);
      }
      if (result.principal === null || result.expiresAt <= now) return null;
      const principal = result.principal;
      if (principal.kind === 'system' || (principal.kind === 'user' && principal.via === 'api-key')) touch(principal.apiKeyId, now);
      return principal;
    },
    invalidate: () => cache.clear(),
  };
}
