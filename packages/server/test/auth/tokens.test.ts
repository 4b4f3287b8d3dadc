/**
 * Access and refresh tokens: signature and expiry checks, revocation (logout, password changes,
 * role change, deletion), refresh rotation with reuse detection, and the cookie attributes.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { SignJWT, decodeJwt, decodeProtectedHeader, type JWTPayload } from 'jose';
import { describeEachDialect } from '../helpers/server.js';
import { storedSpans } from '../helpers/stored.js';
import {
  ACCESS_COOKIE,
  AUTH_ENV,
  type ApiClient,
  CookieJar,
  DEFAULT_ADMIN_EMAIL,
  DEFAULT_ADMIN_PASSWORD,
  REFRESH_COOKIE,
  TEST_SECRET,
  anonymous,
  bearerClient,
  createActiveUser,
  createSystemKey,
  createUserRequest,
  expectStatus,
  isClearing,
  login,
  loginRequest,
  oneSpanExport,
  sessionOf,
  setCookiesOf,
  setupDefaultAdmin,
  type SetCookie,
  type TestUser,
} from '../helpers/auth.js';

const encoder = new TextEncoder();
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Re-signs the claims of a real token: with another expiry, secret or algorithm. */
async function resign(claims: JWTPayload, options: { exp?: number; secret?: string; alg?: 'HS256' | 'HS512' } = {}): Promise<string> {
  const alg = options.alg ?? 'HS256';
  return new SignJWT({ ...claims, exp: options.exp ?? claims.exp })
    .setProtectedHeader({ alg, typ: 'JWT' })
    .sign(encoder.encode(options.secret ?? TEST_SECRET));
}

/** An unsigned token (`alg: none`) with the given claims. */
const unsigned = (claims: JWTPayload) => `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`;

const refresh = (url: string, jar: CookieJar) => sessionOf(url, { jar }).post('/auth/refresh');
const viewer = (url: string, jar: CookieJar) => sessionOf(url, { jar }).get('/v1/user');

function assertSessionCookie(cookie: SetCookie | undefined, expected: { maxAge: number; path: string; secure: boolean }) {
  assert.ok(cookie, 'cookie set');
  assert.ok(cookie.value.length > 20, `${cookie.name} carries a token`);
  assert.ok(cookie.attributes.has('httponly'), `${cookie.name} is HttpOnly`);
  assert.equal(cookie.attributes.get('samesite')?.toLowerCase(), 'strict', `${cookie.name} is SameSite=Strict`);
  assert.equal(cookie.attributes.get('path'), expected.path, `${cookie.name} path`);
  assert.equal(cookie.attributes.has('secure'), expected.secure, `${cookie.name} Secure only with SERVICE_USE_SECURE_COOKIES`);
  const maxAge = Number(cookie.attributes.get('max-age'));
  // The token lifetime, less the time between signing and answering (a password check on a busy machine).
  assert.ok(maxAge <= expected.maxAge && maxAge >= expected.maxAge - 30, `${cookie.name} Max-Age ${maxAge} ≈ ${expected.maxAge}`);
}

describeEachDialect(
  'tokens and sessions',
  (server) => {
    let admin: TestUser;
    let root: ApiClient;

    before(async () => {
      admin = await setupDefaultAdmin(server().url);
      root = sessionOf(server().url, admin);
    });

    describe('access token checks', () => {
      let jar: CookieJar;
      let claims: JWTPayload;
      before(async () => {
        jar = await login(server().url, admin.email, admin.password);
        claims = decodeJwt(jar.get(ACCESS_COOKIE)!);
      });

      it('is an HS256 JWT naming a server-side record, usable as cookie and as Bearer', async () => {
        const { url } = server();
        const token = jar.get(ACCESS_COOKIE)!;
        assert.equal(decodeProtectedHeader(token).alg, 'HS256');
        assert.equal(typeof claims.jti, 'string');
        assert.equal(typeof claims.exp, 'number');
        assert.equal(expectStatus(await viewer(url, jar), 200).body.data.id, admin.id);
        assert.equal(expectStatus(await bearerClient(url, token).get('/v1/user'), 200).body.data.id, admin.id);
      });

      it('the same claims re-signed with SERVICE_SECRET and a future expiry are accepted (control)', async () => {
        const token = await resign(claims, { exp: Math.floor(Date.now() / 1000) + 300 });
        assert.notEqual(token, jar.get(ACCESS_COOKIE));
        expectStatus(await bearerClient(server().url, token).get('/v1/user'), 200);
      });

      it('an expired token → 401, as Bearer and as cookie', async () => {
        const { url } = server();
        const token = await resign(claims, { exp: Math.floor(Date.now() / 1000) - 60 });
        expectStatus(await bearerClient(url, token).get('/v1/user'), 401, 'expired bearer');
        expectStatus(await viewer(url, new CookieJar([[ACCESS_COOKIE, token]])), 401, 'expired cookie');
      });

      it('a token signed with another secret → 401', async () => {
        const token = await resign(claims, { secret: `${TEST_SECRET}-but-another-one` });
        expectStatus(await bearerClient(server().url, token).get('/v1/user'), 401);
      });

      it('a token with another algorithm (HS512, same secret) → 401: the algorithm is pinned', async () => {
        const token = await resign(claims, { alg: 'HS512' });
        expectStatus(await bearerClient(server().url, token).get('/v1/user'), 401);
      });

      it('an unsigned token (alg none) → 401', async () => {
        const { url } = server();
        expectStatus(await bearerClient(url, unsigned(claims)).get('/v1/user'), 401);
        expectStatus(await viewer(url, new CookieJar([[ACCESS_COOKIE, unsigned(claims)]])), 401);
      });

      it('a refresh token is not an access token → 401', async () => {
        expectStatus(await bearerClient(server().url, jar.get(REFRESH_COOKIE)!).get('/v1/user'), 401);
      });

      it('an expired refresh token cannot refresh → 401', async () => {
        const { url } = server();
        const refreshClaims = decodeJwt(jar.get(REFRESH_COOKIE)!);
        const token = await resign(refreshClaims, { exp: Math.floor(Date.now() / 1000) - 60 });
        expectStatus(await refresh(url, new CookieJar([[REFRESH_COOKIE, token]])), 401);
      });
    });

    describe('revocation', () => {
      it('logout (POST) revokes the session and clears the cookies; other sessions live on', async () => {
        const { url } = server();
        const jar = await login(url, admin.email, admin.password);
        const other = await login(url, admin.email, admin.password);
        const stale = jar.clone();
        const response = await sessionOf(url, { jar }).post('/auth/logout');
        expectStatus(response, 204);
        const cookies = setCookiesOf(response);
        for (const name of [ACCESS_COOKIE, REFRESH_COOKIE])
          assert.ok(cookies.get(name) && isClearing(cookies.get(name)!), `${name} cleared`);
        expectStatus(await viewer(url, stale), 401, 'old access cookie');
        expectStatus(await bearerClient(url, stale.get(ACCESS_COOKIE)!).get('/v1/user'), 401, 'old access token as Bearer');
        expectStatus(await refresh(url, stale), 401, 'old refresh cookie');
        expectStatus(await viewer(url, other), 200, 'another session of the same user');
      });

      it('GET /auth/logout revokes the session and redirects to the login page', async () => {
        const { url } = server();
        const jar = await login(url, admin.email, admin.password);
        const stale = jar.clone();
        const response = await sessionOf(url, { jar }).get('/auth/logout');
        expectStatus(response, 302);
        assert.equal(response.headers.get('location'), '/login');
        expectStatus(await viewer(url, stale), 401);
      });

      it('GET /auth/logout from an <img> on another site (Sec-Fetch-Site: cross-site or same-site) logs nobody out: 403', async () => {
        const { url } = server();
        const jar = await login(url, admin.email, admin.password);
        for (const site of ['cross-site', 'same-site']) {
          const response = await sessionOf(url, { jar }).get('/auth/logout', { 'sec-fetch-site': site, 'sec-fetch-dest': 'image' });
          expectStatus(response, 403, site);
          assert.equal(response.headers.getSetCookie().length, 0, 'no cookie is cleared');
        }
        expectStatus(await viewer(url, jar), 200, 'the session lives on');
        expectStatus(await refresh(url, jar), 204, 'and so does its refresh token');
      });

      it('logout with the access token as Bearer revokes that session', async () => {
        const { url } = server();
        const jar = await login(url, admin.email, admin.password);
        expectStatus(await bearerClient(url, jar.get(ACCESS_COOKIE)!).post('/auth/logout'), 204);
        expectStatus(await viewer(url, jar), 401);
      });

      it('changing one’s own password revokes every session of the user', async () => {
        const { url } = server();
        const user = await createActiveUser(url, root, 'member');
        const second = await login(url, user.email, user.password);
        const stale = [user.jar.clone(), second.clone()];
        const password = 'a-brand-new-password';
        expectStatus(await sessionOf(url, user).patch('/v1/user', { password, current_password: user.password }), 200);
        for (const jar of stale) {
          expectStatus(await viewer(url, jar), 401, 'session from before the change');
          expectStatus(await refresh(url, jar.clone()), 401, 'refresh token from before the change');
        }
        expectStatus(await loginRequest(url, user.email, user.password), 401, 'old password');
        const fresh = await login(url, user.email, password);
        assert.equal(expectStatus(await viewer(url, fresh), 200).body.data.password_needs_reset, false);
      });

      it("an admin changing the user's password revokes the user's sessions; the new one is temporary", async () => {
        const { url } = server();
        const user = await createActiveUser(url, root, 'member');
        const stale = user.jar.clone();
        const temporary = 'set-by-the-admin';
        expectStatus(await root.patch(`/v1/users/${user.id}`, { password: temporary }), 200);
        expectStatus(await viewer(url, stale), 401, 'session from before the change');
        expectStatus(await refresh(url, stale), 401, 'refresh token from before the change');
        expectStatus(await loginRequest(url, user.email, user.password), 401, 'old password');
        const fresh = await login(url, user.email, temporary);
        assert.equal(expectStatus(await viewer(url, fresh), 200).body.data.password_needs_reset, true);
        expectStatus(await sessionOf(url, { jar: fresh }).get('/v1/user/api_keys'), 403, 'must change it first');
      });

      it("a role change revokes the user's sessions, and the user's key takes the new role at once", async () => {
        const { url } = server();
        const user = await createActiveUser(url, root, 'member');
        const key = bearerClient(url, user.key);
        expectStatus(await key.get('/v1/users'), 403, 'member key before promotion');
        const stale = user.jar.clone();
        const promoted = expectStatus(await root.patch(`/v1/users/${user.id}`, { role: 'admin' }), 200).body.data;
        assert.equal(promoted.role, 'admin');
        expectStatus(await viewer(url, stale), 401, 'session from before the role change');
        expectStatus(await refresh(url, stale), 401, 'refresh token from before the role change');
        expectStatus(await key.get('/v1/users'), 200, 'the key acts with the new role');
        const fresh = await login(url, user.email, user.password);
        assert.equal(expectStatus(await viewer(url, fresh), 200).body.data.role, 'admin');
        expectStatus(await root.patch(`/v1/users/${user.id}`, { role: 'member' }), 200);
        expectStatus(await viewer(url, fresh), 401, 'the demotion revokes too');
        expectStatus(await key.get('/v1/users'), 403, 'the key lost the admin role at once');
      });

      it('deleting a user kills its sessions and user keys at once; its system keys survive; email and username stay taken', async () => {
        const { url, server: running } = server();
        const user = await createActiveUser(url, root, 'admin');
        const second = await login(url, user.email, user.password);
        const systemKey = await createSystemKey(sessionOf(url, user));
        // Warm every credential up, so a cached answer would show.
        for (const client of [
          sessionOf(url, user),
          sessionOf(url, { jar: second }),
          bearerClient(url, user.key),
          bearerClient(url, systemKey.key),
        ]) {
          expectStatus(await client.get('/v1/user'), 200);
        }
        const stale = [user.jar.clone(), second.clone()];

        expectStatus(await root.delete(`/v1/users/${user.id}`), 204);

        for (const jar of stale) {
          expectStatus(await viewer(url, jar), 401, 'session of the deleted user');
          expectStatus(await refresh(url, jar.clone()), 401, 'refresh token of the deleted user');
        }
        expectStatus(await bearerClient(url, user.key).get('/v1/user'), 401, 'user key of the deleted user');
        const rejected = oneSpanExport('deleted-user-key');
        expectStatus(await bearerClient(url, user.key).post('/v1/traces', rejected.body), 401, 'ingest with the deleted user key');
        assert.equal((await storedSpans(running.database, [rejected.traceId])).size, 0);

        assert.deepEqual(expectStatus(await bearerClient(url, systemKey.key).get('/v1/user'), 200).body, {
          data: { auth_method: 'SYSTEM', role: 'system' },
        });
        const accepted = oneSpanExport('deleted-admin-system-key');
        expectStatus(await bearerClient(url, systemKey.key).post('/v1/traces', accepted.body), 200, 'ingest with the surviving system key');
        assert.ok((await storedSpans(running.database, [accepted.traceId])).has(accepted.spanId));
        const systemKeys = expectStatus(await root.get('/v1/system/api_keys'), 200).body.data as { id: string }[];
        assert.ok(
          systemKeys.some((key) => key.id === systemKey.id),
          'the system key is still listed',
        );
        const userKeys = expectStatus(await root.get('/v1/users/api_keys'), 200).body.data as { id: string }[];
        assert.ok(!userKeys.some((key) => key.id === user.keyId), 'the user key is gone');

        const denied = expectStatus(await loginRequest(url, user.email, user.password), 401, 'login of the deleted user');
        assert.deepEqual(denied.body, { detail: 'Invalid email and/or password' });
        expectStatus(await root.get(`/v1/users/${user.id}`), 404);
        expectStatus(await root.patch(`/v1/users/${user.id}`, { username: 'revived' }), 404);
        expectStatus(await root.delete(`/v1/users/${user.id}`), 404);
        const listed = expectStatus(await root.get('/v1/users'), 200).body.data as { id: string }[];
        assert.ok(!listed.some((entry) => entry.id === user.id), 'deleted users are not listed');

        expectStatus(await createUserRequest(root, { email: user.email }), 409, 'same email');
        expectStatus(await createUserRequest(root, { email: `  ${user.email.toUpperCase()} ` }), 409, 'same email, other case');
        expectStatus(await createUserRequest(root, { username: user.username }), 409, 'same username');
      });
    });

    describe('refresh rotation', () => {
      it('each refresh sets new cookies; replaying a used refresh token revokes the whole session', async () => {
        const { url } = server();
        const jar = await login(url, admin.email, admin.password);
        const first = jar.clone();
        const response = expectStatus(await refresh(url, jar), 204);
        const cookies = setCookiesOf(response);
        assertSessionCookie(cookies.get(ACCESS_COOKIE), { maxAge: 600, path: '/', secure: false });
        assertSessionCookie(cookies.get(REFRESH_COOKIE), { maxAge: 10080 * 60, path: '/', secure: false });
        assert.notEqual(jar.get(ACCESS_COOKIE), first.get(ACCESS_COOKIE), 'new access token');
        assert.notEqual(jar.get(REFRESH_COOKIE), first.get(REFRESH_COOKIE), 'new refresh token');
        expectStatus(await viewer(url, jar), 200, 'the new access token works');
        const second = jar.clone();
        expectStatus(await refresh(url, jar), 204, 'the new refresh token rotates again');
        expectStatus(await viewer(url, jar), 200, 'the newest access token works');

        const replay = expectStatus(await refresh(url, second.clone()), 401, 'replayed refresh token');
        assert.ok(isClearing(setCookiesOf(replay).get(REFRESH_COOKIE)!), 'a failed refresh clears the cookies');
        expectStatus(await viewer(url, jar), 401, 'the newest access token died with the session');
        expectStatus(await refresh(url, jar), 401, 'the newest refresh token died with the session');
        expectStatus(await refresh(url, first), 401);
      });

      it('refresh without a refresh cookie, or with garbage → 401', async () => {
        const { url } = server();
        expectStatus(await anonymous(url).post('/auth/refresh'), 401);
        expectStatus(await refresh(url, new CookieJar([[REFRESH_COOKIE, 'not-a-jwt']])), 401);
      });
    });

    describe('cookie attributes', () => {
      it('login sets HttpOnly, SameSite=Strict, Path=/ cookies living as long as their tokens, not Secure by default', async () => {
        const response = expectStatus(await loginRequest(server().url, admin.email, admin.password), 204);
        const cookies = setCookiesOf(response);
        assertSessionCookie(cookies.get(ACCESS_COOKIE), { maxAge: 600, path: '/', secure: false });
        assertSessionCookie(cookies.get(REFRESH_COOKIE), { maxAge: 10080 * 60, path: '/', secure: false });
      });
    });
  },
  AUTH_ENV,
);

describeEachDialect(
  'cookie attributes with secure cookies, a root path and custom lifetimes',
  (server) => {
    it('login, refresh and logout use Secure cookies with Path = root path and Max-Age = configured lifetime', async () => {
      const { url } = server();
      assert.match(url, /\/sightline$/);
      const jar = new CookieJar();
      const response = expectStatus(await loginRequest(url, DEFAULT_ADMIN_EMAIL, DEFAULT_ADMIN_PASSWORD, jar), 204);
      const expected = { path: '/sightline', secure: true };
      let cookies = setCookiesOf(response);
      assertSessionCookie(cookies.get(ACCESS_COOKIE), { ...expected, maxAge: 180 });
      assertSessionCookie(cookies.get(REFRESH_COOKIE), { ...expected, maxAge: 3600 });
      cookies = setCookiesOf(expectStatus(await refresh(url, jar), 204));
      assertSessionCookie(cookies.get(ACCESS_COOKIE), { ...expected, maxAge: 180 });
      assertSessionCookie(cookies.get(REFRESH_COOKIE), { ...expected, maxAge: 3600 });
      const logout = expectStatus(await sessionOf(url, { jar }).post('/auth/logout'), 204);
      for (const cookie of [ACCESS_COOKIE, REFRESH_COOKIE].map((name) => setCookiesOf(logout).get(name))) {
        assert.ok(cookie && isClearing(cookie), 'cleared on logout');
        assert.equal(cookie.attributes.get('path'), '/sightline', 'cleared on the path it was set on');
      }
    });
  },
  {
    ...AUTH_ENV,
    SERVICE_USE_SECURE_COOKIES: 'true',
    SERVICE_HOST_ROOT_PATH: '/sightline',
    SERVICE_ACCESS_TOKEN_EXPIRY_MINUTES: '3',
    SERVICE_REFRESH_TOKEN_EXPIRY_MINUTES: '60',
  },
);
