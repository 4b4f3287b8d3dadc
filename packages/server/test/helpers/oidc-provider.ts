/**
 * Real OpenID Connect identity providers on loopback (oidc-provider 9), a minimal login and consent
 * page for them, and a scripted "browser" (fetch without automatic redirects plus a cookie jar that
 * keeps cookies per origin and path) that walks the authorization code flow through them.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import Provider, { type Interaction } from 'oidc-provider';

/** A port nothing listens on right now (the caller may start something there later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** An end user known to the IDP. The login form takes `sub` as the login name. */
export interface IdpAccount {
  sub: string;
  password: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  preferred_username?: string;
}

export interface IdpClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  token_endpoint_auth_method: 'client_secret_basic' | 'client_secret_post';
}

export interface OidcProviderOptions {
  /** Port to listen on (0 or omitted: any free port). */
  port?: number;
  /** Path under which the issuer lives, e.g. /realms/test (realm style); '' for the bare origin. */
  issuerPath?: string;
  clients: IdpClient[];
  /** Token endpoint authentication methods the IDP announces and accepts. */
  clientAuthMethods?: string[];
  /**
   * true (oidc-provider's default and the OIDC Core rule): with an access token issued, claims asked
   * for by scope (email, profile) come from the userinfo endpoint only, not in the ID token.
   */
  conformIdTokenClaims?: boolean;
  accounts?: IdpAccount[];
}

export interface OidcTestProvider {
  issuer: string;
  /** The well-known configuration URL (issuer + /.well-known/openid-configuration). */
  configUrl: string;
  origin: string;
  port: number;
  /** Accounts by sub; change them between logins (e.g. a new email). */
  accounts: Map<string, IdpAccount>;
  /** Requests the IDP answered, as "METHOD /path" (for checks such as "the token endpoint was called"). */
  requests: string[];
  /** Internal errors of the IDP (oidc-provider's server_error events, failures of the login page). */
  errors: unknown[];
  close(): Promise<void>;
}

interface StoredPayload {
  grantId?: string;
  userCode?: string;
  uid?: string;
  consumed?: number;
  [key: string]: unknown;
}

/** oidc-provider's storage interface over one Map per provider (expiry by timestamp). */
function memoryAdapter() {
  const store = new Map<string, { payload: StoredPayload; expiresAt: number }>();
  const live = (key: string) => {
    const entry = store.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      store.delete(key);
      return undefined;
    }
    return entry.payload;
  };
  return class MemoryAdapter {
    constructor(readonly model: string) {}
    private key(id: string) {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: StoredPayload, expiresIn?: number) {
      store.set(this.key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
    }
    async find(id: string) {
      return live(this.key(id));
    }
    async findByUid(uid: string) {
      for (const key of store.keys()) if (key.startsWith(`${this.model}:`) && live(key)?.uid === uid) return live(key);
      return undefined;
    }
    async findByUserCode(userCode: string) {
      for (const key of store.keys()) if (key.startsWith(`${this.model}:`) && live(key)?.userCode === userCode) return live(key);
      return undefined;
    }
    async consume(id: string) {
      const payload = live(this.key(id));
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      store.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string) {
      for (const [key, entry] of store) if (entry.payload.grantId === grantId) store.delete(key);
    }
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function readForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Starts an OpenID Connect provider with a confidential client per entry of `clients`; PKCE is required. */
export async function startOidcProvider(options: OidcProviderOptions): Promise<OidcTestProvider> {
  const basePath = (options.issuerPath ?? '').replace(/\/+$/, '');
  const port = options.port ?? (await freePort());
  const origin = `http://127.0.0.1:${port}`;
  const issuer = `${origin}${basePath}`;
  const accounts = new Map((options.accounts ?? []).map((account) => [account.sub, account]));
  const requests: string[] = [];
  const errors: unknown[] = [];
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), use: 'sig', alg: 'RS256', kid: randomBytes(8).toString('hex') };

  const provider = new Provider(issuer, {
    clients: options.clients.map((client) => ({
      ...client,
      grant_types: ['authorization_code'],
      response_types: ['code'],
    })),
    clientAuthMethods: options.clientAuthMethods ?? ['client_secret_basic', 'client_secret_post'],
    scopes: ['openid', 'email', 'profile'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'] },
    conformIdTokenClaims: options.conformIdTokenClaims ?? true,
    pkce: { required: () => true },
    adapter: memoryAdapter(),
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `${basePath}/interaction/${interaction.uid}` },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    ttl: { AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    jwks: { keys: [jwk] },
    findAccount: (_ctx, id) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: () => {
          const current = accounts.get(id) ?? account;
          const { password: _password, ...claims } = current;
          return { ...claims, sub: id };
        },
      };
    },
  });
  // Refusals (invalid_grant, access_denied...) are expected in tests; a server_error is a bug.
  provider.on('server_error', (_ctx, error) => errors.push(error));
  const handle = provider.callback();

  const page = (res: http.ServerResponse, status: number, body: string) => {
    res.statusCode = status;
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.setHeader('cache-control', 'no-store');
    res.end(`<!doctype html><html><body>${body}</body></html>`);
  };

  /** A minimal login and consent page: GET shows the form for the pending prompt, POST submits it. */
  const interaction = async (req: http.IncomingMessage, res: http.ServerResponse, uid: string) => {
    let details: Interaction;
    try {
      details = await provider.interactionDetails(req, res);
    } catch (error) {
      return page(res, 400, `<p>${escapeHtml(String(error))}</p>`);
    }
    if (details.uid !== uid) return page(res, 400, '<p>interaction mismatch</p>');
    const action = `${basePath}/interaction/${uid}`;
    if (req.method === 'GET') {
      const fields =
        details.prompt.name === 'login'
          ? '<input name="login" placeholder="login"><input type="password" name="password" placeholder="password">'
          : `<p>Allow ${escapeHtml(details.params.client_id)} to read your ${escapeHtml(String(details.params.scope))}?</p>`;
      return page(
        res,
        200,
        `<form method="post" action="${action}"><input type="hidden" name="prompt" value="${details.prompt.name}">${fields}<button>Continue</button></form>`,
      );
    }
    const form = await readForm(req);
    if (form.get('prompt') !== details.prompt.name) return page(res, 400, '<p>prompt mismatch</p>');
    if (details.prompt.name === 'login') {
      const account = accounts.get(form.get('login') ?? '');
      if (!account || account.password !== form.get('password')) {
        // Like a user who gives up after a failed sign-in: the client gets access_denied.
        return provider.interactionFinished(
          req,
          res,
          { error: 'access_denied', error_description: 'sign-in failed' },
          { mergeWithLastSubmission: false },
        );
      }
      return provider.interactionFinished(req, res, { login: { accountId: account.sub } }, { mergeWithLastSubmission: false });
    }
    if (details.prompt.name === 'consent') {
      const grant = details.grantId
        ? ((await provider.Grant.find(details.grantId)) ??
          new provider.Grant({ accountId: details.session!.accountId!, clientId: details.params.client_id }))
        : new provider.Grant({ accountId: details.session!.accountId!, clientId: details.params.client_id });
      const missing = details.prompt.details as {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
        grant.addResourceScope(indicator, scopes.join(' '));
      return provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    }
    return page(res, 501, `<p>prompt ${escapeHtml(details.prompt.name)} is not implemented</p>`);
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    requests.push(`${req.method} ${url.pathname}`);
    if (url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return page(res, 404, '<p>not found</p>');
    const rest = url.pathname.slice(basePath.length) || '/';
    const pending = /^\/interaction\/([^/]+)$/.exec(rest);
    if (pending) {
      interaction(req, res, pending[1]!).catch((error: unknown) => {
        errors.push(error);
        if (!res.headersSent) page(res, 500, `<p>${escapeHtml(String(error))}</p>`);
      });
      return;
    }
    // Mounted under basePath: oidc-provider derives its URLs from originalUrl versus url.
    Object.assign(req, { originalUrl: req.url });
    req.url = `${rest}${url.search}`;
    handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });

  return {
    issuer,
    configUrl: `${issuer}/.well-known/openid-configuration`,
    origin,
    port,
    accounts,
    requests,
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** One cookie as a browser keeps it. */
export interface BrowserCookie {
  origin: string;
  name: string;
  value: string;
  path: string;
  /** Attributes of the Set-Cookie line that stored it, names lower-cased, flags as ''. */
  attributes: Map<string, string>;
}

/** One Set-Cookie line, parsed. */
export function parseSetCookieLine(line: string): { name: string; value: string; attributes: Map<string, string> } {
  const [pair = '', ...rest] = line.split(';');
  const eq = pair.indexOf('=');
  const attributes = new Map<string, string>();
  for (const part of rest) {
    const at = part.indexOf('=');
    const key = (at === -1 ? part : part.slice(0, at)).trim().toLowerCase();
    if (key) attributes.set(key, at === -1 ? '' : part.slice(at + 1).trim());
  }
  return { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), attributes };
}

const pathMatches = (cookiePath: string, requestPath: string) =>
  requestPath === cookiePath ||
  (requestPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/'));

const defaultPath = (requestPath: string) => {
  const slash = requestPath.lastIndexOf('/');
  return slash <= 0 ? '/' : requestPath.slice(0, slash);
};

export interface BrowserResponse {
  url: URL;
  status: number;
  headers: Headers;
  /** The Location header resolved against the request URL, for redirects. */
  location: URL | null;
  text: string;
  /** The Set-Cookie lines of this response, by name. */
  setCookies: Map<string, { name: string; value: string; attributes: Map<string, string> }>;
}

/**
 * A scripted browser: fetch with redirect 'manual', cookies kept per origin (scheme, host, port; a
 * simplification of browsers, which ignore the port) and path, expiry by Max-Age=0 or a past Expires.
 * Every response with a 5xx status fails the test unless `allow5xx` is set.
 */
export class Browser {
  readonly cookies: BrowserCookie[] = [];
  /** Every response this browser received, in order. */
  readonly history: BrowserResponse[] = [];

  constructor(readonly allow5xx = false) {}

  cookie(origin: string, name: string): BrowserCookie | undefined {
    return this.cookies.find((cookie) => cookie.origin === origin && cookie.name === name);
  }

  /** Overwrites (or adds) a cookie, as a tampering user could. */
  setCookie(origin: string, name: string, value: string, path = '/'): void {
    this.deleteCookie(origin, name);
    this.cookies.push({ origin, name, value, path, attributes: new Map() });
  }

  deleteCookie(origin: string, name: string): void {
    for (let i = this.cookies.length - 1; i >= 0; i--) {
      if (this.cookies[i]!.origin === origin && this.cookies[i]!.name === name) this.cookies.splice(i, 1);
    }
  }

  /** A copy with the same cookies (e.g. to replay the same state twice). */
  clone(): Browser {
    const copy = new Browser(this.allow5xx);
    for (const cookie of this.cookies) copy.cookies.push({ ...cookie, attributes: new Map(cookie.attributes) });
    return copy;
  }

  async request(
    target: string | URL,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<BrowserResponse> {
    const url = new URL(target);
    const headers: Record<string, string> = { ...init.headers };
    const sent = this.cookies.filter((cookie) => cookie.origin === url.origin && pathMatches(cookie.path, url.pathname));
    // Longer paths first, as browsers order them.
    sent.sort((a, b) => b.path.length - a.path.length);
    if (sent.length > 0) headers.cookie = sent.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const response = await fetch(url, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    const text = await response.text();
    const setCookies = new Map<string, { name: string; value: string; attributes: Map<string, string> }>();
    for (const line of response.headers.getSetCookie()) {
      const parsed = parseSetCookieLine(line);
      setCookies.set(parsed.name, parsed);
      const path = parsed.attributes.get('path')?.startsWith('/') ? parsed.attributes.get('path')! : defaultPath(url.pathname);
      const expires = parsed.attributes.get('expires');
      const expired = parsed.attributes.get('max-age') === '0' || (expires !== undefined && Date.parse(expires) <= Date.now());
      const index = this.cookies.findIndex((cookie) => cookie.origin === url.origin && cookie.name === parsed.name && cookie.path === path);
      if (index !== -1) this.cookies.splice(index, 1);
      if (!expired) this.cookies.push({ origin: url.origin, name: parsed.name, value: parsed.value, path, attributes: parsed.attributes });
    }
    const locationHeader = response.headers.get('location');
    const result: BrowserResponse = {
      url,
      status: response.status,
      headers: response.headers,
      location: locationHeader === null ? null : new URL(locationHeader, url),
      text,
      setCookies,
    };
    this.history.push(result);
    if (!this.allow5xx && response.status >= 500)
      throw new Error(`${init.method ?? 'GET'} ${url.href} answered ${response.status}: ${text.slice(0, 500)}`);
    return result;
  }
}

/**
 * Walks an authorization request through the IDP as a user would: follows the IDP's redirects, fills
 * in the login form (sub and password) and the consent form, and stops at the first redirect that
 * leaves the IDP, which it returns without following (the client's redirect URI with code and state).
 */
export async function signInAtIdp(
  browser: Browser,
  idp: Pick<OidcTestProvider, 'origin'>,
  authorizationUrl: URL,
  login: { sub: string; password: string },
): Promise<URL> {
  let next: URL = authorizationUrl;
  for (let step = 0; step < 20; step++) {
    if (next.origin !== idp.origin) return next;
    let response = await browser.request(next);
    if (response.status === 200) {
      const form = /<form method="post" action="([^"]+)"><input type="hidden" name="prompt" value="([a-z_]+)">/.exec(response.text);
      if (!form) throw new Error(`the IDP page at ${next.href} has no form: ${response.text.slice(0, 500)}`);
      const fields: Record<string, string> = { prompt: form[2]! };
      if (form[2] === 'login') Object.assign(fields, { login: login.sub, password: login.password });
      response = await browser.request(new URL(form[1]!, next), { method: 'POST', form: fields });
    }
    if (response.status < 300 || response.status >= 400 || !response.location) {
      throw new Error(`the IDP answered ${response.status} at ${response.url.href}: ${response.text.slice(0, 500)}`);
    }
    next = response.location;
  }
  throw new Error('the IDP kept redirecting');
}
