/**
 * Directory (LDAP) sign-in from the login page, in Debian's Chromium against a real slapd
 * (docs/ldap.md): the login page offers it when the server has SERVICE_LDAP_* set, a wrong
 * password and an unreachable directory each get a readable message, and a directory user lands
 * on the page they asked for, shown as a directory account in Settings. At phone width too.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TestServer } from '../../packages/server/test/helpers/server.js';
import { LDAP_SUFFIX, ldapEnv, startLdapServer, type TestLdapServer } from '../../packages/server/test/helpers/ldap-server.js';
import { launchChromium, openPage, startAuthServer, uiTest, waitForPath, type OpenedPage } from './harness.js';

const SERVICE_DN = `cn=sightline,${LDAP_SUFFIX}`;
const SERVICE_PASSWORD = 'service-account-secret';
const USER = { uid: 'ursula', cn: 'Ursula Directory', mail: 'ursula@example.com', password: 'ursula-directory-password' };
const USER_DN = `uid=${USER.uid},ou=users,${LDAP_SUFFIX}`;

let browser: Browser;
let ldap: TestLdapServer;
let server: TestServer;
before(async () => {
  browser = await launchChromium();
  ldap = await startLdapServer();
  ldap.add(
    [
      `dn: ${SERVICE_DN}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: sightline\nuserPassword: ${SERVICE_PASSWORD}\n`,
      `dn: ${USER_DN}\nobjectClass: inetOrgPerson\nuid: ${USER.uid}\ncn: ${USER.cn}\nsn: Directory\nmail: ${USER.mail}\nuserPassword: ${USER.password}\n`,
      `dn: cn=developers,ou=groups,${LDAP_SUFFIX}\nobjectClass: groupOfNames\ncn: developers\nmember: ${USER_DN}\n`,
    ].join('\n'),
  );
  server = await startAuthServer('', {
    SERVICE_LOG_LEVEL: 'fatal',
    ...ldapEnv(ldap, { dn: SERVICE_DN, password: SERVICE_PASSWORD }, [
      { group_dn: `cn=developers,ou=groups,${LDAP_SUFFIX}`, role: 'MEMBER' },
    ]),
  });
});
after(async () => {
  await server?.close();
  await ldap?.close();
  await browser?.close();
});

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  describe(`UI: directory (LDAP) sign-in at ${viewport.width} px`, () => {
    let opened: OpenedPage;
    const test = uiTest(() => [opened]);
    before(async () => {
      opened = await openPage(browser, { viewport });
    });
    after(async () => {
      await opened?.close();
    });

    test('a wrong password is refused in a sentence, the right one lands on the page asked for', async () => {
      const { page } = opened;
      await page.goto(`${server.url}/settings`);
      await waitForPath(page, server, '/login');
      // Email is the default; the directory is one click away.
      await page.getByLabel(/^Email/).waitFor();
      await page.getByText('LDAP', { exact: true }).click();
      assert.equal(await page.getByText('An administrator can set a new one').count(), 0, 'no password hint for directory accounts');
      const fits = (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) as boolean;
      assert.ok(fits, 'the login form fits the width of the screen');
      await page.getByLabel(/^Username/).fill(USER.uid);
      await page.getByLabel(/^Password/).fill('not-the-password');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('alert').getByText('Wrong username or password').waitFor();
      assert.equal(await page.getByLabel(/^Password/).inputValue(), '', 'the password is cleared');

      await page.getByLabel(/^Password/).fill(USER.password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await waitForPath(page, server, '/settings');
      await page.getByText('You sign in with your directory (LDAP) account').waitFor();
      await page.getByText('directory (ldap)', { exact: true }).waitFor();
      await opened.context.clearCookies();
    });

    test('an unreachable directory gets its own message, not "wrong password"', async () => {
      const { page } = opened;
      await ldap.stop();
      try {
        await page.goto(`${server.url}/login`);
        await page.getByText('LDAP', { exact: true }).click();
        await page.getByLabel(/^Username/).fill(USER.uid);
        await page.getByLabel(/^Password/).fill(USER.password);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByRole('alert').getByText('Directory not reachable').waitFor();
        assert.equal(await page.getByText('Wrong username or password').count(), 0);
      } finally {
        await ldap.start();
      }
    });
  });
}
