/**
 * Rules of the users API: nobody deletes themselves or changes their own role, the server keeps
 * an active admin, emails are immutable, roles in any case, the password policy, the current
 * password on self-service changes, uniqueness; and every auth route refused while auth is off.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { describeEachDialect } from '../helpers/server.js';
import {
  AUTH_ENV,
  type ApiClient,
  anonymous,
  bearerClient,
  concretePath,
  createActiveUser,
  createPlainUser,
  createUserRequest,
  expectStatus,
  loginRequest,
  oneSpanExport,
  permissionRows,
  sessionOf,
  setupDefaultAdmin,
  unique,
  type ApiResponse,
  type TestUser,
} from '../helpers/auth.js';

/** The text of a `{detail}` body, whether a sentence or a list of `{loc, msg}` issues. */
function detailText(response: ApiResponse): string {
  const detail = response.body?.detail;
  if (typeof detail === 'string') return detail;
  return JSON.stringify(detail);
}

describeEachDialect(
  'users API rules',
  (server) => {
    let admin: TestUser;
    let root: ApiClient;
    let member: TestUser;

    before(async () => {
      const { url } = server();
      admin = await setupDefaultAdmin(url);
      root = sessionOf(url, admin);
      member = await createActiveUser(url, root, 'member');
    });

    describe('self-protection and the last admin', () => {
      it('nobody can delete themselves (409), by session or by key', async () => {
        const { url } = server();
        for (const client of [root, bearerClient(url, admin.key)]) {
          expectStatus(await client.delete(`/v1/users/${admin.id}`), 409);
        }
        expectStatus(await root.get(`/v1/users/${admin.id}`), 200, 'still there');
      });

      it('nobody can change their own role (409)', async () => {
        const { url } = server();
        const second = await createActiveUser(url, root, 'admin');
        for (const client of [sessionOf(url, second), bearerClient(url, second.key)]) {
          const response = await client.patch(`/v1/users/${second.id}`, { role: 'member' });
          expectStatus(response, 409);
        }
        assert.equal(expectStatus(await root.get(`/v1/users/${second.id}`), 200).body.data.role, 'admin');
        expectStatus(await root.delete(`/v1/users/${second.id}`), 204);
      });

      it('a member cannot use PATCH /v1/user to change its role', async () => {
        const { url } = server();
        const response = await bearerClient(url, member.key).patch('/v1/user', { role: 'admin' });
        assert.ok(response.status === 200 || response.status === 403 || response.status === 422, `status ${response.status}`);
        assert.equal(expectStatus(await root.get(`/v1/users/${member.id}`), 200).body.data.role, 'member', 'still a member');
      });

      it('the only admin cannot demote or delete itself (409)', async () => {
        const listed = expectStatus(await root.get('/v1/users'), 200).body.data as { role: string }[];
        assert.equal(listed.filter((user) => user.role === 'admin').length, 1, 'one admin');
        expectStatus(await root.patch(`/v1/users/${admin.id}`, { role: 'member' }), 409);
        expectStatus(await root.delete(`/v1/users/${admin.id}`), 409);
        assert.equal(expectStatus(await root.get(`/v1/users/${admin.id}`), 200).body.data.role, 'admin');
      });
    });

    describe('fields', () => {
      it('email cannot be changed: 422 "email cannot be changed", for admins and for oneself', async () => {
        const { url } = server();
        const target = await createPlainUser(root);
        for (const [client, path] of [
          [root, `/v1/users/${target.id}`],
          [root, `/v1/users/${admin.id}`],
          [sessionOf(url, member), '/v1/user'],
          [bearerClient(url, member.key), '/v1/user'],
        ] as const) {
          const response = await client.patch(path, { email: `${unique('new')}@example.com`, username: unique('with-email') });
          expectStatus(response, 422, `PATCH ${path}`);
          assert.deepEqual(response.body, { detail: 'email cannot be changed' });
        }
        assert.equal(expectStatus(await root.get(`/v1/users/${target.id}`), 200).body.data.email, target.email);
        assert.equal(expectStatus(await root.get(`/v1/users/${member.id}`), 200).body.data.email, member.email);
        assert.equal(
          expectStatus(await root.get(`/v1/users/${target.id}`), 200).body.data.username,
          target.username,
          'nothing else changed either',
        );
      });

      it('roles are accepted in any case and returned in lower case; unknown roles → 422', async () => {
        const created = await createPlainUser(root, { role: 'MEMBER' });
        assert.equal(created.role, 'member');
        const promoted = expectStatus(await root.patch(`/v1/users/${created.id}`, { role: 'Admin' }), 200).body.data;
        assert.equal(promoted.role, 'admin');
        assert.equal(expectStatus(await root.get(`/v1/users/${created.id}`), 200).body.data.role, 'admin');
        const demoted = expectStatus(await root.patch(`/v1/users/${created.id}`, { role: 'mEmBeR' }), 200).body.data;
        assert.equal(demoted.role, 'member');
        expectStatus(await createUserRequest(root, { role: 'owner' }), 422);
        expectStatus(await root.patch(`/v1/users/${created.id}`, { role: 'superuser' }), 422);
        const listed = expectStatus(await root.get('/v1/users'), 200).body.data as { role: string }[];
        for (const user of listed) assert.ok(user.role === 'admin' || user.role === 'member');
      });

      it('emails are stored trimmed and lower-cased and are unique; usernames are unique (409)', async () => {
        const name = unique('Mixed');
        const created = await createPlainUser(root, { email: `  ${name}@Example.COM ` });
        assert.equal(created.email, `${name.toLowerCase()}@example.com`);
        expectStatus(await createUserRequest(root, { email: `${name.toLowerCase()}@example.com` }), 409, 'same email');
        expectStatus(await createUserRequest(root, { username: created.username }), 409, 'same username');
        expectStatus(await root.patch(`/v1/users/${member.id}`, { username: created.username }), 409, 'rename to a taken username');
        expectStatus(await createUserRequest(root, { email: 'not-an-email' }), 422);
      });

      it('a weak password → 422 naming the rule (create, admin change, own change)', async () => {
        const { url } = server();
        const target = await createPlainUser(root);
        const weak: [string, RegExp][] = [
          ['short', /at least 8 characters/],
          [' '.repeat(12), /whitespace/],
          ['x'.repeat(257), /at most 256 characters/],
        ];
        for (const [password, rule] of weak) {
          const create = expectStatus(await createUserRequest(root, { password }), 422, 'create');
          assert.match(detailText(create), rule);
          const byAdmin = expectStatus(await root.patch(`/v1/users/${target.id}`, { password }), 422, 'admin change');
          assert.match(detailText(byAdmin), rule);
          const own = expectStatus(
            await sessionOf(url, member).patch('/v1/user', { password, current_password: member.password }),
            422,
            'own change',
          );
          assert.match(detailText(own), rule);
        }
        // The member's password did not change.
        expectStatus(await loginRequest(url, member.email, member.password), 204);
        // The limits themselves are fine.
        expectStatus(await createUserRequest(root, { password: '12345678' }), 201, '8 characters');
        expectStatus(await root.patch(`/v1/users/${target.id}`, { password: 'y'.repeat(256) }), 200, '256 characters');
      });

      it('PATCH /v1/user with a password: no current_password → 422, a wrong one → 403 "current password is incorrect"', async () => {
        const { url } = server();
        const missing = await sessionOf(url, member).patch('/v1/user', { password: 'another-good-password' });
        expectStatus(missing, 422);
        assert.match(detailText(missing), /current_password/);
        const wrong = await sessionOf(url, member).patch('/v1/user', {
          password: 'another-good-password',
          current_password: 'not-my-password',
        });
        expectStatus(wrong, 403);
        assert.deepEqual(wrong.body, { detail: 'current password is incorrect' });
        // Neither attempt changed anything: the session lives and the old password still works.
        expectStatus(await sessionOf(url, member).get('/v1/user'), 200);
        expectStatus(await loginRequest(url, member.email, member.password), 204);
      });
    });
  },
  AUTH_ENV,
);

describeEachDialect(
  'the last active admin',
  (server) => {
    it('two admins removing each other at the same instant never leave the server without an admin (409)', async () => {
      const { url } = server();
      let current = await setupDefaultAdmin(url);
      const activeAdmins = async (client: ApiClient) =>
        (expectStatus(await client.get('/v1/users'), 200).body.data as { id: string; role: string }[]).filter(
          (user) => user.role === 'admin',
        );
      for (let round = 1; round <= 4; round++) {
        const other = await createActiveUser(url, sessionOf(url, current), 'admin');
        const mine = bearerClient(url, current.key);
        const theirs = bearerClient(url, other.key);
        const demote = round % 2 === 1;
        const [a, b] = await Promise.all(
          demote
            ? [mine.patch(`/v1/users/${other.id}`, { role: 'member' }), theirs.patch(`/v1/users/${current.id}`, { role: 'member' })]
            : [mine.delete(`/v1/users/${other.id}`), theirs.delete(`/v1/users/${current.id}`)],
        );
        const statuses = [a.status, b.status];
        const label = `round ${round} (${demote ? 'demote' : 'delete'}): ${statuses.join(', ')}`;
        for (const status of statuses) assert.ok([200, 204, 401, 403, 409].includes(status), label);
        assert.ok(statuses.filter((status) => status === 200 || status === 204).length <= 1, `${label}: both removals succeeded`);
        // Whoever is still an admin can list the users: exactly one admin is left.
        let admins: { id: string }[] | undefined;
        for (const client of [mine, theirs]) {
          const response = await client.get('/v1/users');
          if (response.status === 200) admins = await activeAdmins(client);
        }
        assert.ok(admins, `${label}: no admin is left`);
        assert.equal(admins.length, 1, label);
        current = admins[0]!.id === other.id ? other : current;
      }
    });
  },
  AUTH_ENV,
);

describeEachDialect('with authentication off', (server) => {
  const NOT_ENABLED = { detail: 'authentication is not enabled' };

  it('POST /auth/login → 403 "authentication is not enabled"', async () => {
    const response = await loginRequest(server().url, 'admin@localhost', 'admin');
    expectStatus(response, 403);
    assert.deepEqual(response.body, NOT_ENABLED);
    assert.equal(response.headers.getSetCookie().length, 0);
  });

  it('every auth-only route of the permission table (login, logout, refresh, users, keys) → 403 "authentication is not enabled"', async () => {
    const { url } = server();
    const rows = permissionRows().filter(([, , rule]) => rule.authOnly);
    for (const required of [
      'POST /auth/login',
      'POST /auth/logout',
      'POST /auth/refresh',
      'GET /v1/users',
      'POST /v1/users',
      'PATCH /v1/user',
      'POST /v1/user/api_keys',
      'GET /v1/system/api_keys',
      'DELETE /v1/users/:user_id',
    ]) {
      assert.ok(
        rows.some(([method, pattern]) => `${method} ${pattern}` === required),
        `${required} is auth-only`,
      );
    }
    for (const [method, pattern] of rows) {
      const response = await anonymous(url).request(method, concretePath(pattern, 'MQ=='), method === 'GET' ? {} : { body: {} });
      expectStatus(response, 403, `${method} ${pattern}`);
      assert.deepEqual(response.body, NOT_ENABLED, `${method} ${pattern}`);
    }
  });

  it('GET /v1/user → {data: {auth_method: "ANONYMOUS"}}, even with a made-up key', async () => {
    const { url } = server();
    assert.deepEqual(expectStatus(await anonymous(url).get('/v1/user'), 200).body, { data: { auth_method: 'ANONYMOUS' } });
    assert.deepEqual(expectStatus(await bearerClient(url, `sk-sl-${'z'.repeat(43)}`).get('/v1/user'), 200).body, {
      data: { auth_method: 'ANONYMOUS' },
    });
  });

  it('everything else is open: ingest needs no key, and the login page learns auth is off', async () => {
    const { url } = server();
    expectStatus(await anonymous(url).post('/v1/traces', oneSpanExport().body), 200);
    const config = expectStatus(await anonymous(url).get('/auth/config'), 200).body.data;
    assert.equal(config.auth_enabled, false);
  });
});
