/**
 * Sign-in through an identity provider from the login page, in Debian's Chromium: the button of
 * a real OpenID Connect provider on loopback (oidc-provider) completes the login and returns to
 * the page the user wanted; a refused login comes back with a readable message.
 * Runs at the root and under SERVICE_HOST_ROOT_PATH.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { TestServer } from '../../packages/server/test/helpers/server.js';
import { unique } from '../../packages/server/test/helpers/auth.js';
import { freePort, startOidcProvider, type IdpAccount, type OidcTestProvider } from '../../packages/server/test/helpers/oidc-provider.js';
import {
  ROOT_PATHS,
  assertAllUnderRoot,
  launchChromium,
  openPage,
  startAuthServer,
  uiTest,
  waitForPath,
  type OpenedPage,
} from './harness.js';

const CLIENT = { client_id: 'sightline-ui', client_secret: 'ui-client-secret-0123456789' };

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

/** Fills the IDP's login form and its consent form. */
async function signInAtIdp(page: Page, idp: OidcTestProvider, account: IdpAccount) {
  await page.waitForURL((url) => url.origin === idp.origin);
  await page.locator('input[name=login]').fill(account.sub);
  await page.locator('input[name=password]').fill(account.password);
  await page.getByRole('button', { name: 'Continue' }).click();
}

for (const rootPath of ROOT_PATHS) {
  describe(`UI: identity provider sign-in [root path "${rootPath || '/'}"]`, () => {
    let server: TestServer;
    let idp: OidcTestProvider;
    let opened: OpenedPage;
    const test = uiTest(() => [opened]);

    before(async () => {
      const port = await freePort();
      server = await startAuthServer(rootPath, {
        SERVICE_LOG_LEVEL: 'fatal',
        SERVICE_OAUTH2_ACME_CLIENT_ID: CLIENT.client_id,
        SERVICE_OAUTH2_ACME_CLIENT_SECRET: CLIENT.client_secret,
        SERVICE_OAUTH2_ACME_OIDC_CONFIG_URL: `http://127.0.0.1:${port}/.well-known/openid-configuration`,
        SERVICE_OAUTH2_ACME_DISPLAY_NAME: 'Acme SSO',
      });
      idp = await startOidcProvider({
        port,
        clients: [{ ...CLIENT, redirect_uris: [`${server.url}/oauth2/acme/tokens`], token_endpoint_auth_method: 'client_secret_basic' }],
      });
      opened = await openPage(browser);
    });
    after(async () => {
      await opened?.close();
      await idp?.close();
      await server?.close();
    });

    const newAccount = (): IdpAccount => {
      const name = unique('idp-user');
      const account = {
        sub: `sub-${name}`,
        password: `pw-${name}`,
        email: `${name}@idp.example`,
        email_verified: true,
        name: `Person ${name}`,
        preferred_username: name,
      };
      idp.accounts.set(account.sub, account);
      return account;
    };

    test('the IDP button signs a new user in as a member and returns to the page they asked for', async () => {
      const { page } = opened;
      const account = newAccount();
      await page.goto(`${server.url}/settings?tab=api-keys`);
      await waitForPath(page, server, '/login');
      const button = page.getByRole('link', { name: 'Sign in with Acme SSO' });
      const href = await button.getAttribute('href');
      assert.equal(href, `${rootPath}/oauth2/acme/login?returnUrl=${encodeURIComponent(`${rootPath}/settings?tab=api-keys`)}`);
      await button.click();
      await signInAtIdp(page, idp, account);
      // The consent page of the IDP.
      await page.getByRole('button', { name: 'Continue' }).click();
      await waitForPath(page, server, '/settings');
      assert.equal(new URL(page.url()).searchParams.get('tab'), 'api-keys');
      await page.getByRole('tab', { name: 'My API keys', selected: true }).waitFor();
      await page.getByTestId('user-menu').getByText('member', { exact: true }).waitFor();
      assert.deepEqual(
        (await page.getByRole('tab').allInnerTexts()).map((text) => text.trim()),
        ['Account', 'My API keys', 'Model prices'],
      );
      await page.getByRole('tab', { name: 'Account' }).click();
      assert.equal(await page.getByLabel(/^Email/).inputValue(), account.email);
      await page.getByText('You sign in through an identity provider').waitFor();
      assert.deepEqual(idp.errors, []);
      assertAllUnderRoot(opened.requests, server);
    });

    test('a sign-in the IDP refuses comes back to the login page with a readable message', async () => {
      const { page, context } = opened;
      await context.clearCookies();
      const account = newAccount();
      await page.goto(`${server.url}/login`);
      await page.getByRole('link', { name: 'Sign in with Acme SSO' }).click();
      await signInAtIdp(page, idp, { ...account, password: 'not-the-password' });
      await waitForPath(page, server, '/login');
      assert.equal(new URL(page.url()).searchParams.get('error'), 'idp_error');
      await page.getByRole('alert').getByText('The identity provider refused the sign-in.').waitFor();
    });
  });
}
