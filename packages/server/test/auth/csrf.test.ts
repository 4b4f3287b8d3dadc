/** CSRF trusted origins (docs/auth.md, "Protection against guessing and forgery"): Origin, else Referer, must be trusted or the server's own, when the list is set. */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect } from '../helpers/server.js';
import {
  AUTH_ENV,
  CookieJar,
  DEFAULT_ADMIN_EMAIL,
  DEFAULT_ADMIN_PASSWORD,
  bearerClient,
  call,
  expectStatus,
  sessionOf,
  setCookiesOf,
  setupDefaultAdmin,
  unique,
  type TestUser,
} from '../helpers/auth.js';

const UNTRUSTED = { detail: 'untrusted origin' };

describeEachDialect(
  'CSRF with SERVICE_CSRF_TRUSTED_ORIGINS set',
  (server) => {
    let admin: TestUser;
    before(async () => {
      admin = await setupDefaultAdmin(server().url);
    });

    /** A state-changing call with the admin's session cookie and the given headers. */
    const rename = async (headers: Record<string, string>) => {
      const username = unique('csrf');
      const response = await sessionOf(server().url, admin).patch('/v1/user', { username }, headers);
      return { response, username };
    };
    const currentUsername = async () =>
      expectStatus(await sessionOf(server().url, admin).get('/v1/user'), 200).body.data.username as string;

    const passes = async (headers: Record<string, string>, label: string) => {
      const { response, username } = await rename(headers);
      expectStatus(response, 200, label);
      assert.equal(await currentUsername(), username, `${label}: the change was made`);
    };
    const refused = async (headers: Record<string, string>, label: string) => {
      const before = await currentUsername();
      const { response } = await rename(headers);
      expectStatus(response, 403, label);
      assert.deepEqual(response.body, UNTRUSTED, label);
      assert.equal(await currentUsername(), before, `${label}: nothing changed`);
    };

    it('a trusted Origin passes (each origin of the list)', async () => {
      await passes({ origin: 'https://trusted.example' }, 'first trusted origin');
      await passes({ origin: 'https://second.example:8443' }, 'second trusted origin');
    });

    it('an untrusted Origin → 403 {"detail":"untrusted origin"}', async () => {
      await refused({ origin: 'https://evil.example' }, 'foreign origin');
      await refused({ origin: 'http://trusted.example' }, 'trusted host, other scheme');
      await refused({ origin: 'https://trusted.example:444' }, 'trusted host, other port');
      await refused({ origin: 'https://trusted.example.evil.example' }, 'trusted name as a prefix');
    });

    it('Origin decides when present: an untrusted Origin with a trusted Referer is refused, and the reverse passes', async () => {
      await refused({ origin: 'https://evil.example', referer: 'https://trusted.example/settings' }, 'untrusted origin, trusted referer');
      await passes({ origin: 'https://trusted.example', referer: 'https://evil.example/page' }, 'trusted origin, untrusted referer');
    });

    it('without Origin, an untrusted Referer → 403 and a trusted one passes', async () => {
      await refused({ referer: 'https://evil.example/attack.html' }, 'untrusted referer');
      await passes({ referer: 'https://trusted.example/settings?tab=users' }, 'trusted referer');
    });

    it('Origin: null → 403', async () => {
      await refused({ origin: 'null' }, 'opaque origin');
    });

    it("the server's own origin passes, as Origin and as Referer", async () => {
      const own = new URL(server().url).origin;
      await passes({ origin: own }, 'own origin');
      await passes({ referer: `${own}/settings` }, 'own referer');
    });

    it('a request with neither Origin nor Referer passes (non-browser clients)', async () => {
      await passes({}, 'no origin headers');
    });

    it('applies to every request: reads, API keys and the login form', async () => {
      const { url } = server();
      const read = await sessionOf(url, admin).get('/v1/user', { origin: 'https://evil.example' });
      expectStatus(read, 403);
      assert.deepEqual(read.body, UNTRUSTED);
      expectStatus(
        await bearerClient(url, admin.key).get('/v1/user', { origin: 'https://evil.example' }),
        403,
        'API key with a foreign origin',
      );
      expectStatus(
        await bearerClient(url, admin.key).get('/v1/user', { origin: 'https://trusted.example' }),
        200,
        'API key with a trusted origin',
      );
      const jar = new CookieJar();
      const loginCsrf = await call(url, { jar }, 'POST', '/auth/login', {
        body: { email: DEFAULT_ADMIN_EMAIL, password: admin.password },
        headers: { origin: 'https://evil.example' },
      });
      expectStatus(loginCsrf, 403, 'login from a foreign origin');
      assert.deepEqual(loginCsrf.body, UNTRUSTED);
      assert.equal(setCookiesOf(loginCsrf).size, 0, 'no session cookies were set');
    });
  },
  { ...AUTH_ENV, SERVICE_CSRF_TRUSTED_ORIGINS: 'https://trusted.example, https://second.example:8443' },
);

for (const [label, value] of [
  ['unset', undefined],
  ['holding no origins', ' , '],
] as const) {
  describeEachDialect(
    `CSRF with SERVICE_CSRF_TRUSTED_ORIGINS ${label}`,
    (server) => {
      it('origin and referer headers are not checked', async () => {
        const { url } = server();
        const jar = new CookieJar();
        const response = await call(url, { jar }, 'POST', '/auth/login', {
          body: { email: DEFAULT_ADMIN_EMAIL, password: DEFAULT_ADMIN_PASSWORD },
          headers: { origin: 'https://evil.example' },
        });
        expectStatus(response, 204, 'login with a foreign origin');
        for (const headers of [{ origin: 'https://evil.example' }, { origin: 'null' }, { referer: 'https://evil.example/x' }] as Record<
          string,
          string
        >[]) {
          expectStatus(await sessionOf(url, { jar }).get('/v1/user', headers), 200, JSON.stringify(headers));
        }
      });
    },
    value === undefined ? AUTH_ENV : { ...AUTH_ENV, SERVICE_CSRF_TRUSTED_ORIGINS: value },
  );
}
