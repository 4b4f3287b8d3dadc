/**
 * The spec's permission tables (Mutations and Queries), row by row, for admins and members,
 * allowed and denied, once through a browser session (cookies) and once through the user's
 * own API key (Authorization: Bearer sk-sl-...). Then system keys and requests without a credential.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { describeEachDialect } from '../helpers/server.js';
import { storedSpans } from '../helpers/stored.js';
import {
  AUTH_ENV,
  type ApiClient,
  anonymous,
  bearerClient,
  concretePath,
  createActiveUser,
  createPlainUser,
  createSystemKey,
  createUserKey,
  createUserRequest,
  expectStatus,
  loginRequest,
  oneSpanExport,
  permissionRows,
  relogin,
  sessionOf,
  setupDefaultAdmin,
  unique,
  type TestUser,
} from '../helpers/auth.js';

type Role = 'admin' | 'member';
type Via = 'session' | 'api-key';
const ROLES: readonly Role[] = ['admin', 'member'];
const VIAS: readonly Via[] = ['session', 'api-key'];

interface Context {
  url: string;
  actor: TestUser;
  /** The actor's client for this variant: its cookie session or its user API key. */
  client: ApiClient;
  via: Via;
  allowed: boolean;
  /** The default admin's session, for setting up targets and checking effects. */
  root: ApiClient;
  /** A member other than the actor, owner of keys that are "someone else's". */
  otherMember: TestUser;
}

interface Row {
  action: string;
  /** The spec's answer per role. */
  admin: boolean;
  member: boolean;
  /** Only possible through a browser session: via an API key it is 403 for everyone. */
  sessionOnly?: boolean;
  /** Status of a denied attempt (403 unless the spec hides the target: 404). */
  deniedStatus?: number;
  attempt(context: Context): Promise<void>;
}

/** A user key that must (or must not) still work. */
async function assertKeyWorks(url: string, key: string, works: boolean) {
  const response = await bearerClient(url, key).get('/v1/user');
  assert.equal(response.status, works ? 200 : 401, `the key ${works ? 'still works' : 'is dead'}`);
}

const MUTATIONS: Row[] = [
  {
    action: 'Create User',
    admin: true,
    member: false,
    async attempt({ client, root, allowed }) {
      const email = `${unique('created')}@Example.com`;
      const response = await createUserRequest(client, { email, role: 'member' });
      if (allowed) {
        expectStatus(response, 201);
        assert.equal(response.body.data.email, email.toLowerCase());
        assert.equal(response.body.data.role, 'member');
        assert.equal(expectStatus(await root.get(`/v1/users/${response.body.data.id}`), 200).body.data.email, email.toLowerCase());
      } else {
        expectStatus(response, 403);
        // Nothing was created: the email is still free.
        expectStatus(await createUserRequest(root, { email }), 201, 'the email is still free');
      }
    },
  },
  {
    action: 'Delete User',
    admin: true,
    member: false,
    async attempt({ client, root, allowed }) {
      const target = await createPlainUser(root);
      const response = await client.delete(`/v1/users/${target.id}`);
      if (allowed) {
        expectStatus(response, 204);
        expectStatus(await root.get(`/v1/users/${target.id}`), 404, 'deleted user');
      } else {
        expectStatus(response, 403);
        expectStatus(await root.get(`/v1/users/${target.id}`), 200, 'the user still exists');
      }
    },
  },
  {
    action: 'Change Own Password',
    admin: true,
    member: true,
    async attempt({ url, actor, client, via }) {
      const oldJar = actor.jar.clone();
      const password = `changed-${unique('pw')}`;
      const response = await client.patch('/v1/user', { password, current_password: actor.password });
      expectStatus(response, 200);
      assert.equal(response.body.data.id, actor.id);
      assert.equal(response.body.data.password_needs_reset, false);
      actor.password = password;
      // The change revoked every session of the actor; the new password opens a new one.
      expectStatus(await sessionOf(url, { jar: oldJar }).get('/v1/user'), 401, 'session from before the change');
      await relogin(url, actor);
      expectStatus(await sessionOf(url, actor).get('/v1/user'), 200);
      if (via === 'api-key') await assertKeyWorks(url, actor.key, true);
    },
  },
  {
    action: "Change Other's Password",
    admin: true,
    member: false,
    async attempt({ client, root, allowed }) {
      const target = await createPlainUser(root);
      const response = await client.patch(`/v1/users/${target.id}`, { password: `set-by-other-${unique('pw')}` });
      if (allowed) {
        expectStatus(response, 200);
        assert.equal(response.body.data.password_needs_reset, true, 'a password set by an admin is temporary');
      } else {
        expectStatus(response, 403);
        assert.equal(
          expectStatus(await root.get(`/v1/users/${target.id}`), 200).body.data.password_needs_reset,
          false,
          'password untouched',
        );
      }
    },
  },
  {
    action: 'Change Own Username',
    admin: true,
    member: true,
    async attempt({ actor, client }) {
      const username = unique('renamed');
      const response = await client.patch('/v1/user', { username });
      expectStatus(response, 200);
      assert.equal(response.body.data.username, username);
      assert.equal(expectStatus(await client.get('/v1/user'), 200).body.data.username, username);
      actor.username = username;
    },
  },
  {
    action: "Change Other's Username",
    admin: true,
    member: false,
    async attempt({ client, root, allowed }) {
      const target = await createPlainUser(root);
      const username = unique('renamed-by-other');
      const response = await client.patch(`/v1/users/${target.id}`, { username });
      const after = expectStatus(await root.get(`/v1/users/${target.id}`), 200).body.data;
      if (allowed) {
        expectStatus(response, 200);
        assert.equal(response.body.data.username, username);
        assert.equal(after.username, username);
      } else {
        expectStatus(response, 403);
        assert.equal(after.username, target.username, 'username untouched');
      }
    },
  },
  {
    action: 'Create System API Keys',
    admin: true,
    member: false,
    sessionOnly: true,
    async attempt({ url, actor, client, via, root, allowed }) {
      const name = unique('sys');
      const response = await client.post('/v1/system/api_keys', { data: { name } });
      if (allowed) {
        expectStatus(response, 201);
        assert.match(response.body.data.key, /^sk-sl-/);
        assert.equal(response.body.data.name, name);
        assert.deepEqual(expectStatus(await bearerClient(url, response.body.data.key).get('/v1/user'), 200).body, {
          data: { auth_method: 'SYSTEM', role: 'system' },
        });
      } else {
        expectStatus(response, 403);
        // An admin's key has the role but not the means: keys are minted in a browser session only.
        if (via === 'api-key' && actor.role === 'admin') assert.match(response.body.detail, /an API key cannot create API keys/);
        const listed = expectStatus(await root.get('/v1/system/api_keys'), 200).body.data as { name: string }[];
        assert.ok(!listed.some((key) => key.name === name), 'no key was created');
      }
    },
  },
  {
    action: 'Delete System API Keys',
    admin: true,
    member: false,
    async attempt({ url, client, root, allowed }) {
      const target = await createSystemKey(root);
      const response = await client.delete(`/v1/system/api_keys/${target.id}`);
      if (allowed) {
        expectStatus(response, 204);
        expectStatus(await bearerClient(url, target.key).get('/v1/user'), 401, 'deleted system key');
      } else {
        expectStatus(response, 403);
        expectStatus(await bearerClient(url, target.key).get('/v1/user'), 200, 'system key still works');
      }
    },
  },
  {
    action: 'Create Own User API Keys',
    admin: true,
    member: true,
    sessionOnly: true,
    async attempt({ url, actor, client, via, allowed }) {
      const name = unique('own');
      const response = await client.post('/v1/user/api_keys', { data: { name, description: 'for a notebook' } });
      if (allowed) {
        expectStatus(response, 201);
        const { key, id } = response.body.data;
        assert.match(key, /^sk-sl-/);
        // The key acts as its owner.
        const viewer = expectStatus(await bearerClient(url, key).get('/v1/user'), 200).body.data;
        assert.equal(viewer.id, actor.id);
        assert.equal(viewer.role, actor.role);
        const own = expectStatus(await client.get('/v1/user/api_keys'), 200).body.data as Record<string, unknown>[];
        const listed = own.find((entry) => entry.id === id);
        assert.ok(listed, 'the new key is listed among the own keys');
        assert.equal(listed.name, name);
        assert.ok(!('key' in listed), 'the secret is never listed');
      } else {
        expectStatus(response, 403);
        assert.equal(via, 'api-key');
        assert.match(response.body.detail, /an API key cannot create API keys/);
        const own = expectStatus(await sessionOf(url, actor).get('/v1/user/api_keys'), 200).body.data as { name: string }[];
        assert.ok(!own.some((key) => key.name === name), 'no key was created');
      }
    },
  },
  {
    action: 'Delete Own User API Keys',
    admin: true,
    member: true,
    async attempt({ url, actor, client }) {
      const target = await createUserKey(sessionOf(url, actor));
      await assertKeyWorks(url, target.key, true);
      expectStatus(await client.delete(`/v1/user/api_keys/${target.id}`), 204);
      await assertKeyWorks(url, target.key, false);
      const own = expectStatus(await sessionOf(url, actor).get('/v1/user/api_keys'), 200).body.data as { id: string }[];
      assert.ok(!own.some((key) => key.id === target.id), 'no longer listed');
    },
  },
  {
    action: "Delete Other's User API Keys",
    admin: true,
    member: false,
    deniedStatus: 404,
    async attempt({ url, client, otherMember, allowed }) {
      const target = await createUserKey(sessionOf(url, otherMember));
      const response = await client.delete(`/v1/user/api_keys/${target.id}`);
      if (allowed) {
        expectStatus(response, 204);
        await assertKeyWorks(url, target.key, false);
      } else {
        // Another user's key is "not found" to a member: its existence is not leaked.
        expectStatus(response, 404);
        assert.equal(response.body.detail, 'API key not found');
        await assertKeyWorks(url, target.key, true);
      }
    },
  },
];

const QUERIES: Row[] = [
  {
    action: 'List All System API Keys',
    admin: true,
    member: false,
    async attempt({ client, allowed, root }) {
      const known = await createSystemKey(root, { name: unique('listed-sys') });
      const response = await client.get('/v1/system/api_keys');
      if (!allowed) return void expectStatus(response, 403);
      expectStatus(response, 200);
      const keys = response.body.data as Record<string, unknown>[];
      assert.ok(
        keys.some((key) => key.id === known.id),
        'the system key is listed',
      );
      for (const key of keys) assert.ok(!('key' in key), 'secrets are never listed');
    },
  },
  {
    action: 'List All User API Keys',
    admin: true,
    member: false,
    async attempt({ client, allowed, otherMember }) {
      const response = await client.get('/v1/users/api_keys');
      if (!allowed) return void expectStatus(response, 403);
      expectStatus(response, 200);
      const keys = response.body.data as { id: string; user: { id: string; username: string } }[];
      const listed = keys.find((key) => key.id === otherMember.keyId);
      assert.ok(listed, "another user's key is listed");
      assert.equal(listed.user.id, otherMember.id);
      assert.equal(listed.user.username, otherMember.username);
      for (const key of keys) assert.ok(!('key' in key), 'secrets are never listed');
    },
  },
  {
    action: 'List All Users',
    admin: true,
    member: false,
    async attempt({ client, allowed, actor, otherMember }) {
      const response = await client.get('/v1/users');
      if (!allowed) return void expectStatus(response, 403);
      expectStatus(response, 200);
      const ids = (response.body.data as { id: string }[]).map((user) => user.id);
      assert.ok(ids.includes(actor.id) && ids.includes(otherMember.id), 'every active user is listed');
      assert.ok('next_cursor' in response.body);
    },
  },
  {
    action: "Fetch Other User's Info",
    admin: true,
    member: false,
    async attempt({ client, allowed, otherMember }) {
      const response = await client.get(`/v1/users/${otherMember.id}`);
      if (!allowed) {
        expectStatus(response, 403);
        assert.ok(!JSON.stringify(response.body).includes(otherMember.email), 'no email leaks');
        return;
      }
      expectStatus(response, 200);
      assert.equal(response.body.data.email, otherMember.email);
    },
  },
];

describeEachDialect(
  'permission tables',
  (server) => {
    let root: ApiClient;
    const users = {} as Record<Role, TestUser>;
    let otherMember: TestUser;
    let systemKey: { id: string; key: string };

    before(async () => {
      const { url } = server();
      const admin = await setupDefaultAdmin(url);
      root = sessionOf(url, admin);
      users.admin = admin;
      users.member = await createActiveUser(url, root, 'member');
      otherMember = await createActiveUser(url, root, 'member');
      systemKey = await createSystemKey(root);
    });

    const context = (role: Role, via: Via, row: Row): Context => {
      const { url } = server();
      const actor = users[role];
      const allowed = row[role] && (via === 'session' || !row.sessionOnly);
      // The root session belongs to the admin actor: rebuild it after the admin re-logged in.
      root = sessionOf(url, users.admin);
      const client = via === 'session' ? sessionOf(url, actor) : bearerClient(url, actor.key);
      return { url, actor, client, via, allowed, root, otherMember };
    };

    for (const [table, rows] of [
      ['Mutations', MUTATIONS],
      ['Queries', QUERIES],
    ] as const) {
      describe(table, () => {
        for (const row of rows) {
          for (const via of VIAS) {
            for (const role of ROLES) {
              const allowed = row[role] && (via === 'session' || !row.sessionOnly);
              const outcome = allowed ? 'allowed' : `denied (${row.deniedStatus ?? 403})`;
              it(`${row.action}: ${role} via ${via} → ${outcome}`, async () => {
                await row.attempt(context(role, via, row));
              });
            }
          }
        }
      });
    }

    describe('queries members may make', () => {
      for (const via of VIAS) {
        it(`a member reads itself (GET /v1/user and GET /v1/users/{own id}) via ${via}`, async () => {
          const { url } = server();
          const member = users.member;
          const client = via === 'session' ? sessionOf(url, member) : bearerClient(url, member.key);
          const viewer = expectStatus(await client.get('/v1/user'), 200).body.data;
          assert.equal(viewer.id, member.id);
          assert.equal(viewer.email, member.email);
          assert.equal(viewer.role, 'member');
          assert.equal(viewer.auth_method, 'LOCAL');
          const self = expectStatus(await client.get(`/v1/users/${member.id}`), 200).body.data;
          assert.equal(self.email, member.email);
          // and the admin's record stays out of reach
          expectStatus(await client.get(`/v1/users/${users.admin.id}`), 403);
        });

        it(`a member lists only its own user keys via ${via}`, async () => {
          const { url } = server();
          const member = users.member;
          const client = via === 'session' ? sessionOf(url, member) : bearerClient(url, member.key);
          const ids = (expectStatus(await client.get('/v1/user/api_keys'), 200).body.data as { id: string }[]).map((key) => key.id);
          assert.ok(ids.includes(member.keyId));
          assert.ok(!ids.includes(otherMember.keyId), "another member's key is not listed");
          assert.ok(!ids.includes(users.admin.keyId), "the admin's key is not listed");
        });
      }
    });

    describe('system API keys', () => {
      it('write project data: POST /v1/traces → 200 and the span is stored', async () => {
        const { url, server: running } = server();
        const { traceId, spanId, body } = oneSpanExport('system-key-project');
        expectStatus(await bearerClient(url, systemKey.key).post('/v1/traces', body), 200);
        const stored = await storedSpans(running.database, [traceId]);
        assert.equal(stored.get(spanId)?.project, 'system-key-project');
      });

      it('read project data: GET /v1/projects → 200 listing the project just written', async () => {
        const { url } = server();
        const { body } = oneSpanExport('system-key-readable');
        expectStatus(await bearerClient(url, systemKey.key).post('/v1/traces', body), 200);
        const projects = expectStatus(await bearerClient(url, systemKey.key).get('/v1/projects?limit=1000'), 200).body.data as {
          name: string;
        }[];
        assert.ok(projects.some((project) => project.name === 'system-key-readable'));
      });

      it('pass the permission check on every project-data route of the table (and so do user keys)', async () => {
        const { url } = server();
        const rows = permissionRows().filter(([, , rule]) => rule.access === 'any');
        assert.ok(rows.some(([method, pattern]) => method === 'GET' && pattern === '/v1/projects'));
        for (const [method, pattern] of rows) {
          // Unknown ids and empty bodies: the answer may be 404 or 422, but never 401 or 403.
          for (const key of [systemKey.key, users.member.key]) {
            const response = await bearerClient(url, key).request(
              method,
              concretePath(pattern, 'no-such-id-0'),
              method === 'GET' ? {} : { body: {} },
            );
            assert.ok(
              response.status !== 401 && response.status !== 403,
              `${method} ${pattern}: ${response.status} ${JSON.stringify(response.body)}`,
            );
          }
        }
      });

      it('GET /v1/user → {auth_method: SYSTEM, role: system}', async () => {
        const response = expectStatus(await bearerClient(server().url, systemKey.key).get('/v1/user'), 200);
        assert.deepEqual(response.body, { data: { auth_method: 'SYSTEM', role: 'system' } });
      });

      it('are refused (403) on every users and keys route of the permission table', async () => {
        const { url } = server();
        const rows = permissionRows().filter(([, , rule]) => rule.access === 'user' || rule.access === 'admin');
        assert.ok(rows.length >= 12, 'the users and keys routes are in the table');
        for (const [method, pattern] of rows) {
          const id = pattern.includes('api_key') ? systemKey.id : users.admin.id;
          const response = await bearerClient(url, systemKey.key).request(method, concretePath(pattern, id));
          expectStatus(response, 403, `${method} ${pattern} with a system key`);
        }
        // and nothing was changed by these attempts
        expectStatus(await bearerClient(url, systemKey.key).get('/v1/user'), 200, 'system key not deleted');
        expectStatus(await sessionOf(url, users.admin).get('/v1/user'), 200, 'admin not deleted');
      });
    });

    describe('without a valid credential', () => {
      it('every non-public route of the permission table answers 401 with WWW-Authenticate: Bearer', async () => {
        const { url } = server();
        const rows = permissionRows().filter(([, , rule]) => rule.access !== 'public');
        assert.ok(rows.some(([method, pattern]) => method === 'POST' && pattern === '/v1/traces'));
        for (const [method, pattern] of rows) {
          for (const [label, client] of [
            ['no credential', anonymous(url)],
            ['unknown API key', bearerClient(url, `sk-sl-${'A'.repeat(43)}`)],
            ['garbage bearer token', bearerClient(url, 'not-a-token')],
          ] as const) {
            const response = await client.request(method, concretePath(pattern, 'MQ=='));
            expectStatus(response, 401, `${method} ${pattern} with ${label}`);
            assert.equal(response.headers.get('www-authenticate'), 'Bearer');
            assert.equal(typeof response.body.detail, 'string');
          }
        }
      });

      it('the Bearer scheme is case-insensitive', async () => {
        const { url } = server();
        const viewer = expectStatus(await anonymous(url).get('/v1/user', { authorization: `bearer ${users.admin.key}` }), 200).body.data;
        assert.equal(viewer.id, users.admin.id);
      });

      it('public routes need no credential', async () => {
        const { url } = server();
        expectStatus(await anonymous(url).get('/healthz'), 200);
        const config = expectStatus(await anonymous(url).get('/auth/config'), 200).body.data;
        assert.equal(config.auth_enabled, true);
        expectStatus(await anonymous(url).get('/openapi.json'), 200);
        expectStatus(await loginRequest(url, 'nobody@example.com', 'whatever-pw'), 401);
      });
    });
  },
  AUTH_ENV,
);
