/**
 * Login through OpenID Connect identity providers (docs/oidc.md), end to end against real IDPs on
 * loopback (oidc-provider): two IDPs at once, "Acme" at the root of its origin (client_secret_basic;
 * email and profile claims only from userinfo, as OIDC Core has it) and "Microsoft Entra ID" realm
 * style under /realms/test (client_secret_post only; claims in the ID token). A scripted browser
 * follows every redirect, signs in and consents at the IDP, and comes back to Sightline's callback.
 * Tampering with state, nonce, code verifier or returnUrl, unknown and unreachable IDPs each end on
 * the login page with an error code; nothing answers 500.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, it } from 'node:test';
import { describeEachDialect, startTestServer, type TestServer } from '../helpers/server.js';
import {
  Browser,
  freePort,
  signInAtIdp,
  startOidcProvider,
  type BrowserResponse,
  type IdpAccount,
  type OidcTestProvider,
} from '../helpers/oidc-provider.js';
import {
  ACCESS_COOKIE,
  AUTH_ENV,
  ApiClient,
  CookieJar,
  REFRESH_COOKIE,
  anonymous,
  createPlainUser,
  expectStatus,
  loginRequest,
  sessionOf,
  setupDefaultAdmin,
  unique,
  type TestUser,
} from '../helpers/auth.js';

const FLOW_COOKIES = ['sightline-oauth2-state', 'sightline-oauth2-nonce', 'sightline-oauth2-code-verifier'] as const;
const [STATE_COOKIE, NONCE_COOKIE, VERIFIER_COOKIE] = FLOW_COOKIES;

interface ClientRegistration {
  client_id: string;
  client_secret: string;
}
const ACME_CLIENT: ClientRegistration = { client_id: 'sightline-acme', client_secret: 'acme-client-secret-0123456789' };
const ENTRA_CLIENT: ClientRegistration = { client_id: 'sightline-entra', client_secret: 'entra-client-secret-0123456789' };
const REALM_PATH = '/realms/test';

/** The SERVICE_OAUTH2_<IDP>_* variables of one IDP. */
function idpEnv(name: string, client: ClientRegistration, configUrl: string): Record<string, string> {
  return {
    [`SERVICE_OAUTH2_${name}_CLIENT_ID`]: client.client_id,
    [`SERVICE_OAUTH2_${name}_CLIENT_SECRET`]: client.client_secret,
    [`SERVICE_OAUTH2_${name}_OIDC_CONFIG_URL`]: configUrl,
  };
}

// The IDPs' ports are fixed before Sightline starts (its configuration names them); each suite
// starts the IDPs there once its own server's callback URL is known (they need it registered).
const ACME_PORT = await freePort();
const ENTRA_PORT = await freePort();
const MAIN_ENV: Record<string, string> = {
  ...AUTH_ENV,
  // Refused logins are logged as errors; the assertions say what matters.
  SERVICE_LOG_LEVEL: 'fatal',
  ...idpEnv('ACME', ACME_CLIENT, `http://127.0.0.1:${ACME_PORT}/.well-known/openid-configuration`),
  ...idpEnv('MICROSOFT_ENTRA_ID', ENTRA_CLIENT, `http://127.0.0.1:${ENTRA_PORT}${REALM_PATH}/.well-known/openid-configuration`),
};

/** Starts the Acme-style IDP (bare origin, client_secret_basic, claims from userinfo) for one Sightline base URL. */
const startAcme = (port: number, sightlineUrl: string) =>
  startOidcProvider({
    port,
    clients: [{ ...ACME_CLIENT, redirect_uris: [`${sightlineUrl}/oauth2/acme/tokens`], token_endpoint_auth_method: 'client_secret_basic' }],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    conformIdTokenClaims: true,
  });

/** Starts the realm-style IDP (issuer under /realms/test, client_secret_post only, claims in the ID token). */
const startEntra = (port: number, sightlineUrl: string) =>
  startOidcProvider({
    port,
    issuerPath: REALM_PATH,
    clients: [
      {
        ...ENTRA_CLIENT,
        redirect_uris: [`${sightlineUrl}/oauth2/microsoft_entra_id/tokens`],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    clientAuthMethods: ['client_secret_post'],
    conformIdTokenClaims: false,
  });

/** A new IDP account with unique sub, email and username. */
function newAccount(idp: OidcTestProvider, fields: Partial<IdpAccount> = {}): IdpAccount {
  const name = unique('idp-user');
  const account: IdpAccount = {
    sub: `sub-${name}`,
    password: `idp-pw-${name}`,
    email: `${name}@idp.example`,
    email_verified: true,
    name: `Person ${name}`,
    preferred_username: name,
    ...fields,
  };
  idp.accounts.set(account.sub, account);
  return account;
}

/** Sightline's origin (scheme, host, port) from its base URL. */
const originOf = (base: string) => new URL(base).origin;

/** GET /oauth2/<slug>/login in the browser. */
function startLogin(browser: Browser, base: string, slug: string, returnUrl?: string): Promise<BrowserResponse> {
  const query = returnUrl === undefined ? '' : `?returnUrl=${encodeURIComponent(returnUrl)}`;
  return browser.request(`${base}/oauth2/${slug}/login${query}`);
}

/** Starts a login, signs in at the IDP and returns the callback URL the IDP sends the browser to (not followed yet). */
async function toCallback(
  browser: Browser,
  base: string,
  slug: string,
  idp: OidcTestProvider,
  account: IdpAccount,
  returnUrl?: string,
): Promise<URL> {
  const start = await startLogin(browser, base, slug, returnUrl);
  assert.equal(start.status, 302, `login start → 302 to the IDP, got ${start.status} ${start.location?.href}`);
  assert.equal(start.location?.origin, idp.origin, 'the login start redirects to the IDP');
  return signInAtIdp(browser, idp, start.location!, account);
}

/** The whole flow; returns Sightline's answer to the callback. */
async function loginThrough(
  base: string,
  slug: string,
  idp: OidcTestProvider,
  account: IdpAccount,
  returnUrl?: string,
  browser = new Browser(),
) {
  const callback = await toCallback(browser, base, slug, idp, account, returnUrl);
  assert.equal(callback.origin, originOf(base), `the IDP sends the browser back to Sightline: ${callback.href}`);
  const response = await browser.request(callback);
  return { browser, callback, response };
}

/** An API client using the browser's Sightline session cookies. */
function apiOf(browser: Browser, base: string): ApiClient {
  const origin = originOf(base);
  const entries = [ACCESS_COOKIE, REFRESH_COOKIE].flatMap((name) => {
    const cookie = browser.cookie(origin, name);
    return cookie ? [[name, decodeURIComponent(cookie.value)] as [string, string]] : [];
  });
  return new ApiClient(base, { jar: new CookieJar(entries) });
}

/** Asserts a successful callback: 302 to the return URL with session cookies, flow cookies cleared. */
function assertSignedIn(response: BrowserResponse, expectedLocation: string, rootPath = '') {
  assert.equal(response.status, 302, `callback → 302, got ${response.status} to ${response.location?.href}`);
  assert.equal(response.headers.get('location'), expectedLocation);
  for (const name of [ACCESS_COOKIE, REFRESH_COOKIE]) {
    const cookie = response.setCookies.get(name);
    assert.ok(cookie && cookie.value !== '', `${name} is set`);
    assert.ok(cookie.attributes.has('httponly'), `${name} is HttpOnly`);
    assert.equal(cookie.attributes.get('samesite')?.toLowerCase(), 'strict', `${name} is SameSite=Strict`);
    assert.equal(cookie.attributes.get('path'), rootPath || '/');
  }
  assertFlowCookiesCleared(response, rootPath);
}

function assertFlowCookiesCleared(response: BrowserResponse, rootPath = '') {
  for (const name of FLOW_COOKIES) {
    const cookie = response.setCookies.get(name);
    assert.ok(cookie, `${name} is cleared by the answer`);
    const expires = cookie.attributes.get('expires');
    assert.ok(
      cookie.value === '' || cookie.attributes.get('max-age') === '0' || (expires !== undefined && Date.parse(expires) <= Date.now()),
      `${name} is expired`,
    );
    assert.equal(cookie.attributes.get('path'), rootPath || '/', `${name} is cleared on the path it was set on`);
  }
}

/** Asserts the answer sends the browser to the login page with this error code, without a session. */
function assertLoginError(response: BrowserResponse, code: string, rootPath = '') {
  assert.equal(
    response.status,
    307,
    `expected 307 to the login page (${code}), got ${response.status} ${response.headers.get('location')}: ${response.text.slice(0, 300)}`,
  );
  assert.equal(response.headers.get('location'), `${rootPath}/login?error=${code}`);
  assert.ok(!response.setCookies.get(ACCESS_COOKIE)?.value, 'no access cookie');
  assert.ok(!response.setCookies.get(REFRESH_COOKIE)?.value, 'no refresh cookie');
}

describeEachDialect(
  'login through OpenID Connect identity providers',
  (current) => {
    let server: TestServer;
    let base: string;
    let acme: OidcTestProvider;
    let entra: OidcTestProvider;
    let admin: TestUser;
    let adminClient: ApiClient;
    const cleanup: (() => Promise<void>)[] = [];

    before(async () => {
      server = current();
      base = server.url;
      acme = await startAcme(ACME_PORT, base);
      entra = await startEntra(ENTRA_PORT, base);
      admin = await setupDefaultAdmin(base);
      adminClient = sessionOf(base, admin);
    });
    after(async () => {
      for (const close of cleanup.reverse()) await close();
      await acme?.close();
      await entra?.close();
      assert.deepEqual(acme?.errors ?? [], [], 'the Acme IDP reported no errors');
      assert.deepEqual(entra?.errors ?? [], [], 'the Entra IDP reported no errors');
    });

    it('GET /auth/config lists both IDPs with readable names and login URLs', async () => {
      const data = expectStatus(await anonymous(base).get('/auth/config'), 200).body.data;
      assert.equal(data.auth_enabled, true);
      assert.deepEqual(data.idps, [
        { slug: 'acme', display_name: 'Acme', login_url: '/oauth2/acme/login' },
        { slug: 'microsoft_entra_id', display_name: 'Microsoft Entra ID', login_url: '/oauth2/microsoft_entra_id/login' },
      ]);
    });

    it('the login start redirects to the IDP with code flow, scopes, state, nonce and PKCE S256, and sets the flow cookies', async () => {
      const browser = new Browser();
      const start = await startLogin(browser, base, 'acme', '/projects?view=all');
      assert.equal(start.status, 302);
      const target = start.location!;
      assert.equal(`${target.origin}${target.pathname}`, `${acme.issuer}/auth`, 'the authorization endpoint from discovery');
      const params = target.searchParams;
      assert.equal(params.get('response_type'), 'code');
      assert.equal(params.get('client_id'), ACME_CLIENT.client_id);
      assert.equal(params.get('redirect_uri'), `${base}/oauth2/acme/tokens`);
      assert.deepEqual(params.get('scope')?.split(' ').sort(), ['email', 'openid', 'profile']);
      assert.equal(params.get('code_challenge_method'), 'S256');
      const origin = originOf(base);
      for (const name of FLOW_COOKIES) {
        const cookie = start.setCookies.get(name);
        assert.ok(cookie && cookie.value !== '', `${name} is set`);
        assert.ok(cookie.attributes.has('httponly'), `${name} is HttpOnly`);
        assert.equal(cookie.attributes.get('samesite')?.toLowerCase(), 'lax', `${name} is SameSite=Lax`);
        assert.equal(cookie.attributes.get('max-age'), '600', `${name} lives 10 minutes`);
        assert.equal(cookie.attributes.get('path'), '/');
        assert.ok(!cookie.attributes.has('secure'), 'not Secure without SERVICE_USE_SECURE_COOKIES');
      }
      const state = params.get('state');
      const nonce = params.get('nonce');
      assert.ok(state && state.length >= 32, 'a random state');
      assert.ok(nonce && nonce.length >= 32, 'a random nonce');
      assert.ok(browser.cookie(origin, STATE_COOKIE)!.value.startsWith(`${state}.`), 'the state cookie holds the state');
      assert.equal(browser.cookie(origin, NONCE_COOKIE)!.value, nonce);
      const verifier = browser.cookie(origin, VERIFIER_COOKIE)!.value;
      assert.ok(verifier.length >= 43, 'a PKCE code verifier of at least 43 characters');
      assert.equal(
        params.get('code_challenge'),
        createHash('sha256').update(verifier).digest('base64url'),
        'code_challenge = S256(verifier)',
      );
      // A second start in another browser gets fresh values.
      const other = await startLogin(new Browser(), base, 'acme');
      assert.notEqual(other.location!.searchParams.get('state'), state);
      assert.notEqual(other.location!.searchParams.get('nonce'), nonce);
    });

    it('a first login creates a member with auth_method OAUTH2 and returns to returnUrl with a session (Acme, client_secret_basic)', async () => {
      const account = newAccount(acme);
      const { browser, callback, response } = await loginThrough(base, 'acme', acme, account, '/projects?view=all');
      assert.equal(callback.pathname, '/oauth2/acme/tokens');
      assert.ok(callback.searchParams.get('code'));
      assertSignedIn(response, '/projects?view=all');
      const me = expectStatus(await apiOf(browser, base).get('/v1/user'), 200).body.data;
      assert.equal(me.email, account.email);
      assert.equal(me.username, account.preferred_username);
      assert.equal(me.role, 'member');
      assert.equal(me.auth_method, 'OAUTH2');
      assert.equal(me.password_needs_reset, false);
      expectStatus(await apiOf(browser, base).get('/v1/users'), 403, 'a member');
      expectStatus(await loginRequest(base, account.email!, account.password), 401, 'an IDP user has no local password');
      assert.ok(acme.requests.includes('POST /token'), 'the code was exchanged at the token endpoint');
      assert.ok(
        acme.requests.includes('GET /me'),
        "email and profile came from the userinfo endpoint (they are not in this IDP's ID token)",
      );
      // A browser that already has a session at the IDP goes straight back (no login form, no consent).
      const again = await loginThrough(base, 'acme', acme, account, undefined, browser);
      assertSignedIn(again.response, '/');
      assert.equal(expectStatus(await apiOf(browser, base).get('/v1/user'), 200).body.data.id, me.id);
    });

    it('a first login through the realm-style IDP (issuer under a path, client_secret_post) works the same', async () => {
      const account = newAccount(entra);
      const { browser, callback, response } = await loginThrough(base, 'microsoft_entra_id', entra, account, '/');
      assert.equal(callback.pathname, '/oauth2/microsoft_entra_id/tokens');
      assertSignedIn(response, '/');
      const me = expectStatus(await apiOf(browser, base).get('/v1/user'), 200).body.data;
      assert.deepEqual([me.email, me.role, me.auth_method], [account.email, 'member', 'OAUTH2']);
      assert.ok(entra.requests.includes(`POST ${REALM_PATH}/token`), 'the token endpoint under the realm path was used');
      assert.ok(!entra.requests.includes(`GET ${REALM_PATH}/me`), 'the ID token carried the email: no userinfo request');
    });

    it('first logins racing (one person in several tabs or replicas, two people wanting one username) all sign in', async () => {
      // Every browser is taken to the callback first; then the callbacks arrive together, so each
      // one looks the user up before any of them has created it.
      const account = newAccount(acme);
      const tabs = Array.from({ length: 4 }, () => new Browser());
      const callbacks: URL[] = [];
      for (const tab of tabs) callbacks.push(await toCallback(tab, base, 'acme', acme, account));
      const namesake = newAccount(acme, { preferred_username: account.preferred_username });
      const other = new Browser();
      const otherCallback = await toCallback(other, base, 'acme', acme, namesake);
      const answers = await Promise.all([...tabs.map((tab, index) => tab.request(callbacks[index]!)), other.request(otherCallback)]);
      for (const answer of answers) assertSignedIn(answer, '/');
      const ids = new Set<string>();
      for (const tab of tabs) ids.add(expectStatus(await apiOf(tab, base).get('/v1/user'), 200).body.data.id);
      assert.equal(ids.size, 1, 'one user for the one IDP account, whichever callback created it');
      const namesakeUser = expectStatus(await apiOf(other, base).get('/v1/user'), 200).body.data;
      assert.ok(!ids.has(namesakeUser.id), 'the other person is another user');
      assert.equal(namesakeUser.email, namesake.email);
      const mine = await server.server.database.db
        .selectFrom('users')
        .select(['email', 'username'])
        .where('email', 'in', [account.email!, namesake.email!])
        .execute();
      assert.equal(mine.length, 2, 'exactly two accounts were created');
      assert.notEqual(mine[0]!.username, mine[1]!.username, 'usernames stay unique');
    });

    it('later logins match by (IDP, sub): a changed email claim finds the same user; the same sub at another IDP is someone else', async () => {
      const account = newAccount(acme);
      const first = await loginThrough(base, 'acme', acme, account);
      assertSignedIn(first.response, '/');
      const original = expectStatus(await apiOf(first.browser, base).get('/v1/user'), 200).body.data;

      account.email = `${unique('renamed')}@idp.example`;
      const second = await loginThrough(base, 'acme', acme, account);
      assertSignedIn(second.response, '/');
      const again = expectStatus(await apiOf(second.browser, base).get('/v1/user'), 200).body.data;
      assert.equal(again.id, original.id, 'the same user');
      assert.equal(again.email, original.email, 'emails never change, not even through the IDP');

      const twin = newAccount(entra, { sub: account.sub });
      const third = await loginThrough(base, 'microsoft_entra_id', entra, twin);
      assertSignedIn(third.response, '/');
      const other = expectStatus(await apiOf(third.browser, base).get('/v1/user'), 200).body.data;
      assert.notEqual(other.id, original.id, 'the same sub at another IDP is another user');
      assert.equal(other.email, twin.email);
    });

    it("an admin's role change survives the next login", async () => {
      const account = newAccount(entra);
      const first = await loginThrough(base, 'microsoft_entra_id', entra, account);
      assertSignedIn(first.response, '/');
      const user = expectStatus(await apiOf(first.browser, base).get('/v1/user'), 200).body.data;
      const promoted = expectStatus(await adminClient.patch(`/v1/users/${encodeURIComponent(user.id)}`, { role: 'admin' }), 200, 'promote');
      assert.equal(promoted.body.data.role, 'admin');

      const second = await loginThrough(base, 'microsoft_entra_id', entra, account);
      assertSignedIn(second.response, '/');
      const me = expectStatus(await apiOf(second.browser, base).get('/v1/user'), 200).body.data;
      assert.equal(me.id, user.id);
      assert.equal(me.role, 'admin', 'still an admin after logging in again');
      expectStatus(await apiOf(second.browser, base).get('/v1/users'), 200, 'and acts as one');
    });

    it('an email held by a local user is refused (email_in_use), whatever its case', async () => {
      const local = await createPlainUser(adminClient, { password: `local-${unique('pw')}` });
      const account = newAccount(acme, { email: local.email.toUpperCase() });
      const { browser, response } = await loginThrough(base, 'acme', acme, account);
      assertLoginError(response, 'email_in_use');
      assertFlowCookiesCleared(response);
      assert.equal(browser.cookie(originOf(base), ACCESS_COOKIE), undefined);
      const listed = expectStatus(await adminClient.get('/v1/users?limit=1000'), 200).body.data as { email: string }[];
      assert.equal(listed.filter((user) => user.email === local.email).length, 1, 'no second account was made');
    });

    it('a user an admin created with auth_method OAUTH2 is linked on the first login with that (verified) email, keeping its role', async () => {
      const precreated = await createPlainUser(adminClient, { auth_method: 'OAUTH2', role: 'admin' });
      const unverified = newAccount(acme, { email: precreated.email, email_verified: false });
      assertLoginError((await loginThrough(base, 'acme', acme, unverified)).response, 'email_in_use');
      const account = newAccount(entra, { email: precreated.email });
      const first = await loginThrough(base, 'microsoft_entra_id', entra, account);
      assertSignedIn(first.response, '/');
      const me = expectStatus(await apiOf(first.browser, base).get('/v1/user'), 200).body.data;
      assert.deepEqual([me.id, me.email, me.role, me.auth_method], [precreated.id, precreated.email, 'admin', 'OAUTH2']);
      // Linked to that identity from now on: another identity with the same email is refused.
      const impostor = newAccount(acme, { email: precreated.email });
      assertLoginError((await loginThrough(base, 'acme', acme, impostor)).response, 'email_in_use');
      const again = await loginThrough(base, 'microsoft_entra_id', entra, account);
      assertSignedIn(again.response, '/');
      assert.equal(expectStatus(await apiOf(again.browser, base).get('/v1/user'), 200).body.data.id, precreated.id);
    });

    it('an IDP account without an email, in the ID token or from userinfo, is refused (missing_email)', async () => {
      for (const [slug, idp] of [
        ['acme', acme],
        ['microsoft_entra_id', entra],
      ] as const) {
        const account = newAccount(idp);
        delete account.email;
        delete account.email_verified;
        const { response } = await loginThrough(base, slug, idp, account);
        assertLoginError(response, 'missing_email');
      }
    });

    it('a deleted IDP user cannot come back, and the email of a deleted local user is refused', async () => {
      const account = newAccount(acme);
      const first = await loginThrough(base, 'acme', acme, account);
      assertSignedIn(first.response, '/');
      const user = expectStatus(await apiOf(first.browser, base).get('/v1/user'), 200).body.data;
      expectStatus(await adminClient.delete(`/v1/users/${encodeURIComponent(user.id)}`), 204, 'delete the IDP user');
      expectStatus(await apiOf(first.browser, base).get('/v1/user'), 401, 'its session died with it');
      const back = await loginThrough(base, 'acme', acme, account);
      assertLoginError(back.response, 'user_deleted');

      const local = await createPlainUser(adminClient, {});
      expectStatus(await adminClient.delete(`/v1/users/${encodeURIComponent(local.id)}`), 204, 'delete the local user');
      const taker = newAccount(entra, { email: local.email });
      const taken = await loginThrough(base, 'microsoft_entra_id', entra, taker);
      assertLoginError(taken.response, 'email_in_use');
    });

    it('a tampered state, in the callback query or in the cookie, is refused (state_mismatch)', async () => {
      const account = newAccount(acme);
      const origin = originOf(base);

      const browser = new Browser();
      const callback = await toCallback(browser, base, 'acme', acme, account);
      const forged = new URL(callback);
      forged.searchParams.set('state', `${callback.searchParams.get('state')}x`);
      const replayable = browser.clone();
      const response = await browser.request(forged);
      assertLoginError(response, 'state_mismatch');
      assertFlowCookiesCleared(response);

      const cookie = replayable.cookie(origin, STATE_COOKIE)!;
      const [, encodedReturn] = cookie.value.split('.');
      replayable.setCookie(origin, STATE_COOKIE, `forged-state-value.${encodedReturn}`);
      assertLoginError(await replayable.request(callback), 'state_mismatch');
    });

    it('a tampered nonce cookie is refused (invalid_id_token)', async () => {
      const browser = new Browser();
      const callback = await toCallback(browser, base, 'microsoft_entra_id', entra, newAccount(entra));
      browser.setCookie(originOf(base), NONCE_COOKIE, 'a-nonce-the-idp-never-saw-0123456789abcdef');
      assertLoginError(await browser.request(callback), 'invalid_id_token');
    });

    it('a wrong code verifier is refused by the IDP (token_exchange_failed); a used code cannot be replayed', async () => {
      const browser = new Browser();
      const callback = await toCallback(browser, base, 'acme', acme, newAccount(acme));
      const honest = browser.clone();
      browser.setCookie(originOf(base), VERIFIER_COOKIE, 'x'.repeat(43));
      assertLoginError(await browser.request(callback), 'token_exchange_failed');
      // The verifier alone was at fault: the same callback with the right one signs in...
      const replay = honest.clone();
      assertSignedIn(await honest.request(callback), '/');
      // ...once: the IDP refuses a code it already exchanged.
      assertLoginError(await replay.request(callback), 'token_exchange_failed');
    });

    it('a callback without the flow cookies (another browser, or cookies blocked) is refused (missing_flow)', async () => {
      const callback = await toCallback(new Browser(), base, 'acme', acme, newAccount(acme));
      assertLoginError(await new Browser().request(callback), 'missing_flow');
    });

    it('a refusal at the IDP comes back as idp_error', async () => {
      const account = newAccount(acme);
      const { response } = await loginThrough(base, 'acme', acme, { ...account, password: 'wrong password' });
      assertLoginError(response, 'idp_error');
    });

    it('an unknown IDP is refused (unknown_idp) on both routes', async () => {
      assertLoginError(await new Browser().request(`${base}/oauth2/okta/login?returnUrl=/x`), 'unknown_idp');
      assertLoginError(await new Browser().request(`${base}/oauth2/okta/tokens?code=abc&state=def`), 'unknown_idp');
      assertLoginError(await new Browser().request(`${base}/oauth2/ACME/login`), 'unknown_idp');
    });

    it('an unsafe returnUrl is refused before anything else happens (unsafe_return_url)', async () => {
      for (const returnUrl of [
        'https://evil.example',
        '//evil.example',
        '/\\evil.example',
        '\\\\evil.example',
        '/\t/evil.example',
        'javascript:alert(1)',
        'evil',
      ]) {
        const browser = new Browser();
        const response = await startLogin(browser, base, 'acme', returnUrl);
        assertLoginError(response, 'unsafe_return_url');
        for (const name of FLOW_COOKIES)
          assert.equal(browser.cookie(originOf(base), name), undefined, `no ${name} for ${JSON.stringify(returnUrl)}`);
      }
      // A returnUrl slipped into the state cookie is checked again at the callback.
      const browser = new Browser();
      const callback = await toCallback(browser, base, 'acme', acme, newAccount(acme), '/fine');
      const origin = originOf(base);
      const [state] = browser.cookie(origin, STATE_COOKIE)!.value.split('.');
      browser.setCookie(origin, STATE_COOKIE, `${state}.${Buffer.from('//evil.example').toString('base64url')}`);
      assertLoginError(await browser.request(callback), 'unsafe_return_url');
    });

    it('malformed callbacks end on the login page, never in a 500', async () => {
      const browser = new Browser();
      const callback = await toCallback(browser, base, 'acme', acme, newAccount(acme));
      const attempts = [
        '',
        '?code=',
        '?state=',
        `?code=${'a'.repeat(5000)}&state=${callback.searchParams.get('state')}`,
        `?code=abc&state=${callback.searchParams.get('state')}&state=other`,
        '?error=access_denied',
        '?code=%ZZ&state=%',
      ];
      for (const query of attempts) {
        const response = await browser.clone().request(`${base}/oauth2/acme/tokens${query}`);
        assert.equal(response.status, 307, `${query.slice(0, 60)} → 307, got ${response.status}: ${response.text.slice(0, 200)}`);
        assert.match(response.headers.get('location') ?? '', /^\/login\?error=[a-z_]+$/);
      }
      // None of that spoiled the real callback.
      assertSignedIn(await browser.request(callback), '/');
    });

    it('an IDP that is down at start-up does not stop the server; its login says idp_unavailable until it is up', async () => {
      const downPort = await freePort();
      const other = await startTestServer(server.dialect, {
        ...AUTH_ENV,
        ...idpEnv('ACME', ACME_CLIENT, `http://127.0.0.1:${downPort}/.well-known/openid-configuration`),
        SERVICE_LOG_LEVEL: 'silent',
      });
      cleanup.push(() => other.close());
      expectStatus(await anonymous(other.url).get('/healthz'), 200);
      const data = expectStatus(await anonymous(other.url).get('/auth/config'), 200).body.data;
      assert.deepEqual(data.idps, [{ slug: 'acme', display_name: 'Acme', login_url: '/oauth2/acme/login' }]);
      const browser = new Browser();
      assertLoginError(await startLogin(browser, other.url, 'acme'), 'idp_unavailable');
      assert.equal(browser.cookie(originOf(other.url), STATE_COOKIE), undefined, 'no flow cookies');
      expectStatus(await loginRequest(other.url, 'admin@localhost', 'admin'), 204, 'password login still works');

      const late = await startAcme(downPort, other.url);
      cleanup.push(() => late.close());
      const { response } = await loginThrough(other.url, 'acme', late, newAccount(late));
      assertSignedIn(response, '/');
    });

    it('under SERVICE_HOST_ROOT_PATH=/sightline the whole flow carries the root path', async () => {
      const idpPort = await freePort();
      const rooted = await startTestServer(server.dialect, {
        ...AUTH_ENV,
        ...idpEnv('ACME', ACME_CLIENT, `http://127.0.0.1:${idpPort}/.well-known/openid-configuration`),
        SERVICE_HOST_ROOT_PATH: '/sightline',
      });
      cleanup.push(() => rooted.close());
      assert.ok(rooted.url.endsWith('/sightline'));
      const idp = await startAcme(idpPort, rooted.url);
      cleanup.push(() => idp.close());

      const data = expectStatus(await anonymous(rooted.url).get('/auth/config'), 200).body.data;
      assert.equal(data.idps[0].login_url, '/sightline/oauth2/acme/login');

      const browser = new Browser();
      const start = await startLogin(browser, rooted.url, 'acme');
      assert.equal(start.status, 302);
      assert.equal(start.location!.searchParams.get('redirect_uri'), `${rooted.url}/oauth2/acme/tokens`);
      for (const name of FLOW_COOKIES) assert.equal(start.setCookies.get(name)?.attributes.get('path'), '/sightline', `${name} Path`);
      const callback = await signInAtIdp(browser, idp, start.location!, newAccount(idp));
      assert.equal(callback.pathname, '/sightline/oauth2/acme/tokens');
      const response = await browser.request(callback);
      assertSignedIn(response, '/sightline/', '/sightline');
      const me = expectStatus(await apiOf(browser, rooted.url).get('/v1/user'), 200).body.data;
      assert.equal(me.auth_method, 'OAUTH2');

      assertLoginError(await new Browser().request(`${rooted.url}/oauth2/nope/login`), 'unknown_idp', '/sightline');
      assertLoginError(
        await new Browser().request(`${rooted.url}/oauth2/acme/login?returnUrl=//evil.example`),
        'unsafe_return_url',
        '/sightline',
      );
    });
  },
  MAIN_ENV,
);
