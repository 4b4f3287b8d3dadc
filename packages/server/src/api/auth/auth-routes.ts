/** `/auth/*`: configuration for the login page, login, logout and token refresh. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authRateLimit } from '../shared/rate-limits.js';
import type {} from '@fastify/cookie';
import type {} from '@fastify/rate-limit';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../../config.js';
import { ACCESS_COOKIE, REFRESH_COOKIE, clearAuthCookies, setSessionCookies } from '../../http/cookies.js';
import type { LoginSessionsService } from '../../auth/login-sessions-service.js';
import type { LdapLoginService } from '../../auth/ldap-login-service.js';
import { NotFoundError, UnauthenticatedError } from '@sightline/common';
import { AuthConfig, NoContent, Redirect } from './auth-schemas.js';
import { errors } from '../shared/schemas.js';

export interface AuthRoutesOptions {
  config: Config;
  sessions: LoginSessionsService;
  /** null when LDAP is not configured: the route answers 404, as Phoenix, which then has no such route. */
  ldapLogin: LdapLoginService | null;
}

export async function authRoutes(instance: FastifyInstance, { config, sessions, ldapLogin }: AuthRoutesOptions) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['auth'];

  app.get(
    '/auth/config',
    {
      schema: {
        tags,
        summary: 'What the login page offers',
        operationId: 'getAuthConfig',
        response: { 200: Type.Object({ data: AuthConfig }) },
      },
    },
    async () => ({
      data: {
        auth_enabled: config.enableAuth,
        basic_auth_enabled: config.enableAuth,
        smtp_configured: config.smtp !== null,
        ldap_enabled: config.enableAuth && config.ldap !== null,
        idps: config.idps.map((idp) => ({
          slug: idp.slug,
          display_name: idp.displayName,
          login_url: `${config.hostRootPath}/oauth2/${idp.slug}/login`,
        })),
      },
    }),
  );

  app.post(
    '/auth/login',
    {
      config: authRateLimit(config),
      schema: {
        tags,
        summary: 'Log in with email and password; sets the session cookies',
        operationId: 'login',
        response: { 204: NoContent('Logged in; session cookies set'), ...errors(429) },
        // Types are checked by the service so that every bad credential gets the same 401.
        body: Type.Object({ email: Type.Optional(Type.Unknown()), password: Type.Optional(Type.Unknown()) }),
      },
    },
    async (request, reply) => {
      const tokens = await sessions.login(request.body.email, request.body.password);
      setSessionCookies(reply, config, tokens);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/auth/ldap/login',
    {
      config: authRateLimit(config),
      schema: {
        tags,
        summary: 'Log in with an LDAP username and password; sets the session cookies',
        description:
          'The directory configured by SERVICE_LDAP_* checks the password; the user is created on first login ' +
          '(unless SERVICE_LDAP_ALLOW_SIGN_UP is false) and takes the role of its first mapped group. 401 for every ' +
          'refusal, 429 past the login guess limit, 503 when no LDAP server answers, 404 when LDAP is not configured.',
        operationId: 'ldapLogin',
        response: { 204: NoContent('Logged in; session cookies set'), ...errors(404, 429, 503) },
        // Types are checked by the service so that every bad credential gets the same 401.
        body: Type.Object({ username: Type.Optional(Type.Unknown()), password: Type.Optional(Type.Unknown()) }),
      },
    },
    async (request, reply) => {
      if (!ldapLogin) throw new NotFoundError('LDAP login is not configured on this server (SERVICE_LDAP_HOST)');
      const tokens = await ldapLogin.login(request.body.username, request.body.password);
      setSessionCookies(reply, config, tokens);
      return reply.code(204).send(null);
    },
  );

  const logout = async (request: FastifyRequest) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    await sessions.logout(bearer ?? request.cookies[ACCESS_COOKIE], request.cookies[REFRESH_COOKIE]);
  };
  app.post(
    '/auth/logout',
    {
      schema: {
        tags,
        summary: 'Log out: revoke the session and clear cookies',
        operationId: 'logout',
        response: { 204: NoContent('Logged out') },
      },
    },
    async (request, reply) => {
      await logout(request);
      clearAuthCookies(reply, config);
      return reply.code(204).send(null);
    },
  );
  // The contract keeps Phoenix's GET logout (a link to sign out). A GET can be sent by any page (an
  // <img>), so it is checked as a change: what the browser marks as another site is refused
  // (http/auth-plugin.ts, docs/auth.md "Credentials").
  app.get(
    '/auth/logout',
    {
      config: { changesState: true },
      schema: {
        tags,
        summary: 'Log out and go to the login page',
        operationId: 'logoutRedirect',
        response: { 302: Redirect('To the login page'), ...errors() },
      },
    },
    async (request, reply) => {
      await logout(request);
      clearAuthCookies(reply, config);
      return reply.redirect(`${config.hostRootPath}/login`, 302);
    },
  );

  app.post(
    '/auth/refresh',
    {
      schema: {
        tags,
        summary: 'Rotate the session tokens',
        operationId: 'refreshTokens',
        response: { 204: NoContent('New session cookies set'), ...errors() },
      },
    },
    async (request, reply) => {
      try {
        const tokens = await sessions.refresh(request.cookies[REFRESH_COOKIE]);
        setSessionCookies(reply, config, tokens);
        return reply.code(204).send(null);
      } catch (error) {
        if (error instanceof UnauthenticatedError) clearAuthCookies(reply, config);
        throw error;
      }
    },
  );
}
