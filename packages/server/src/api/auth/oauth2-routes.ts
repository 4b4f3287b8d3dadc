/** OpenID Connect login: redirect to the IDP, then the callback that opens a session. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../../config.js';
import { OAUTH2_COOKIES, setSessionCookies } from '../../http/cookies.js';
import { OidcError, type FlowState, type OidcService } from '../../auth/oidc-service.js';
import type { LoginSessionsService } from '../../auth/login-sessions-service.js';

const [STATE_COOKIE, NONCE_COOKIE, VERIFIER_COOKIE] = OAUTH2_COOKIES;
const FLOW_SECONDS = 10 * 60;

export interface OAuth2RoutesOptions {
  config: Config;
  oidc: OidcService;
  sessions: LoginSessionsService;
}

export async function oauth2Routes(instance: FastifyInstance, { config, oidc, sessions }: OAuth2RoutesOptions) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['auth'];
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, path: config.hostRootPath || '/', secure: config.useSecureCookies };
  const origin = (request: FastifyRequest) => `${request.protocol}://${request.headers.host ?? `${config.host}:${config.port}`}`;
  const toLogin = (reply: FastifyReply, error: OidcError) => {
    for (const name of OAUTH2_COOKIES) reply.clearCookie(name, cookieOptions);
    return reply.redirect(`${config.hostRootPath}/login?error=${encodeURIComponent(error.code)}`, 307);
  };

  // Phoenix's login page starts the flow with a form post (POST, an empty or url-encoded body);
  // the body carries nothing the flow reads: returnUrl comes from the query string, as for GET.
  instance.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, _body, done) =>
    done(null, {}),
  );
  const startFlow = async (
    request: FastifyRequest<{ Params: { idp: string }; Querystring: { returnUrl?: string } }>,
    reply: FastifyReply,
  ) => {
    try {
      const { url, flow } = await oidc.start(request.params.idp, request.query.returnUrl, origin(request));
      const options = { ...cookieOptions, maxAge: FLOW_SECONDS };
      reply.setCookie(STATE_COOKIE, `${flow.state}.${Buffer.from(flow.returnUrl).toString('base64url')}`, options);
      reply.setCookie(NONCE_COOKIE, flow.nonce, options);
      reply.setCookie(VERIFIER_COOKIE, flow.codeVerifier, options);
      return reply.redirect(url, 302);
    } catch (error) {
      if (error instanceof OidcError) return toLogin(reply, error);
      throw error;
    }
  };
  const startSchema = {
    tags,
    response: {
      302: Type.Null({ description: "To the identity provider's authorization endpoint" }),
      307: Type.Null({ description: 'To <root>/login?error=<code>' }),
    },
    params: Type.Object({ idp: Type.String() }),
    querystring: Type.Object({ returnUrl: Type.Optional(Type.String()) }),
  };

  app.get(
    '/oauth2/:idp/login',
    { schema: { ...startSchema, summary: 'Start a login through an identity provider', operationId: 'oauth2Login' } },
    startFlow,
  );
  app.post(
    '/oauth2/:idp/login',
    {
      schema: {
        ...startSchema,
        summary: 'Start a login through an identity provider (form post)',
        description: "The same as GET: Phoenix's login page posts its provider buttons here. Any body is ignored.",
        operationId: 'oauth2LoginPost',
      },
    },
    startFlow,
  );

  app.get(
    '/oauth2/:idp/tokens',
    {
      schema: {
        tags,
        summary: 'Redirect URI registered with the identity provider',
        operationId: 'oauth2Callback',
        response: {
          302: Type.Null({ description: 'To returnUrl, with session cookies' }),
          307: Type.Null({ description: 'To <root>/login?error=<code>' }),
        },
        params: Type.Object({ idp: Type.String() }),
      },
    },
    async (request, reply) => {
      try {
        const query = new URLSearchParams(request.url.split('?')[1] ?? '');
        const { user, returnUrl } = await oidc.finish(request.params.idp, query, flowOf(request.cookies), origin(request));
        const tokens = await sessions.openSession(user.id);
        for (const name of OAUTH2_COOKIES) reply.clearCookie(name, cookieOptions);
        setSessionCookies(reply, config, tokens);
        return reply.redirect(returnUrl, 302);
      } catch (error) {
        if (error instanceof OidcError) return toLogin(reply, error);
        throw error;
      }
    },
  );
}

function flowOf(cookies: Record<string, string | undefined>): FlowState | null {
  const stateCookie = cookies[STATE_COOKIE];
  const nonce = cookies[NONCE_COOKIE];
  const codeVerifier = cookies[VERIFIER_COOKIE];
  if (!stateCookie || !nonce || !codeVerifier) return null;
  const [state, encodedReturn] = stateCookie.split('.');
  if (!state || encodedReturn === undefined) return null;
  return { state, nonce, codeVerifier, returnUrl: Buffer.from(encodedReturn, 'base64url').toString('utf8') };
}
