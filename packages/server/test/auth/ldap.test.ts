/**
 * LDAP login (POST /auth/ldap/login, docs/ldap.md) against a real OpenLDAP server (slapd, started
 * by the test helper on a free loopback port with the memberof overlay): sessions that work on
 * /v1/user, one 401 sentence for wrong password, unknown user, filter injection and users in no
 * mapped group, group → role mapping (first match wins) kept in step with the directory, the login
 * guess limit, accounts of other sign-in methods left alone, admin-created LDAP users, and 503
 * while the directory is down.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { describeEachDialect, startTestServer } from '../helpers/server.js';
import { LDAP_SUFFIX, ldapEnv, startLdapServer } from '../helpers/ldap-server.js';
import {
  ACCESS_COOKIE,
  AUTH_ENV,
  ApiClient,
  CookieJar,
  REFRESH_COOKIE,
  call,
  createPlainUser,
  expectStatus,
  sessionOf,
  setupDefaultAdmin,
  type ApiResponse,
  type TestUser,
} from '../helpers/auth.js';

const SERVICE_DN = `cn=sightline,${LDAP_SUFFIX}`;
const SERVICE_PASSWORD = 'service-account-secret';
const ADMINS = `cn=admins,ou=groups,${LDAP_SUFFIX}`;
const DEVELOPERS = `cn=developers,ou=groups,${LDAP_SUFFIX}`;
const FAILED = { detail: 'Invalid username and/or password' };

interface DirectoryUser {
  uid: string;
  cn: string;
  mail: string;
  password: string;
}
const person = (uid: string, cn: string): DirectoryUser => ({
  uid,
  cn,
  mail: `${uid.replace(/[^a-z]/g, '')}@example.com`,
  password: `${uid}-password!`,
});
const ALICE = person('alice', 'Alice Admin');
const BOB = person('bob', 'Bob Builder');
const CAROL = person('carol', 'Carol NoGroup');
const DAVE = person('dave(ops)*', 'Dave Ops');
const ERIN = person('erin', 'Erin Guessed');
const FRANK = person('frank', 'Frank Local');
const GRACE = person('grace', 'Grace Provisioned');
const USERS = [ALICE, BOB, CAROL, DAVE, ERIN, FRANK, GRACE];
const dnOf = (user: DirectoryUser) => `uid=${user.uid.replace(/([,+"\\<>;=#])/g, '\\$1')},ou=users,${LDAP_SUFFIX}`;

const ldap = await startLdapServer();
after(() => ldap.close());
ldap.add(
  [
    `dn: ${SERVICE_DN}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\ncn: sightline\nuserPassword: ${SERVICE_PASSWORD}\n`,
    ...USERS.map(
      (user) =>
        `dn: ${dnOf(user)}\nobjectClass: inetOrgPerson\nuid: ${user.uid}\ncn: ${user.cn}\nsn: ${user.cn.split(' ')[1]}\n` +
        `mail: ${user.mail}\nuserPassword: ${user.password}\n`,
    ),
    // Three entries share the login name "twin": an ambiguous search is refused, never guessed.
    ...[1, 2, 3].map(
      (n) =>
        `dn: cn=Twin ${n},ou=users,${LDAP_SUFFIX}\nobjectClass: inetOrgPerson\nuid: twin\ncn: Twin ${n}\nsn: Twin\n` +
        `mail: twin${n}@example.com\nuserPassword: twin-password\n`,
    ),
    // Alice is in both groups: the first mapping (admins) wins.
    `dn: ${ADMINS}\nobjectClass: groupOfNames\ncn: admins\nmember: ${dnOf(ALICE)}\n`,
    `dn: ${DEVELOPERS}\nobjectClass: groupOfNames\ncn: developers\n` +
      [ALICE, BOB, DAVE, ERIN, FRANK, GRACE].map((user) => `member: ${dnOf(user)}`).join('\n') +
      '\n',
  ].join('\n'),
);

const LDAP_ENV: Record<string, string> = {
  ...ldapEnv(ldap, { dn: SERVICE_DN, password: SERVICE_PASSWORD }, [
    { group_dn: 'CN=Admins, OU=Groups, DC=example, DC=com', role: 'admin' },
    { group_dn: DEVELOPERS, role: 'MEMBER' },
  ]),
  SERVICE_LDAP_ATTR_UNIQUE_ID: 'entryUUID',
};

function ldapLogin(url: string, username: unknown, password: unknown, jar = new CookieJar()): Promise<ApiResponse> {
  return call(url, { jar }, 'POST', '/auth/ldap/login', { body: { username, password } });
}

async function signIn(url: string, user: DirectoryUser): Promise<ApiClient> {
  const jar = new CookieJar();
  expectStatus(await ldapLogin(url, user.uid, user.password, jar), 204, `LDAP login of ${user.uid}`);
  assert.ok(jar.get(ACCESS_COOKIE) && jar.get(REFRESH_COOKIE), 'both session cookies are set');
  return new ApiClient(url, { jar });
}

describeEachDialect(
  'LDAP login',
  (server) => {
    let admin: TestUser;
    before(async () => {
      admin = await setupDefaultAdmin(server().url);
    });

    it('GET /auth/config tells the login page that LDAP login is offered', async () => {
      assert.equal(expectStatus(await call(server().url, null, 'GET', '/auth/config'), 200).body.data.ldap_enabled, true);
    });

    it('logs a directory user in: the cookies work on /v1/user and the user is created as an LDAP user', async () => {
      const { url } = server();
      const session = await signIn(url, ALICE);
      const viewer = expectStatus(await session.get('/v1/user'), 200).body.data;
      assert.equal(viewer.email, ALICE.mail);
      assert.equal(viewer.username, ALICE.cn, 'the display name attribute becomes the username');
      assert.equal(viewer.auth_method, 'LDAP');
      assert.equal(viewer.password_needs_reset, false);
      // A second login finds the same user rather than creating another.
      const again = await signIn(url, ALICE);
      assert.equal(expectStatus(await again.get('/v1/user'), 200).body.data.id, viewer.id);
    });

    it('maps groups to roles, first mapping first: admins → admin, developers → member', async () => {
      const { url } = server();
      assert.equal(expectStatus(await (await signIn(url, ALICE)).get('/v1/user'), 200).body.data.role, 'admin');
      const bob = await signIn(url, BOB);
      assert.equal(expectStatus(await bob.get('/v1/user'), 200).body.data.role, 'member');
      expectStatus(await bob.get('/v1/users'), 403, 'a member is no admin');
    });

    it('refuses a wrong password and an unknown user with the same 401 sentence', async () => {
      const { url } = server();
      const wrong = expectStatus(await ldapLogin(url, BOB.uid, 'not-the-password'), 401, 'wrong password');
      assert.deepEqual(wrong.body, FAILED);
      assert.equal(wrong.headers.get('set-cookie'), null, 'no session cookie');
      assert.deepEqual(expectStatus(await ldapLogin(url, 'nobody-here', 'whatever-password'), 401, 'unknown user').body, FAILED);
    });

    it('refuses a login name that several entries share (past the search size limit too)', async () => {
      assert.deepEqual(expectStatus(await ldapLogin(server().url, 'twin', 'twin-password'), 401).body, FAILED);
    });

    it('refuses a user in no mapped group', async () => {
      assert.deepEqual(expectStatus(await ldapLogin(server().url, CAROL.uid, CAROL.password), 401).body, FAILED);
    });

    it('escapes the username in the filter: injection attempts match nobody, special characters match literally', async () => {
      const { url } = server();
      for (const username of ['*)(uid=*', '*', 'alice)(|(uid=*', `${ALICE.uid}*`, `*)(mail=${ALICE.mail}`, 'al\\2a']) {
        assert.deepEqual(expectStatus(await ldapLogin(url, username, ALICE.password), 401, `username ${username}`).body, FAILED);
      }
      // A real uid with filter metacharacters ( ) * signs in: its characters are escaped, not dropped.
      const dave = await signIn(url, DAVE);
      assert.equal(expectStatus(await dave.get('/v1/user'), 200).body.data.email, DAVE.mail);
    });

    it('answers 401 without a username or password (an empty password is never an anonymous bind)', async () => {
      const { url } = server();
      const required = { detail: 'Username and password required' };
      assert.deepEqual(expectStatus(await ldapLogin(url, ALICE.uid, ''), 401).body, required);
      assert.deepEqual(expectStatus(await ldapLogin(url, '', ALICE.password), 401).body, required);
      assert.deepEqual(expectStatus(await ldapLogin(url, undefined, undefined), 401).body, required);
      assert.deepEqual(expectStatus(await ldapLogin(url, ['alice'], { password: 1 }), 401).body, required);
    });

    it('counts failures under the login guess limit: the 6th attempt is 429 even with the right password', async () => {
      const { url } = server();
      for (let i = 0; i < 5; i++) expectStatus(await ldapLogin(url, ERIN.uid, 'wrong-guess'), 401, `failure ${i + 1}`);
      const locked = expectStatus(await ldapLogin(url, ERIN.uid.toUpperCase(), ERIN.password), 429, 'locked (any case)');
      assert.match(locked.headers.get('retry-after') ?? '', /^\d+$/);
      // Other usernames are unaffected.
      await signIn(url, BOB);
    });

    it('keeps the role in step with the directory: moved to admins, the next login is an admin and old sessions end', async () => {
      const { url } = server();
      const before = await signIn(url, BOB);
      assert.equal(expectStatus(await before.get('/v1/user'), 200).body.data.role, 'member');
      ldap.modify(`dn: ${ADMINS}\nchangetype: modify\nadd: member\nmember: ${dnOf(BOB)}\n`);
      try {
        const promoted = await signIn(url, BOB);
        assert.equal(expectStatus(await promoted.get('/v1/user'), 200).body.data.role, 'admin');
        expectStatus(await before.get('/v1/user'), 401, 'the session opened as a member was revoked');
      } finally {
        ldap.modify(`dn: ${ADMINS}\nchangetype: modify\ndelete: member\nmember: ${dnOf(BOB)}\n`);
      }
      const demoted = await signIn(url, BOB);
      assert.equal(expectStatus(await demoted.get('/v1/user'), 200).body.data.role, 'member');
    });

    it('never takes over an account of another sign-in method that holds the email', async () => {
      const { url } = server();
      await createPlainUser(sessionOf(url, admin), { email: FRANK.mail, username: 'frank-local', role: 'member' });
      assert.deepEqual(expectStatus(await ldapLogin(url, FRANK.uid, FRANK.password), 401).body, FAILED);
    });

    it('signs in an LDAP user an admin created, matched by email, keeping its username', async () => {
      const { url } = server();
      const created = expectStatus(
        await sessionOf(url, admin).post('/v1/users', {
          user: { email: GRACE.mail, username: 'grace-by-admin', role: 'MEMBER', auth_method: 'LDAP' },
        }),
        201,
      ).body.data;
      assert.equal(created.auth_method, 'LDAP');
      expectStatus(
        await sessionOf(url, admin).post('/v1/users', {
          user: {
            email: 'ldap-with-password@example.com',
            username: 'ldap-pw',
            role: 'member',
            auth_method: 'LDAP',
            password: 'a-password-1',
          },
        }),
        422,
        'an LDAP user has no password',
      );
      const grace = await signIn(url, GRACE);
      const viewer = expectStatus(await grace.get('/v1/user'), 200).body.data;
      assert.equal(viewer.id, created.id);
      assert.equal(viewer.username, 'grace-by-admin');
      // A directory user has no password here: password login and reset refuse it.
      expectStatus(await call(url, null, 'POST', '/auth/login', { body: { email: GRACE.mail, password: GRACE.password } }), 401);
    });

    it('answers 503 with Retry-After while the directory is down, and logs in again once it is back', async () => {
      const { url } = server();
      await ldap.stop();
      try {
        const down = expectStatus(await ldapLogin(url, ALICE.uid, ALICE.password), 503);
        assert.match(down.headers.get('retry-after') ?? '', /^\d+$/);
        assert.match(down.body.detail, /LDAP directory cannot be reached/);
      } finally {
        await ldap.start();
      }
      await signIn(url, ALICE);
    });

    it('never echoes the password: a refusal carries only the fixed sentence', async () => {
      const secret = 'very-secret-password-42';
      const refused = expectStatus(await ldapLogin(server().url, ALICE.uid, secret), 401);
      assert.ok(!JSON.stringify(refused.body).includes(secret));
    });
  },
  { ...AUTH_ENV, SERVICE_LOG_LEVEL: 'fatal', ...LDAP_ENV },
);

describe('LDAP login where it is not offered', () => {
  it('answers 403 with auth off, like the other auth routes, and 404 with auth on but no SERVICE_LDAP_HOST', async () => {
    const off = await startTestServer('sqlite', { ...LDAP_ENV, SERVICE_LOG_LEVEL: 'fatal' });
    try {
      const response = expectStatus(await ldapLogin(off.url, ALICE.uid, ALICE.password), 403);
      assert.deepEqual(response.body, { detail: 'authentication is not enabled' });
      assert.equal(expectStatus(await call(off.url, null, 'POST', '/auth/login', { body: {} }), 403).body.detail, response.body.detail);
    } finally {
      await off.close();
    }
    const without = await startTestServer('sqlite', { ...AUTH_ENV, SERVICE_LOG_LEVEL: 'fatal' });
    try {
      expectStatus(await ldapLogin(without.url, ALICE.uid, ALICE.password), 404);
      assert.equal(expectStatus(await call(without.url, null, 'GET', '/auth/config'), 200).body.data.ldap_enabled, false);
    } finally {
      await without.close();
    }
  });
});
