/**
 * Password recovery by email in Debian's Chromium: "Forgot your password?" on the login page
 * (shown because SMTP is configured), the mail from a real SMTP server on loopback, and the
 * reset-password-with-token page of its link. Runs at the root and under SERVICE_HOST_ROOT_PATH.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TestServer } from '../../packages/server/test/helpers/server.js';
import { createActiveUser, sessionOf, setupDefaultAdmin, type TestUser } from '../../packages/server/test/helpers/auth.js';
import { startSmtpServer, type SmtpTestServer } from '../../packages/server/test/helpers/smtp.js';
import { ROOT_PATHS, launchChromium, openPage, startAuthServer, submitLogin, uiTest, waitForPath, type OpenedPage } from './harness.js';

let browser: Browser;
let smtp: SmtpTestServer;
before(async () => {
  browser = await launchChromium();
  smtp = await startSmtpServer({ tls: null });
});
after(async () => {
  await browser?.close();
  await smtp?.close();
});

/** The reset link in a mail: its path before the page (the root path) and its token. */
const LINK = /https?:\/\/[^/\s"<>]+([^\s"<>]*?)\/reset-password-with-token\?token=([A-Za-z0-9_-]+)/;

for (const rootPath of ROOT_PATHS) {
  describe(`UI: password reset by email [root path "${rootPath || '/'}"]`, () => {
    let server: TestServer;
    let member: TestUser;
    let opened: OpenedPage;
    let resetUrl = '';
    const test = uiTest(() => [opened]);

    before(async () => {
      server = await startAuthServer(rootPath, { SERVICE_SMTP_HOSTNAME: '127.0.0.1', SERVICE_SMTP_PORT: String(smtp.port) });
      const admin = await setupDefaultAdmin(server.url);
      member = await createActiveUser(server.url, sessionOf(server.url, admin), 'member');
      opened = await openPage(browser);
    });
    after(async () => {
      await opened?.close();
      await server?.close();
    });

    test('"Forgot your password?" mails a link to the reset page', async () => {
      const { page } = opened;
      await page.goto(`${server.url}/login`);
      await page.getByRole('link', { name: 'Forgot your password?' }).click();
      await waitForPath(page, server, '/forgot-password');
      const mail = smtp.nextMail(member.email);
      await page.getByLabel(/^Email/).fill(member.email);
      await page.getByRole('button', { name: 'Send reset link' }).click();
      await page.getByText('Check your inbox').waitFor();
      const match = LINK.exec((await mail).text);
      assert.ok(match, 'the mail carries a reset link');
      assert.equal(match[1], rootPath, 'the link keeps the root path');
      resetUrl = `${server.url}/reset-password-with-token?token=${match[2]}`;
    });

    test('the link sets a new password, which signs in; the link works only once', async () => {
      const { page } = opened;
      await page.goto(resetUrl);
      await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      const next = `mailed-new-password-${rootPath.length}`;
      await page.getByLabel(/^New password/).fill(next);
      await page.getByLabel(/^Confirm new password/).fill(`${next}-typo`);
      await page.getByRole('button', { name: 'Set new password' }).click();
      await page.getByRole('alert').getByText('The two passwords differ').waitFor();
      await page.getByLabel(/^Confirm new password/).fill(next);
      await page.getByRole('button', { name: 'Set new password' }).click();
      await page.getByText('Your new password is set.').waitFor();
      await page.getByRole('link', { name: 'Sign in' }).click();
      await waitForPath(page, server, '/login');
      await submitLogin(page, server.url, member.email, next);
      await waitForPath(page, server, '/projects');

      await page.goto(resetUrl);
      await page.getByLabel(/^New password/).fill('another-password-1');
      await page.getByLabel(/^Confirm new password/).fill('another-password-1');
      await page.getByRole('button', { name: 'Set new password' }).click();
      await page.getByRole('alert').getByText('This link is invalid, already used or expired.', { exact: false }).waitFor();
    });
  });
}
