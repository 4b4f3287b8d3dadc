/**
 * A throwaway OpenLDAP server for tests (Debian's slapd and ldap-utils, as CI installs them):
 * a temp directory with a slapd.conf and an mdb database, slapd listening on a free loopback
 * port, seeded with ldapadd, stopped and removed by stop(). The way scripts/run-tests.mjs starts
 * a throwaway PostgreSQL.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './oidc-provider.js';

export const LDAP_SUFFIX = 'dc=example,dc=com';
export const LDAP_ROOT_DN = `cn=admin,${LDAP_SUFFIX}`;
export const LDAP_ROOT_PASSWORD = 'root-secret-for-tests';

export interface TestLdapServer {
  host: string;
  /** ldap:// (plain, and STARTTLS when started with tls). */
  port: number;
  /** With tls: the ldaps:// port and the PEM file of the CA that signed the server's certificate (IP SAN 127.0.0.1 only). */
  ldapsPort: number | null;
  caFile: string | null;
  /** Adds entries (LDIF) with ldapadd as the root DN. */
  add(ldif: string): void;
  /** Applies changes (LDIF with changetype) with ldapmodify as the root DN. */
  modify(ldif: string): void;
  /** Stops slapd (for "server down" tests); start() brings it back on the same port and data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops slapd and removes its directory. */
  close(): Promise<void>;
}

const SCHEMAS = ['core', 'cosine', 'inetorgperson', 'nis'];

/**
 * The SERVICE_LDAP_* settings of a server on this directory: plain LDAP, the given service
 * account, users under ou=users found by uid, with mail and cn; `groups` maps group DNs to roles.
 */
export function ldapEnv(
  ldap: Pick<TestLdapServer, 'host' | 'port'>,
  service: { dn: string; password: string },
  groups: { group_dn: string; role: string }[],
): Record<string, string> {
  return {
    SERVICE_LDAP_HOST: ldap.host,
    SERVICE_LDAP_PORT: String(ldap.port),
    SERVICE_LDAP_TLS_MODE: 'none',
    SERVICE_LDAP_BIND_DN: service.dn,
    SERVICE_LDAP_BIND_PASSWORD: service.password,
    SERVICE_LDAP_USER_SEARCH_BASE_DNS: JSON.stringify([`ou=users,${LDAP_SUFFIX}`]),
    SERVICE_LDAP_USER_SEARCH_FILTER: '(&(objectClass=inetOrgPerson)(uid=%s))',
    SERVICE_LDAP_ATTR_EMAIL: 'mail',
    SERVICE_LDAP_ATTR_DISPLAY_NAME: 'cn',
    SERVICE_LDAP_GROUP_ROLE_MAPPINGS: JSON.stringify(groups),
    SERVICE_LDAP_CONNECT_TIMEOUT_SECONDS: '2',
    SERVICE_LDAP_TIMEOUT_SECONDS: '5',
  };
}

function slapdBinary(): string | null {
  for (const candidate of ['/usr/sbin/slapd', '/usr/local/libexec/slapd']) if (fs.existsSync(candidate)) return candidate;
  return null;
}

/** True when slapd and ldapadd are installed (apt-get install slapd ldap-utils). */
export function hasSlapd(): boolean {
  return slapdBinary() !== null && spawnSync('ldapadd', ['-VV']).error === undefined;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A throwaway CA and a server certificate for 127.0.0.1 (openssl). */
function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const file = (name: string) => path.join(dir, name);
  const openssl = (args: string[]) => {
    const result = spawnSync('openssl', args, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr}`);
  };
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Sightline Test CA',
  ]);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=127.0.0.1']);
  fs.writeFileSync(file('san.cnf'), 'subjectAltName=IP:127.0.0.1\n');
  openssl([
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-out',
    file('server.pem'),
    '-days',
    '2',
    '-extfile',
    file('san.cnf'),
  ]);
  return { ca: file('ca.pem'), cert: file('server.pem'), key: file('server.key') };
}

/** Starts slapd with the memberof overlay, the base entries and nothing else; with tls, STARTTLS and ldaps:// too. */
export async function startLdapServer(options: { tls?: boolean } = {}): Promise<TestLdapServer> {
  const slapd = slapdBinary();
  if (!slapd) throw new Error('slapd is not installed (apt-get install slapd ldap-utils)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-ldap-'));
  const data = path.join(dir, 'data');
  fs.mkdirSync(data);
  const modules = ['/usr/lib/ldap', '/usr/lib/x86_64-linux-gnu/ldap', '/usr/lib/aarch64-linux-gnu/ldap'].find((candidate) =>
    fs.existsSync(candidate),
  );
  const certificates = options.tls ? makeCertificates(dir) : null;
  const conf = path.join(dir, 'slapd.conf');
  fs.writeFileSync(
    conf,
    [
      ...SCHEMAS.map((schema) => `include /etc/ldap/schema/${schema}.schema`),
      ...(certificates
        ? [
            `TLSCACertificateFile ${certificates.ca}`,
            `TLSCertificateFile ${certificates.cert}`,
            `TLSCertificateKeyFile ${certificates.key}`,
          ]
        : []),
      `pidfile ${path.join(dir, 'slapd.pid')}`,
      ...(modules ? [`modulepath ${modules}`, 'moduleload back_mdb', 'moduleload memberof'] : []),
      'database mdb',
      'maxsize 67108864',
      `suffix "${LDAP_SUFFIX}"`,
      `rootdn "${LDAP_ROOT_DN}"`,
      `rootpw ${LDAP_ROOT_PASSWORD}`,
      `directory ${data}`,
      'overlay memberof',
      'memberof-group-oc groupOfNames',
      'memberof-member-ad member',
      'memberof-memberof-ad memberOf',
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const ldapsPort = certificates ? await freePort() : null;
  const url = `ldap://127.0.0.1:${port}/`;
  const urls = ldapsPort === null ? url : `${url} ldaps://127.0.0.1:${ldapsPort}/`;
  let child: ChildProcess | null = null;
  let output = '';

  const start = async () => {
    output = '';
    // -d 0: stay in the foreground (so the test owns the process), log nothing.
    child = spawn(slapd, ['-f', conf, '-h', urls, '-d', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 15_000;
    while (!(await listening(port)) || (ldapsPort !== null && !(await listening(ldapsPort)))) {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`slapd did not start (exit ${child.exitCode}): ${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    const timer = setTimeout(() => running.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const ldapTool = (tool: 'ldapadd' | 'ldapmodify', ldif: string) => {
    const result = spawnSync(tool, ['-x', '-H', url, '-D', LDAP_ROOT_DN, '-w', LDAP_ROOT_PASSWORD], { input: ldif, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${tool} failed: ${result.stderr || result.stdout}`);
  };
  const add = (ldif: string) => ldapTool('ldapadd', ldif);

  await start();
  add(`dn: ${LDAP_SUFFIX}
objectClass: top
objectClass: dcObject
objectClass: organization
o: Example
dc: example

dn: ou=users,${LDAP_SUFFIX}
objectClass: organizationalUnit
ou: users

dn: ou=groups,${LDAP_SUFFIX}
objectClass: organizationalUnit
ou: groups
`);
  return {
    host: '127.0.0.1',
    port,
    ldapsPort,
    caFile: certificates?.ca ?? null,
    add,
    modify: (ldif) => ldapTool('ldapmodify', ldif),
    start,
    stop,
    close: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
