/**
 * Login through OpenID Connect identity providers (openid-client): authorization code flow with
 * state, nonce and PKCE S256, a confidential client, discovery cached per IDP. Every failure is an
 * OidcError with a short code the login page explains.
 */
import * as oidc from 'openid-client';
import type { Config, IdpConfig } from '../config.js';
import { isLoopbackHost } from '../config.js';
import { isUniqueViolation } from '../db/errors.js';
import type { UserRecord, UsersRepository } from '../db/repositories/users-repository.js';
import { normalizeEmail, isPlausibleEmail } from './emails.js';

export class OidcError extends Error {
  override readonly name = 'OidcError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What the browser must carry from the login redirect to the callback (in cookies). */
export interface FlowState {
  state: string;
  nonce: string;
  codeVerifier: string;
  returnUrl: string;
}

interface Dependencies {
  config: Config;
  users: UsersRepository;
  onError?: (error: unknown, idp: string) => void;
}

const DISCOVERY_TTL_MS = 60 * 60_000;

/** True for a same-site relative path: starts with one slash, no scheme, no backslash tricks. */
export function isSafeReturnUrl(url: string): boolean {
  return /^\/(?![/\\])[^\s\\]*$/.test(url) && !/[\u0000-\u001f]/.test(url);
}

export type OidcService = ReturnType<typeof createOidcService>;

/** The OIDC login service for the configured identity providers. */
export function createOidcService({ config, users, onError }: Dependencies) {
  const discovered = new Map<string, { configuration: oidc.Configuration; at: number }>();

  const idpOf = (slug: string): IdpConfig => {
    const idp = config.idps.find((candidate) => candidate.slug === slug);
    if (!idp) throw new OidcError('unknown_idp', `no identity provider is configured under "${slug}"`);
    return idp;
  };

  const configurationOf = async (idp: IdpConfig): Promise<oidc.Configuration> => {
    const cached = discovered.get(idp.slug);
    if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.configuration;
    const url = new URL(idp.oidcConfigUrl);
    const insecure = url.protocol === 'http:' && isLoopbackHost(url.hostname);
    let configuration: oidc.Configuration;
    try {
      configuration = await oidc.discovery(url, idp.clientId, idp.clientSecret, oidc.ClientSecretBasic(idp.clientSecret), {
        execute: insecure ? [oidc.allowInsecureRequests] : [],
        timeout: 10,
      });
    } catch (error) {
      onError?.(error, idp.slug);
      throw new OidcError('idp_unavailable', `${idp.displayName} cannot be reached right now; try again later`);
    }
    const methods = configuration.serverMetadata().token_endpoint_auth_methods_supported;
    if (methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')) {
      configuration = new oidc.Configuration(
        configuration.serverMetadata(),
        idp.clientId,
        idp.clientSecret,
        oidc.ClientSecretPost(idp.clientSecret),
      );
      if (insecure) oidc.allowInsecureRequests(configuration);
    }
    discovered.set(idp.slug, { configuration, at: Date.now() });
    return configuration;
  };

  const redirectUri = (idp: IdpConfig, requestOrigin: string) =>
    `${config.rootUrl ?? requestOrigin}${config.hostRootPath}/oauth2/${idp.slug}/tokens`;

  const uniqueUsername = async (wanted: string): Promise<string> => {
    const base = wanted.trim().slice(0, 80) || 'user';
    for (let attempt = 0; attempt < 20; attempt++) {
      const candidate = attempt === 0 ? base : `${base}-${Math.random().toString(36).slice(2, 7)}`;
      if (!(await users.findByUsername(candidate))) return candidate;
    }
    throw new OidcError('login_failed', 'could not choose a username for the new account');
  };

  const userFor = async (idp: IdpConfig, claims: oidc.IDToken): Promise<UserRecord> => {
    const isThisIdentity = (user: UserRecord) => user.oauth2Idp === idp.slug && user.oauth2Sub === claims.sub;
    const existing = (user: UserRecord): UserRecord => {
      if (user.deletedAt !== null) throw new OidcError('user_deleted', 'this account was deleted by an administrator');
      return user;
    };
    const known = await users.findByOauth2Identity(idp.slug, claims.sub);
    if (known) return existing(known);
    const rawEmail = typeof claims.email === 'string' ? normalizeEmail(claims.email) : '';
    if (!isPlausibleEmail(rawEmail)) throw new OidcError('missing_email', `${idp.displayName} did not share an email address`);
    const holder = await users.findByEmail(rawEmail);
    // The same person's other login (another tab or replica) created the account a moment ago.
    if (holder && isThisIdentity(holder)) return existing(holder);
    if (holder) {
      // An OAUTH2 user an admin created (no IDP identity yet) is linked on its first login with a
      // verified email; an email of a local, deleted or already linked user is refused.
      const linkable =
        holder.deletedAt === null && holder.authMethod === 'OAUTH2' && holder.oauth2Idp === null && claims.email_verified !== false;
      const linked = linkable
        ? await users.linkOauth2Identity(holder.id, idp.slug, claims.sub, new Date().toISOString()).catch((error: unknown) => {
            if (isUniqueViolation(error)) return undefined;
            throw error;
          })
        : undefined;
      if (linked) return linked;
      throw new OidcError('email_in_use', `the email ${rawEmail} belongs to another account (or a deleted one)`);
    }
    const name = [claims.preferred_username, claims.name, rawEmail.split('@')[0]].find(
      (value) => typeof value === 'string' && value.trim() !== '',
    );
    // A unique violation here is usually a race, not a clash: the same person signing in twice at
    // once (two tabs, two replicas) created the account a moment ago, or another new user took
    // the username just chosen. Only an email held by another account is refused.
    for (let attempt = 0; ; attempt++) {
      try {
        return await users.insert(
          {
            email: rawEmail,
            username: await uniqueUsername(String(name)),
            role: 'member',
            authMethod: 'OAUTH2',
            oauth2Idp: idp.slug,
            oauth2Sub: claims.sub,
          },
          new Date().toISOString(),
        );
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        const created = await users.findByOauth2Identity(idp.slug, claims.sub);
        if (created) return existing(created);
        if (attempt >= 2 || (await users.findByEmail(rawEmail))) {
          throw new OidcError('email_in_use', `the email ${rawEmail} belongs to another account`);
        }
      }
    }
  };

  return {
    /** The IDP's authorization URL and the flow state to keep in cookies. */
    async start(slug: string, returnUrl: string | undefined, requestOrigin: string): Promise<{ url: string; flow: FlowState }> {
      const idp = idpOf(slug);
      const target = returnUrl ?? `${config.hostRootPath}/`;
      if (!isSafeReturnUrl(target)) throw new OidcError('unsafe_return_url', 'returnUrl must be a relative path on this server');
      const configuration = await configurationOf(idp);
      const flow: FlowState = {
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        codeVerifier: oidc.randomPKCECodeVerifier(),
        returnUrl: target,
      };
      const url = oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: redirectUri(idp, requestOrigin),
        scope: 'openid email profile',
        state: flow.state,
        nonce: flow.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(flow.codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, flow };
    },

    /** Exchanges the code, checks state, nonce and PKCE, and finds or creates the user. */
    async finish(
      slug: string,
      query: URLSearchParams,
      flow: FlowState | null,
      requestOrigin: string,
    ): Promise<{ user: UserRecord; returnUrl: string }> {
      const idp = idpOf(slug);
      if (query.get('error'))
        throw new OidcError('idp_error', `${idp.displayName} refused the login: ${query.get('error_description') ?? query.get('error')}`);
      if (!flow) throw new OidcError('missing_flow', 'the login took too long or cookies are blocked; start again');
      if (query.get('state') !== flow.state)
        throw new OidcError('state_mismatch', 'the login response does not belong to this browser; start again');
      if (!isSafeReturnUrl(flow.returnUrl)) throw new OidcError('unsafe_return_url', 'returnUrl must be a relative path on this server');
      const configuration = await configurationOf(idp);
      const callback = new URL(redirectUri(idp, requestOrigin));
      callback.search = query.toString();
      let claims: oidc.IDToken | undefined;
      let accessToken: string;
      try {
        const tokens = await oidc.authorizationCodeGrant(configuration, callback, {
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          pkceCodeVerifier: flow.codeVerifier,
          idTokenExpected: true,
        });
        claims = tokens.claims();
        accessToken = tokens.access_token;
      } catch (error) {
        onError?.(error, idp.slug);
        if (error instanceof oidc.ResponseBodyError)
          throw new OidcError('token_exchange_failed', `${idp.displayName} did not accept the login code`);
        throw new OidcError('invalid_id_token', `the identity token from ${idp.displayName} did not pass verification`);
      }
      if (!claims) throw new OidcError('invalid_id_token', `${idp.displayName} sent no identity token`);
      // OIDC Core 5.4: with an access token issued, claims asked for by scope (email, profile) may
      // come from the userinfo endpoint only; ask it when the ID token has no email.
      if (typeof claims.email !== 'string' && configuration.serverMetadata().userinfo_endpoint) {
        try {
          const userinfo = await oidc.fetchUserInfo(configuration, accessToken, claims.sub);
          claims = { ...userinfo, ...claims };
        } catch (error) {
          onError?.(error, idp.slug);
          throw new OidcError('missing_email', `${idp.displayName} did not share an email address (its userinfo endpoint failed)`);
        }
      }
      return { user: await userFor(idp, claims), returnUrl: flow.returnUrl };
    },
  };
}
