/**
 * LDAP login over TLS and with POSIX group search (docs/ldap.md), against a real slapd with a
 * throwaway CA whose server certificate names 127.0.0.1 only: STARTTLS (the default mode) and
 * LDAPS with SERVICE_LDAP_TLS_CA_CERT_FILE, an untrusted certificate refused (503) unless
 * SERVICE_LDAP_TLS_VERIFY is off, and roles from a posixGroup search (memberUid=%s). The database
 * plays no part in what is tested here, so these run on SQLite only (ldap.test.ts covers both).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { LDAP_SUFFIX, startLdapServer } from '../helpers/ldap-server.js';
import { AUTH_ENV, ApiClient, CookieJar, call, expectStatus, type ApiResponse } from '../helpers/auth.js';

const ldap = await startLdapServer({ tls: true });
after(() => ldap.close());
const users = [
  { uid: 'paul', password: 'paul-password!', group: 'ops' },
  { uid: 'quinn', password: 'quinn-password!', group: 'staff' },
];
ldap.add(
  [
    ...users.map(
      (user) =>
        `dn: uid=${user.uid},ou=users,${LDAP_SUFFIX}\nobjectClass: inetOrgPerson\nuid: ${user.uid}\ncn: ${user.uid} tls\nsn: tls\n` +
        `mail: ${user.uid}@example.com\nuserPassword: ${user.password}\n`,
    ),
    `dn: cn=ops,ou=groups,${LDAP_SUFFIX}\nobjectClass: posixGroup\ncn: ops\ngidNumber: 5001\nmemberUid: paul\n`,
    `dn: cn=staff,ou=groups,${LDAP_SUFFIX}\nobjectClass: posixGroup\ncn: staff\ngidNumber: 5002\nmemberUid: paul\nmemberUid: quinn\n`,
  ].join('\n'),
);
const [PAUL, QUINN] = users as [(typeof users)[0], (typeof users)[0]];

const BASE_ENV: Record<string, string> = {
  ...AUTH_ENV,
  SERVICE_LOG_LEVEL: 'fatal',
  SERVICE_LDAP_HOST: ldap.host,
  SERVICE_LDAP_PORT: String(ldap.port),
  SERVICE_LDAP_USER_SEARCH_BASE_DNS: JSON.stringify([`ou=users,${LDAP_SUFFIX}`]),
  SERVICE_LDAP_USER_SEARCH_FILTER: '(&(objectClass=inetOrgPerson)(uid=%s))',
  SERVICE_LDAP_ATTR_EMAIL: 'mail',
  SERVICE_LDAP_GROUP_SEARCH_BASE_DNS: JSON.stringify([`ou=groups,${LDAP_SUFFIX}`]),
  SERVICE_LDAP_GROUP_SEARCH_FILTER: '(&(objectClass=posixGroup)(memberUid=%s))',
  SERVICE_LDAP_GROUP_ROLE_MAPPINGS: JSON.stringify([
    { group_dn: `cn=ops,ou=groups,${LDAP_SUFFIX}`, role: 'ADMIN' },
    { group_dn: `cn=staff,ou=groups,${LDAP_SUFFIX}`, role: 'MEMBER' },
  ]),
  SERVICE_LDAP_CONNECT_TIMEOUT_SECONDS: '2',
  SERVICE_LDAP_TIMEOUT_SECONDS: '5',
};

const ldapLogin = (url: string, username: string, password: string, jar = new CookieJar()): Promise<ApiResponse> =>
  call(url, { jar }, 'POST', '/auth/ldap/login', { body: { username, password } });

async function roleAfterLogin(url: string, user: { uid: string; password: string }): Promise<string> {
  const jar = new CookieJar();
  expectStatus(await ldapLogin(url, user.uid, user.password, jar), 204, `login of ${user.uid}`);
  return expectStatus(await new ApiClient(url, { jar }).get('/v1/user'), 200).body.data.role;
}

async function withServer(env: Record<string, string>, body: (server: TestServer) => Promise<void>): Promise<void> {
  const server = await startTestServer('sqlite', { ...BASE_ENV, ...env });
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

describe('LDAP over TLS, with POSIX group search', () => {
  it('STARTTLS (the default) with the CA file: logs in, roles from the posixGroup search', async () => {
    await withServer({ SERVICE_LDAP_TLS_CA_CERT_FILE: ldap.caFile! }, async ({ url }) => {
      assert.equal(await roleAfterLogin(url, PAUL), 'admin', 'ops is mapped first');
      assert.equal(await roleAfterLogin(url, QUINN), 'member');
      // The memberUid value is escaped too: a wildcard username matches no user and no group.
      expectStatus(await ldapLogin(url, '*', PAUL.password), 401);
      expectStatus(await ldapLogin(url, PAUL.uid, 'wrong-password'), 401);
    });
  });

  it('LDAPS with the CA file', async () => {
    await withServer(
      { SERVICE_LDAP_TLS_MODE: 'ldaps', SERVICE_LDAP_PORT: String(ldap.ldapsPort), SERVICE_LDAP_TLS_CA_CERT_FILE: ldap.caFile! },
      async ({ url }) => {
        assert.equal(await roleAfterLogin(url, QUINN), 'member');
      },
    );
  });

  it('refuses a certificate it cannot verify (503, the password is never sent) unless SERVICE_LDAP_TLS_VERIFY is off', async () => {
    await withServer({}, async ({ url }) => {
      expectStatus(await ldapLogin(url, PAUL.uid, PAUL.password), 503, 'STARTTLS to an unknown CA');
    });
    await withServer({ SERVICE_LDAP_TLS_MODE: 'ldaps', SERVICE_LDAP_PORT: String(ldap.ldapsPort) }, async ({ url }) => {
      expectStatus(await ldapLogin(url, PAUL.uid, PAUL.password), 503, 'LDAPS to an unknown CA');
    });
    await withServer({ SERVICE_LDAP_HOST: 'localhost', SERVICE_LDAP_TLS_CA_CERT_FILE: ldap.caFile! }, async ({ url }) => {
      expectStatus(await ldapLogin(url, PAUL.uid, PAUL.password), 503, 'a certificate for 127.0.0.1 does not name localhost');
    });
    await withServer({ SERVICE_LDAP_TLS_VERIFY: 'false' }, async ({ url }) => {
      assert.equal(await roleAfterLogin(url, PAUL), 'admin');
    });
  });
});
