/**
 * POST /oauth2/{idp}/login, the form-post start of the OpenID Connect flow that Phoenix's login page
 * uses (docs/oidc.md): the same answer as GET, whatever form body comes with it; returnUrl is read
 * from the query string. End to end against a real IDP on loopback (oidc-provider).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeEachDialect, startTestServer } from '../helpers/server.js';
import { Browser, freePort, signInAtIdp, startOidcProvider, type OidcTestProvider } from '../helpers/oidc-provider.js';
import { ACCESS_COOKIE, AUTH_ENV, ApiClient, CookieJar, REFRESH_COOKIE, expectStatus } from '../helpers/auth.js';

const CLIENT = { client_id: 'sightline-form', client_secret: 'form-client-secret-0123456789' };
const FLOW_COOKIES = ['sightline-oauth2-state', 'sightline-oauth2-nonce', 'sightline-oauth2-code-verifier'];
const IDP_PORT = await freePort();
const ENV: Record<string, string> = {
  ...AUTH_ENV,
  SERVICE_LOG_LEVEL: 'fatal',
  SERVICE_OAUTH2_ACME_CLIENT_ID: CLIENT.client_id,
  SERVICE_OAUTH2_ACME_CLIENT_SECRET: CLIENT.client_secret,
  SERVICE_OAUTH2_ACME_OIDC_CONFIG_URL: `http://127.0.0.1:${IDP_PORT}/.well-known/openid-configuration`,
};
const ACCOUNT = {
  sub: 'form-user',
  password: 'form-user-password',
  email: 'form.user@example.com',
  email_verified: true,
  name: 'Form User',
};

describeEachDialect(
  'POST /oauth2/{idp}/login',
  (current) => {
    let base: string;
    let idp: OidcTestProvider;
    before(async () => {
      base = current().url;
      idp = await startOidcProvider({
        port: IDP_PORT,
        clients: [{ ...CLIENT, redirect_uris: [`${base}/oauth2/acme/tokens`], token_endpoint_auth_method: 'client_secret_basic' }],
        accounts: [ACCOUNT],
      });
    });
    after(async () => {
      await idp?.close();
    });

    it('starts the flow like GET (302 to the IDP, flow cookies) and the login completes', async () => {
      const browser = new Browser();
      const start = await browser.request(`${base}/oauth2/acme/login?returnUrl=${encodeURIComponent('/projects?tab=1')}`, {
        method: 'POST',
        form: { ignored: 'field' },
      });
      assert.equal(start.status, 302, `POST start → 302, got ${start.status}: ${start.text}`);
      assert.equal(start.location?.origin, idp.origin);
      for (const name of FLOW_COOKIES) assert.ok(start.setCookies.get(name)?.value, `${name} is set`);
      const callback = await signInAtIdp(browser, idp, start.location!, ACCOUNT);
      const done = await browser.request(callback);
      assert.equal(done.status, 302);
      assert.equal(done.headers.get('location'), '/projects?tab=1', 'returnUrl came from the query string');
      const origin = new URL(base).origin;
      const jar = new CookieJar(
        [ACCESS_COOKIE, REFRESH_COOKIE].map(
          (name) => [name, decodeURIComponent(browser.cookie(origin, name)?.value ?? '')] as [string, string],
        ),
      );
      const viewer = expectStatus(await new ApiClient(base, { jar }).get('/v1/user'), 200).body.data;
      assert.equal(viewer.email, ACCOUNT.email);
      assert.equal(viewer.auth_method, 'OAUTH2');
    });

    it('takes an empty body, and refuses what GET refuses with the same redirect to the login page', async () => {
      const empty = await new Browser().request(`${base}/oauth2/acme/login`, { method: 'POST' });
      assert.equal(empty.status, 302);
      assert.equal(empty.location?.origin, idp.origin);
      const unknown = await new Browser().request(`${base}/oauth2/okta/login`, { method: 'POST', form: {} });
      assert.equal(unknown.status, 307);
      assert.equal(unknown.headers.get('location'), '/login?error=unknown_idp');
      const unsafe = await new Browser().request(`${base}/oauth2/acme/login?returnUrl=//evil.example`, { method: 'POST', form: {} });
      assert.equal(unsafe.headers.get('location'), '/login?error=unsafe_return_url');
    });
  },
  ENV,
);

it('POST /oauth2/{idp}/login answers 403 with auth off, like GET', async () => {
  const off = await startTestServer('sqlite', { SERVICE_LOG_LEVEL: 'fatal' });
  try {
    for (const method of ['GET', 'POST']) {
      const response = await fetch(`${off.url}/oauth2/acme/login`, { method, redirect: 'manual' });
      assert.equal(response.status, 403, method);
      assert.deepEqual(await response.json(), { detail: 'authentication is not enabled' });
    }
  } finally {
    await off.close();
  }
});
