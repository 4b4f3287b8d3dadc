/** The auth cookies and their attributes (docs/auth.md, "Credentials"). */
import type { FastifyReply } from 'fastify';
import type {} from '@fastify/cookie';
import type { Config } from '../config.js';
import type { IssuedTokens } from '../auth/login-sessions-service.js';

export const ACCESS_COOKIE = 'sightline-access-token';
export const REFRESH_COOKIE = 'sightline-refresh-token';
export const OAUTH2_COOKIES = ['sightline-oauth2-state', 'sightline-oauth2-nonce', 'sightline-oauth2-code-verifier'] as const;

type CookieConfig = Pick<Config, 'hostRootPath' | 'useSecureCookies'>;

const base = (config: CookieConfig) => ({
  httpOnly: true,
  sameSite: 'strict' as const,
  path: config.hostRootPath || '/',
  secure: config.useSecureCookies,
});

/** Sets both session cookies, each living as long as its token. */
export function setSessionCookies(reply: FastifyReply, config: CookieConfig, tokens: IssuedTokens, now = Date.now()): void {
  reply.setCookie(ACCESS_COOKIE, tokens.accessToken, {
    ...base(config),
    maxAge: Math.floor((tokens.accessExpiresAt.getTime() - now) / 1000),
  });
  reply.setCookie(REFRESH_COOKIE, tokens.refreshToken, {
    ...base(config),
    maxAge: Math.floor((tokens.refreshExpiresAt.getTime() - now) / 1000),
  });
}

/** Clears every auth cookie (session and OAuth2 flow). */
export function clearAuthCookies(reply: FastifyReply, config: CookieConfig): void {
  for (const name of [ACCESS_COOKIE, REFRESH_COOKIE]) reply.clearCookie(name, base(config));
  for (const name of OAUTH2_COOKIES) reply.clearCookie(name, { ...base(config), sameSite: 'lax' });
}
