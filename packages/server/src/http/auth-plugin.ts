/**
 * Enforces the permission table on every request: CSRF origin check, credential check, role,
 * session-only actions and the pending password change. Start-up fails if a route has no row.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type {} from '@fastify/cookie';
import type { Config } from '../config.js';
import { ForbiddenError, UnauthenticatedError } from '@sightline/common';
import type { Authenticator } from '../auth/authenticator.js';
import { ACCESS_COOKIE, REFRESH_COOKIE } from './cookies.js';
import { isSameOriginRequest, isTrustedRequest } from '../auth/csrf.js';
import { ruleFor, type RouteRule } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling; `anonymous` with auth off or on public routes without a credential. */
    principal: Principal;
  }
  interface FastifyContextConfig {
    permission?: RouteRule;
    /** A GET that changes state (GET /auth/logout, as the contract has it): the CSRF check applies as to a POST. */
    changesState?: boolean;
  }
}

const ANONYMOUS: Principal = { kind: 'anonymous' };
/** Methods that change nothing (the routes keep to it), so a cross-site read is harmless: its answer is not readable. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The route's table key: its pattern without the root path; HEAD follows GET. */
export function routeKeyParts(method: string, url: string, rootPath: string): [string, string] {
  const pattern = rootPath && url.startsWith(rootPath) ? url.slice(rootPath.length) || '/' : url;
  return [method === 'HEAD' ? 'GET' : method, pattern];
}

export interface AuthPluginOptions {
  config: Config;
  authenticator: Authenticator;
}

async function authPlugin(app: FastifyInstance, { config, authenticator }: AuthPluginOptions) {
  app.decorateRequest('principal', null as never);

  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const [tableMethod, pattern] = routeKeyParts(method, route.url, config.hostRootPath);
      const rule = ruleFor(tableMethod, pattern);
      if (!rule) throw new Error(`route ${method} ${route.url} has no row in the permission table (src/auth/permissions.ts)`);
      route.config = { ...(route.config as object), permission: rule };
    }
  });

  /**
   * The server's own origins: SERVICE_ROOT_URL's, and the one the request was sent to (its Host, and
   * its scheme; both from X-Forwarded-* only behind a trusted proxy). A browser page cannot choose
   * the Host it sends, and cookies for this server go only to its own host names.
   */
  const ownOrigins = (request: FastifyRequest): string[] => {
    const requested = request.host ? [`${request.protocol}://${request.host}`] : [];
    return config.rootUrl ? [config.rootUrl, ...requested] : requested;
  };

  app.addHook('onRequest', async (request) => {
    request.principal = ANONYMOUS;
    const own = ownOrigins(request);
    if (!isTrustedRequest(config.csrfTrustedOrigins, own, request.headers.origin, request.headers.referer)) {
      throw new ForbiddenError('untrusted origin');
    }
    if (
      (!SAFE_METHODS.has(request.method) || request.routeOptions.config.changesState === true) &&
      request.headers.authorization === undefined &&
      (request.cookies[ACCESS_COOKIE] !== undefined || request.cookies[REFRESH_COOKIE] !== undefined) &&
      !isSameOriginRequest(config.csrfTrustedOrigins, own, {
        origin: request.headers.origin,
        referer: request.headers.referer,
        secFetchSite: header(request.headers['sec-fetch-site']),
      })
    ) {
      throw new ForbiddenError(
        "untrusted origin: a change made with your session must come from Sightline's own pages (or an origin in SERVICE_CSRF_TRUSTED_ORIGINS)",
      );
    }
    const rule = request.routeOptions.config.permission;
    if (!rule) return; // unknown route: the not-found handler answers
    if (!config.enableAuth) {
      if (rule.authOnly) throw new ForbiddenError('authentication is not enabled');
      return;
    }
    if (rule.access === 'public') return;
    const principal = await authenticator.authenticate(request.headers.authorization, request.cookies[ACCESS_COOKIE]);
    if (!principal) throw new UnauthenticatedError('a valid API key or session is required');
    request.principal = principal;
    enforce(rule, principal);
  });
}

/** Throws 403 unless the principal satisfies the rule. */
export function enforce(rule: RouteRule, principal: Principal): void {
  if (principal.kind === 'anonymous') return;
  if (rule.access === 'user' || rule.access === 'admin') {
    if (principal.kind !== 'user') throw new ForbiddenError('a system API key cannot do this; use a user session or user API key');
    if (rule.access === 'admin' && principal.user.role !== 'admin') throw new ForbiddenError('only admins can do this');
  }
  if (rule.access === 'data-admin' && principal.kind === 'user' && principal.user.role !== 'admin') {
    throw new ForbiddenError('only admins (or system API keys) can delete project data');
  }
  if (rule.sessionOnly && !(principal.kind === 'user' && principal.via === 'session')) {
    throw new ForbiddenError('an API key cannot create API keys; sign in to do this');
  }
  if (principal.kind === 'user' && principal.via === 'session' && principal.user.passwordNeedsReset && !rule.duringPasswordReset) {
    throw new ForbiddenError('password change required');
  }
}

export default fp(authPlugin, { name: 'sightline-auth', dependencies: ['@fastify/cookie'] });
