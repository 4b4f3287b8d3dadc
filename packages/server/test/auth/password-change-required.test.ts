/**
 * The default admin (admin@localhost, password_needs_reset) and users given a password by an
 * admin: until they set their own password, a session may only read GET /v1/user, change its
 * own password and log out. SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD sets the first password.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeEachDialect } from '../helpers/server.js';
import {
  ACCESS_COOKIE,
  AUTH_ENV,
  type ApiClient,
  type CookieJar,
  DEFAULT_ADMIN_EMAIL,
  DEFAULT_ADMIN_PASSWORD,
  bearerClient,
  concretePath,
  createPlainUser,
  expectStatus,
  login,
  loginRequest,
  permissionRows,
  sessionOf,
  unique,
} from '../helpers/auth.js';

const REQUIRED = { detail: 'password change required' };

/** Every non-public route the pending session may not use answers 403 "password change required". */
async function assertOnlyPendingRoutesOpen(client: ApiClient, role: 'admin' | 'member', label: string) {
  const rows = permissionRows().filter(([, , rule]) => rule.access !== 'public' && !rule.duringPasswordReset);
  assert.ok(rows.length >= 12);
  for (const [method, pattern, rule] of rows) {
    const response = await client.request(method, concretePath(pattern, 'MQ=='));
    expectStatus(response, 403, `${method} ${pattern} (${label})`);
    // A member is refused admin (and data-admin) routes for its role first; everything else names the pending change.
    // The OpenAI-compatible route repeats `detail` in OpenAI's error shape too (docs/playground.md).
    const expected =
      pattern === '/v1/chat/completions' ? { ...REQUIRED, error: { message: REQUIRED.detail, type: 'invalid_request_error' } } : REQUIRED;
    const adminOnly = rule.access === 'admin' || rule.access === 'data-admin';
    if (role === 'admin' || !adminOnly) assert.deepEqual(response.body, expected, `${method} ${pattern} (${label})`);
  }
}

describeEachDialect(
  'default admin and the pending password change',
  (server) => {
    let jar: CookieJar;
    const newPassword = 'my-own-admin-password';

    describe('in order', () => {
      it('admin@localhost logs in with the default password and must change it', async () => {
        const { url } = server();
        jar = await login(url, DEFAULT_ADMIN_EMAIL, DEFAULT_ADMIN_PASSWORD);
        const user = expectStatus(await sessionOf(url, { jar }).get('/v1/user'), 200).body.data;
        assert.equal(user.email, DEFAULT_ADMIN_EMAIL);
        assert.equal(user.role, 'admin');
        assert.equal(user.auth_method, 'LOCAL');
        assert.equal(user.password_needs_reset, true);
      });

      it('while pending, every other route answers 403 "password change required" (cookie)', async () => {
        await assertOnlyPendingRoutesOpen(sessionOf(server().url, { jar }), 'admin', 'cookie');
      });

      it('…also when the access token is used as Bearer', async () => {
        const client = bearerClient(server().url, jar.get(ACCESS_COOKIE)!);
        expectStatus(await client.get('/v1/user'), 200, 'GET /v1/user stays open');
        await assertOnlyPendingRoutesOpen(client, 'admin', 'bearer access token');
      });

      it('while pending, PATCH /v1/user may change the password only, not the username', async () => {
        const { url } = server();
        const response = await sessionOf(url, { jar }).patch('/v1/user', { username: 'renamed-admin' });
        expectStatus(response, 403);
        assert.deepEqual(response.body, REQUIRED);
        assert.equal(expectStatus(await sessionOf(url, { jar }).get('/v1/user'), 200).body.data.username, 'admin');
      });

      it('logging out works while pending', async () => {
        const { url } = server();
        const other = await login(url, DEFAULT_ADMIN_EMAIL, DEFAULT_ADMIN_PASSWORD);
        const stale = other.clone();
        expectStatus(await sessionOf(url, { jar: other }).post('/auth/logout'), 204);
        expectStatus(await sessionOf(url, { jar: stale }).get('/v1/user'), 401, 'the logged-out session');
        expectStatus(await sessionOf(url, { jar }).get('/v1/user'), 200, 'the other pending session');
      });

      it('changing the password clears the flag and opens the server', async () => {
        const { url } = server();
        const response = expectStatus(
          await sessionOf(url, { jar }).patch('/v1/user', { password: newPassword, current_password: DEFAULT_ADMIN_PASSWORD }),
          200,
        );
        assert.equal(response.body.data.password_needs_reset, false);
        expectStatus(await sessionOf(url, { jar }).get('/v1/user'), 401, 'the pending session was revoked');
        expectStatus(await loginRequest(url, DEFAULT_ADMIN_EMAIL, DEFAULT_ADMIN_PASSWORD), 401, 'the default password is gone');
        jar = await login(url, DEFAULT_ADMIN_EMAIL, newPassword);
        const admin = sessionOf(url, { jar });
        assert.equal(expectStatus(await admin.get('/v1/user'), 200).body.data.password_needs_reset, false);
        expectStatus(await admin.get('/v1/users'), 200);
        expectStatus(await admin.post('/v1/system/api_keys', { data: { name: 'first system key' } }), 201);
      });

      it('a user created by an admin with a password must change it too', async () => {
        const { url } = server();
        const admin = sessionOf(url, { jar });
        const temporary = 'temporary-password';
        const created = await createPlainUser(admin, { role: 'member', password: temporary });
        assert.equal(created.password_needs_reset, true);
        const userJar = await login(url, created.email, temporary);
        const user = sessionOf(url, { jar: userJar });
        assert.equal(expectStatus(await user.get('/v1/user'), 200).body.data.password_needs_reset, true);
        await assertOnlyPendingRoutesOpen(user, 'member', 'created member');
        expectStatus(await user.patch('/v1/user', { password: 'members-own-password', current_password: temporary }), 200);
        const fresh = sessionOf(url, { jar: await login(url, created.email, 'members-own-password') });
        assert.equal(expectStatus(await fresh.get('/v1/user'), 200).body.data.password_needs_reset, false);
        expectStatus(await fresh.get('/v1/user/api_keys'), 200);
        expectStatus(await fresh.patch('/v1/user', { username: unique('member-renamed') }), 200);
      });

      it('a user created without a password (e.g. OAUTH2) has nothing to change', async () => {
        const admin = sessionOf(server().url, { jar });
        const created = await createPlainUser(admin, { role: 'member', auth_method: 'OAUTH2' });
        assert.equal(created.password_needs_reset, false);
      });
    });
  },
  AUTH_ENV,
);

describeEachDialect(
  'SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD',
  (server) => {
    it('sets the default admin’s first password (and "admin" no longer works)', async () => {
      const { url } = server();
      const failed = expectStatus(await loginRequest(url, DEFAULT_ADMIN_EMAIL, DEFAULT_ADMIN_PASSWORD), 401);
      assert.deepEqual(failed.body, { detail: 'Invalid email and/or password' });
      const jar = await login(url, DEFAULT_ADMIN_EMAIL, 'configured-first-password');
      const user = expectStatus(await sessionOf(url, { jar }).get('/v1/user'), 200).body.data;
      assert.equal(user.role, 'admin');
      assert.equal(user.password_needs_reset, true, 'a configured initial password must still be changed');
    });
  },
  { ...AUTH_ENV, SERVICE_DEFAULT_ADMIN_INITIAL_PASSWORD: 'configured-first-password' },
);
