/**
 * CSRF (docs/auth.md, "Protection against guessing and forgery"): with SERVICE_CSRF_TRUSTED_ORIGINS
 * set, Origin (else Referer) must be trusted or the server's own on every request; always, a
 * state-changing request whose credential is the session cookie is refused when the browser marks
 * it same-site or cross-site (Sec-Fetch-Site), unless from a trusted origin; without trusted
 * origins Origin and Referer are not validated, as the observability-auth spec says.
 */
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
      it('origin and referer headers are not checked on reads and on the login form', async () => {
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

describeEachDialect(
  'CSRF by default (SERVICE_CSRF_TRUSTED_ORIGINS unset): changes made with the session cookie',
  (server) => {
    let admin: TestUser;
    before(async () => {
      admin = await setupDefaultAdmin(server().url);
    });
    const own = () => new URL(server().url).origin;
    /** Another origin of the same site: the same host on another port, where SameSite=Strict cookies still go. */
    const sameSiteOtherPort = () => {
      const url = new URL(server().url);
      url.port = String(Number(url.port) === 65535 ? 65534 : Number(url.port) + 1);
      return url.origin;
    };
    const currentUsername = async () =>
      expectStatus(await sessionOf(server().url, admin).get('/v1/user'), 200).body.data.username as string;
    const rename = (headers: Record<string, string>) =>
      sessionOf(server().url, admin).patch('/v1/user', { username: unique('csrf') }, headers);

    it('a no-cors multipart upload from a page of the same site on another port creates no dataset (403)', async () => {
      const name = unique('csrf-dataset');
      const form = new FormData();
      form.append('name', name);
      form.append('input_keys[]', 'q');
      form.append('output_keys[]', 'a');
      form.append('file', new Blob(['q,a\nx,y\n'], { type: 'text/csv' }), 'attack.csv');
      // What a browser sends for <form>/fetch(no-cors) from that page: the cookie, its Origin, and Sec-Fetch-Site.
      const response = await fetch(`${server().url}/v1/datasets/upload`, {
        method: 'POST',
        body: form,
        headers: {
          cookie: admin.jar.header()!,
          origin: sameSiteOtherPort(),
          'sec-fetch-site': 'same-site',
          'sec-fetch-mode': 'no-cors',
        },
      });
      assert.equal(response.status, 403);
      const body = (await response.json()) as { detail: string };
      assert.match(body.detail, /^untrusted origin: a change made with your session must come from Sightline's own pages/);
      const datasets = expectStatus(await sessionOf(server().url, admin).get('/v1/datasets?limit=1000'), 200).body.data as {
        name: string;
      }[];
      assert.ok(!datasets.some((dataset) => dataset.name === name), 'no dataset was created');
    });

    it('refuses what the browser marks as another site, same-site or cross-site; nothing changes', async () => {
      for (const headers of [
        { 'sec-fetch-site': 'same-site', origin: sameSiteOtherPort() },
        { 'sec-fetch-site': 'same-site', referer: `${sameSiteOtherPort()}/attack.html` },
        { 'sec-fetch-site': 'same-site' },
        { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
        { 'sec-fetch-site': 'cross-site', origin: 'null' },
        { 'sec-fetch-site': 'cross-site', referer: `${own()}/settings` },
      ] as Record<string, string>[]) {
        const before = await currentUsername();
        const response = await rename(headers);
        expectStatus(response, 403, JSON.stringify(headers));
        assert.equal(await currentUsername(), before, `${JSON.stringify(headers)}: nothing changed`);
      }
      const logout = await sessionOf(server().url, admin).post('/auth/logout', undefined, {
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
      });
      expectStatus(logout, 403, 'logout from another site');
      expectStatus(await sessionOf(server().url, admin).get('/v1/user'), 200, 'the session survived');
    });

    it("passes the server's own pages, the user's own navigation, and clients that are not browsers", async () => {
      for (const headers of [
        { origin: own() },
        { referer: `${own()}/settings` },
        { 'sec-fetch-site': 'same-origin' },
        { 'sec-fetch-site': 'none' },
        // Behind a proxy that rewrites the Host, the browser's word still counts.
        { 'sec-fetch-site': 'same-origin', origin: 'https://sightline.example' },
        {},
        // Without trusted origins the spec leaves Origin and Referer unvalidated (SERVICE_CSRF_TRUSTED_ORIGINS):
        // a client that is not a browser may send any.
        { origin: 'https://evil.example' },
        { referer: 'https://evil.example/page' },
      ] as Record<string, string>[]) {
        expectStatus(await rename(headers), 200, JSON.stringify(headers));
      }
    });

    it('does not apply to API keys (not ambient credentials) nor to reads', async () => {
      const keyed = bearerClient(server().url, admin.key);
      expectStatus(await keyed.patch('/v1/user', { username: unique('csrf') }, { origin: 'https://evil.example' }), 200, 'API key');
      expectStatus(await sessionOf(server().url, admin).get('/v1/user', { origin: 'https://evil.example' }), 200, 'read');
    });
  },
  AUTH_ENV,
);
