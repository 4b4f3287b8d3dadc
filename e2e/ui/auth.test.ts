/**
 * The UI's sign-in, forced password change, user management and session handling, in Debian's
 * Chromium against a real server; every suite runs at the root and under SERVICE_HOST_ROOT_PATH.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../../packages/server/test/helpers/server.js';
import { DEFAULT_ADMIN_EMAIL, DEFAULT_ADMIN_PASSWORD, unique } from '../../packages/server/test/helpers/auth.js';
import {
  ROOT_PATHS,
  assertAllUnderRoot,
  completePasswordChange,
  firstAdminLogin,
  launchChromium,
  openPage,
  startAuthServer,
  submitLogin,
  uiTest,
  waitForPath,
  type OpenedPage,
} from './harness.js';

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

/** Settings tabs a user sees, by name. */
async function settingsTabs(page: Page): Promise<string[]> {
  await page.getByRole('tab', { name: 'Account' }).waitFor();
  return (await page.getByRole('tab').allInnerTexts()).map((text) => text.trim());
}

for (const rootPath of ROOT_PATHS) {
  describe(`UI: sign-in and users [root path "${rootPath || '/'}"]`, () => {
    let server: TestServer;
    let admin: OpenedPage;
    let adminPassword: string;
    const member = {
      email: `${unique('member')}@example.com`.toLowerCase(),
      username: unique('member'),
      password: 'member-own-password-1',
      temporary: '',
    };
    let memberPage: OpenedPage;
    const test = uiTest(() => [admin, memberPage]);

    before(async () => {
      server = await startAuthServer(rootPath);
      admin = await openPage(browser);
    });
    after(async () => {
      await memberPage?.close();
      await admin?.close();
      await server?.close();
    });

    test('the UI is served under the root path and asks to sign in', async () => {
      const { page } = admin;
      await page.goto(`${server.url}/projects`);
      await waitForPath(page, server, '/login');
      assert.match(new URL(page.url()).search, /returnTo=%2Fprojects/);
      await page.getByRole('heading', { name: 'Sign in to Sightline' }).waitFor();
      // No SMTP on this server: no "Forgot your password?" link.
      assert.equal(await page.getByRole('link', { name: 'Forgot your password?' }).count(), 0);
    });

    test('wrong credentials and a locked account get clear messages', async () => {
      const { page } = admin;
      const victim = `${unique('nobody')}@example.com`;
      await submitLogin(page, server.url, DEFAULT_ADMIN_EMAIL, 'not-the-password');
      await page.getByTestId('login-error').getByText('Wrong email or password').waitFor();
      for (let attempt = 0; attempt < 5; attempt++) {
        await page.getByLabel(/^Email/).fill(victim);
        await page.getByLabel(/^Password/).fill('wrong-password');
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByTestId('login-error').waitFor();
      }
      await page.getByLabel(/^Password/).fill('wrong-password');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByTestId('login-error').getByText('Too many attempts').waitFor();
      assert.match(await page.getByTestId('login-error').innerText(), /Try again in \d+ (minutes|seconds|minute)/);
    });

    test('the first sign-in as the default admin forces a password change before anything else', async () => {
      const { page } = admin;
      await submitLogin(page, server.url, DEFAULT_ADMIN_EMAIL, DEFAULT_ADMIN_PASSWORD);
      await waitForPath(page, server, '/change-password');
      await page.getByRole('heading', { name: 'Set your own password' }).waitFor();
      // Other pages are out of reach until the password is changed.
      await page.goto(`${server.url}/settings`);
      await waitForPath(page, server, '/change-password');
      // A wrong current password is refused with a clear message.
      await completePasswordChange(page, 'not-the-current-one', 'admin-password-1');
      await page.getByRole('alert').getByText('The current password is not correct.').waitFor();
      adminPassword = 'admin-password-1';
      await completePasswordChange(page, DEFAULT_ADMIN_PASSWORD, adminPassword);
      await waitForPath(page, server, '/projects');
      await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
      await page.getByTestId('user-menu').getByText('admin', { exact: true }).first().waitFor();
      // Signed in, every section, the search button and the account menu fit on the header's
      // row at 1440 px (the account menu was cut off: issue "What a demanding user hits…") and at
      // 1280 px, where the name gives way to the avatar and the menu names the account.
      for (const width of [1440, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        const menuBox = await page.getByTestId('user-menu').boundingBox();
        assert.ok(
          menuBox && menuBox.x + menuBox.width <= width,
          `the account menu ends at ${menuBox && menuBox.x + menuBox.width} px on a ${width} px screen`,
        );
        const overflow = (await page.evaluate(
          '(() => { const header = document.querySelector("header"); return header.scrollWidth - header.clientWidth; })()',
        )) as number;
        assert.ok(overflow <= 0, `the header's content is ${overflow} px wider than a ${width} px screen`);
      }
      await page.getByTestId('user-menu').click();
      await page.getByRole('menu').getByText('admin · ADMIN').waitFor();
      await page.keyboard.press('Escape');
      await page.setViewportSize({ width: 1440, height: 900 });
      // The old password no longer works.
      const old = await page.request.post(`${server.url}/auth/login`, {
        data: { email: DEFAULT_ADMIN_EMAIL, password: DEFAULT_ADMIN_PASSWORD },
      });
      assert.equal(old.status(), 401);
    });

    test('an admin sees every settings section and creates a member with a temporary password', async () => {
      const { page } = admin;
      await page.getByRole('link', { name: 'Settings' }).first().click();
      assert.deepEqual(await settingsTabs(page), [
        'Account',
        'My API keys',
        'Model prices',
        'Users',
        'System keys',
        'All user keys',
        'Providers',
        'Jobs',
      ]);
      await page.getByRole('tab', { name: 'Users' }).click();
      await page.getByRole('button', { name: 'Add user' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel(/^Email/).fill(member.email);
      await dialog.getByLabel(/^Username/).fill(member.username);
      await dialog.getByRole('button', { name: 'Create user' }).click();
      await dialog.getByText('can now sign in as a member').waitFor();
      member.temporary = (await dialog.getByTestId('secret-value').innerText()).trim();
      assert.ok(member.temporary.length >= 8, 'a generated temporary password is shown');
      await dialog.getByRole('button', { name: 'Done' }).click();
      const row = page.getByTestId(`user-row-${member.email}`);
      await row.getByText('password change pending').waitFor();
      await row.getByText('member', { exact: true }).waitFor();
    });

    test('an admin sees the background jobs: each with its state, and the finished conversion as finished', async () => {
      const { page } = admin;
      await page.getByRole('tab', { name: 'Jobs' }).click();
      const table = page.getByRole('table', { name: 'Background jobs' });
      await table.getByText('costs', { exact: true }).waitFor();
      const names = await table.getByTestId('job-row').locator('td:first-child p:first-child').allInnerTexts();
      for (const name of ['dataset-uploads', 'costs', 'retention', 'long-attributes-conversion'])
        assert.ok(names.includes(name), names.join(', '));
      // Nothing to convert in a new database: the conversion ends at its first run, and the page shows it within a refresh.
      const conversion = table.getByTestId('job-row').filter({ hasText: 'long-attributes-conversion' });
      await conversion.getByText('finished', { exact: true }).waitFor({ timeout: 15_000 });
      await conversion.getByText('none', { exact: true }).waitFor();
    });

    test('the member signs in, must set a password, and sees no admin sections', async () => {
      memberPage = await openPage(browser);
      const { page } = memberPage;
      await submitLogin(page, server.url, member.email, member.temporary);
      await completePasswordChange(page, member.temporary, member.password);
      await waitForPath(page, server, '/projects');
      await page.goto(`${server.url}/settings`);
      assert.deepEqual(await settingsTabs(page), ['Account', 'My API keys', 'Model prices']);
      // Asking for an admin tab by URL shows the member's own account instead.
      await page.goto(`${server.url}/settings?tab=users`);
      await page.getByRole('tab', { name: 'Account', selected: true }).waitFor();
      assert.equal(await page.getByRole('table', { name: 'Users' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Add user' }).count(), 0);
      // Email is read-only; the username can be changed.
      assert.equal(await page.getByLabel(/^Email/).inputValue(), member.email);
      assert.equal(await page.getByLabel(/^Email/).getAttribute('readonly'), '');
      const renamed = `${member.username}-x`;
      await page.getByLabel(/^Username/).fill(renamed);
      await page.getByRole('button', { name: 'Save profile' }).click();
      await page.getByText(`Your username is now ${renamed}.`).waitFor();
      member.username = renamed;
      // The server refuses the member anyway.
      const users = await page.request.get(`${server.url}/v1/users`);
      assert.equal(users.status(), 403);
      assertAllUnderRoot(memberPage.requests, server);
    });

    test('a session whose access token expired is refreshed silently; without a refresh token the login page comes back', async () => {
      const { page, context } = memberPage;
      await page.goto(`${server.url}/settings`);
      await page.getByRole('tab', { name: 'Account' }).waitFor();
      await context.clearCookies({ name: 'sightline-access-token' });
      const refreshed = page.waitForResponse((response) => response.url().endsWith('/auth/refresh') && response.status() === 204);
      await page.reload();
      await refreshed;
      await page.getByRole('tab', { name: 'My API keys' }).click();
      await page.getByText('You have no API keys yet.').waitFor();
      await waitForPath(page, server, '/settings');

      await context.clearCookies();
      // The projects page asks the server again: 401, the refresh fails too, and the login page explains why.
      await page.getByRole('link', { name: 'Projects' }).first().click();
      await waitForPath(page, server, '/login');
      await page.getByText('Your session has ended. Sign in again to continue.').waitFor();
      assert.match(new URL(page.url()).search, /returnTo=%2Fprojects/);
      await page.getByLabel(/^Email/).fill(member.email);
      await page.getByLabel(/^Password/).fill(member.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await waitForPath(page, server, '/projects');
    });

    test('an admin renames the member, sets a temporary password and changes the role', async () => {
      const { page } = admin;
      await page.goto(`${server.url}/settings?tab=users`);
      const row = page.getByTestId(`user-row-${member.email}`);
      const actions = () => row.getByRole('button', { name: `Actions for ${member.username}` });

      await actions().click();
      await page.getByRole('menuitem', { name: 'Change username' }).click();
      const renamed = `${member.username}-by-admin`;
      await page
        .getByRole('dialog')
        .getByLabel(/^Username/)
        .fill(renamed);
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
      member.username = renamed;
      await row.getByText(renamed, { exact: true }).waitFor();

      await actions().click();
      await page.getByRole('menuitem', { name: 'Set new password' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Set password' }).click();
      await dialog.getByText('choose their own at their next sign-in').waitFor();
      member.temporary = (await dialog.getByTestId('secret-value').innerText()).trim();
      await dialog.getByRole('button', { name: 'Done' }).click();
      await row.getByText('password change pending').waitFor();

      await actions().click();
      await page.getByRole('menuitem', { name: 'Make admin' }).click();
      await row.getByText('admin', { exact: true }).waitFor();
      await actions().click();
      await page.getByRole('menuitem', { name: 'Make member' }).click();
      await row.getByText('member', { exact: true }).waitFor();
      // Nobody can change their own role or delete themselves.
      await page.getByTestId(`user-row-${DEFAULT_ADMIN_EMAIL}`).getByRole('button', { name: 'Actions for admin' }).click();
      assert.equal(await page.getByRole('menuitem', { name: 'Delete user' }).isDisabled(), true);
      assert.equal(await page.getByRole('menuitem', { name: 'Make member' }).isDisabled(), true);
      await page.keyboard.press('Escape');
    });

    test('an admin deletes the member after a confirmation that says it is permanent; the member can no longer sign in', async () => {
      const { page } = admin;
      await page.goto(`${server.url}/settings?tab=users`);
      const row = page.getByTestId(`user-row-${member.email}`);
      await row.getByText(member.username, { exact: true }).waitFor();
      await row.getByRole('button', { name: `Actions for ${member.username}` }).click();
      await page.getByRole('menuitem', { name: 'Delete user' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('permanent', { exact: true }).waitFor();
      assert.match(await dialog.innerText(), /cannot be undone/);
      await dialog.getByRole('button', { name: 'Delete permanently' }).click();
      await row.waitFor({ state: 'detached' });

      // The member's open page loses its session at the next request and shows the login page.
      const { page: gone } = memberPage;
      await gone.getByRole('button', { name: 'Refresh' }).click();
      await waitForPath(gone, server, '/login');
      await submitLogin(gone, server.url, member.email, member.temporary);
      await gone.getByTestId('login-error').getByText('Wrong email or password').waitFor();
      assertAllUnderRoot(admin.requests, server);
    });

    test('signing out ends the session', async () => {
      const { page } = admin;
      await page.goto(`${server.url}/projects`);
      await page.getByTestId('user-menu').click();
      await page.getByRole('menuitem', { name: 'Sign out' }).click();
      await waitForPath(page, server, '/login');
      await page.goto(`${server.url}/settings`);
      await waitForPath(page, server, '/login');
      assert.ok(adminPassword);
    });
  });
}

describe('UI: authentication off', () => {
  let server: TestServer;
  let opened: OpenedPage;
  const test = uiTest(() => [opened]);
  before(async () => {
    server = await startTestServer('sqlite', { SERVICE_HOST_ROOT_PATH: '/sightline' });
    opened = await openPage(browser);
  });
  after(async () => {
    await opened?.close();
    await server?.close();
  });

  test('has no login screen: the projects page opens at once and settings explain that auth is off', async () => {
    const { page } = opened;
    await page.goto(`${server.url}/`);
    await waitForPath(page, server, '/projects');
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    await page.getByText('Auth off').waitFor();
    await page.goto(`${server.url}/login`);
    await waitForPath(page, server, '/projects');
    await page.getByRole('link', { name: 'Settings' }).first().click();
    await page.getByText('Authentication is off').waitFor();
    assertAllUnderRoot(opened.requests, server);
  });
});

describe('UI: a page of the same site on another port cannot act as the signed-in user (CSRF, docs/auth.md)', () => {
  let server: TestServer;
  let opened: OpenedPage;
  let attacker: http.Server;
  let attackerUrl: string;
  const name = unique('csrf-dataset');
  const test = uiTest(() => [opened]);
  before(async () => {
    server = await startAuthServer('');
    opened = await openPage(browser);
    // Another port of the same host: the same site, so the SameSite=Strict session cookie goes along.
    attacker = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><title>waiting</title><script>
        const form = new FormData();
        form.append('name', ${JSON.stringify(name)});
        form.append('input_keys[]', 'q');
        form.append('output_keys[]', 'a');
        form.append('file', new Blob(['q,a\\nx,y\\n'], { type: 'text/csv' }), 'attack.csv');
        fetch(${JSON.stringify(`${server.url}/v1/datasets/upload`)}, { method: 'POST', mode: 'no-cors', credentials: 'include', body: form })
          .then(() => { document.title = 'sent'; }, () => { document.title = 'sent'; });
      </script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as { port: number }).port}/`;
  });
  after(async () => {
    await opened?.close();
    await server?.close();
    await new Promise((resolve) => attacker?.close(resolve));
  });

  test("a no-cors multipart POST from that page creates no dataset, and the user's own pages still can", async () => {
    const { page } = opened;
    await firstAdminLogin(page, server.url);
    const response = page.waitForResponse((answer) => answer.url().endsWith('/v1/datasets/upload'));
    await page.goto(attackerUrl);
    await page.waitForFunction("document.title === 'sent'");
    assert.equal((await response).status(), 403, 'the forged upload was refused');
    const datasets = (await (await page.request.get(`${server.url}/v1/datasets?name=${encodeURIComponent(name)}`)).json()) as {
      data: unknown[];
    };
    assert.deepEqual(datasets.data, [], 'no dataset was created');
    // The server's own page, with the same cookie, may.
    await page.goto(`${server.url}/datasets`);
    const own = await page.evaluate(async (datasetName) => {
      const form = new FormData();
      form.append('name', datasetName);
      form.append('input_keys[]', 'q');
      form.append('output_keys[]', 'a');
      form.append('file', new Blob(['q,a\nx,y\n'], { type: 'text/csv' }), 'own.csv');
      return (await fetch('/v1/datasets/upload', { method: 'POST', body: form })).status;
    }, `${name}-own`);
    assert.equal(own, 200);
  });
});
