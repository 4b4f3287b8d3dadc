/**
 * Password recovery by email (docs/auth.md, "Recovering access"), end to end: a real SMTP server on loopback receives the
 * reset mail (over STARTTLS with a self-signed certificate and SMTP AUTH), the test follows the link's
 * token, sets a new password and logs in with it. Links never take their origin from request headers;
 * tokens are single-use, superseded by newer ones and short-lived; nobody can learn which emails exist.
 */
import { UnauthenticatedError } from '@sightline/common';
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, it } from 'node:test';
import { startTestServer, describeEachDialect, type TestServer } from '../helpers/server.js';
import { selfSignedCertificate, startSmtpServer, type ReceivedMail, type SmtpTestServer } from '../helpers/smtp.js';
import {
  REFRESH_COOKIE,
  AUTH_ENV,
  DEFAULT_ADMIN_EMAIL,
  anonymous,
  createPlainUser,
  expectStatus,
  login,
  loginRequest,
  sessionOf,
  unique,
  type ApiClient,
  type ApiResponse,
  type TestUser,
  setupDefaultAdmin,
  CookieJar,
} from '../helpers/auth.js';

const ROOT_URL = 'https://sightline.example.com';
const ROOT_PATH = '/observe';
const MAIL_FROM = 'sightline@example.test';
const SMTP_USER = 'sightline-mailer';
const SMTP_PASSWORD = 'smtp-secret-0123';

// One STARTTLS-capable, authenticating SMTP server and one plain one, shared by every suite of this file.
const certificate = selfSignedCertificate();
const tlsSmtp = await startSmtpServer({ tls: certificate, auth: { username: SMTP_USER, password: SMTP_PASSWORD } });
const plainSmtp = await startSmtpServer({ tls: null });
after(async () => {
  await tlsSmtp.close();
  await plainSmtp.close();
});

const smtpEnv = (smtp: SmtpTestServer, extra: Record<string, string> = {}): Record<string, string> => ({
  SERVICE_SMTP_HOSTNAME: '127.0.0.1',
  SERVICE_SMTP_PORT: String(smtp.port),
  ...extra,
});

/** The main server: SMTP with STARTTLS (self-signed, so validation off) and credentials, a public root URL and a root path. */
const MAIN_ENV: Record<string, string> = {
  ...AUTH_ENV,
  ...smtpEnv(tlsSmtp, {
    SERVICE_SMTP_USERNAME: SMTP_USER,
    SERVICE_SMTP_PASSWORD: SMTP_PASSWORD,
    SERVICE_SMTP_MAIL_FROM: MAIL_FROM,
    SERVICE_SMTP_VALIDATE_CERTS: 'false',
  }),
  SERVICE_ROOT_URL: ROOT_URL,
  SERVICE_HOST_ROOT_PATH: ROOT_PATH,
};

const LINK = /(https?:\/\/[^\s"<>]+\/reset-password-with-token\?token=([A-Za-z0-9_-]+))/;

/** The reset link of a mail (from its text part), checked to appear in the HTML part too. */
function linkOf(mail: ReceivedMail): { url: URL; token: string } {
  const match = LINK.exec(mail.text);
  assert.ok(match, `the mail's text carries a reset link:\n${mail.text}`);
  assert.ok(mail.html?.includes(`href="${match[1]}"`), 'the HTML part links to the same URL');
  return { url: new URL(match[1]!), token: match[2]! };
}

/**
 * POST with a raw request, so that the Host header (which fetch will not let us set) is forged,
 * along with the forwarding headers a proxy would add.
 */
function postWithForgedHost(baseUrl: string, path: string, body: unknown): Promise<ApiResponse> {
  const url = new URL(`${baseUrl}${path}`);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          host: 'evil.example',
          'x-forwarded-host': 'evil.example',
          'x-forwarded-proto': 'https',
          forwarded: 'host=evil.example;proto=https',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headers.set(name, value);
          resolve({
            status: response.statusCode ?? 0,
            headers,
            body: text && headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
          });
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

const requestLink = async (client: ApiClient, email: string) =>
  expectStatus(await client.post('/auth/password-reset-email', { email }), 204, `reset mail for ${email}`);

const resetWith = (client: ApiClient, token: unknown, password: unknown) => client.post('/auth/password-reset', { token, password });

describeEachDialect(
  'password recovery by email',
  (current) => {
    let admin: TestUser;
    let adminClient: ApiClient;
    let server: TestServer;
    let extra: TestServer | undefined;
    const anon = () => anonymous(server.url);

    before(async () => {
      server = current();
      admin = await setupDefaultAdmin(server.url);
      adminClient = sessionOf(server.url, admin);
    });
    after(async () => {
      await extra?.close();
    });

    /** A local user with a password (set by the admin, so still to be changed: irrelevant to recovery). */
    const localUser = async () => {
      const password = `pw-${unique('pw')}`;
      const created = await createPlainUser(adminClient, { password });
      return { ...created, password };
    };

    /** Starts another server of the same dialect for one test (closed by the next one or at the end). */
    const startExtra = async (env: Record<string, string>) => {
      await extra?.close();
      extra = undefined;
      extra = await startTestServer(server.dialect, env);
      return extra;
    };

    it('GET /auth/config reports SMTP as configured', async () => {
      const response = expectStatus(await anon().get('/auth/config'), 200);
      assert.equal(response.body.data.smtp_configured, true);
    });

    it('mails a link built from SERVICE_ROOT_URL and the root path, whatever Host the request claims', async () => {
      const user = await localUser();
      const response = await postWithForgedHost(server.url, '/auth/password-reset-email', { email: user.email });
      expectStatus(response, 204, 'reset mail with a forged Host');
      const mail = await tlsSmtp.nextMail(user.email);
      assert.deepEqual(mail.to, [user.email]);
      assert.equal(mail.from, MAIL_FROM);
      assert.equal(mail.user, SMTP_USER, 'the mailer authenticated with SERVICE_SMTP_USERNAME/PASSWORD');
      if (certificate) assert.equal(mail.secure, true, 'the mailer upgraded with STARTTLS when the server offered it');
      assert.match(mail.subject, /password/i);
      const { url, token } = linkOf(mail);
      assert.equal(url.origin, ROOT_URL);
      assert.equal(url.pathname, `${ROOT_PATH}/reset-password-with-token`);
      assert.deepEqual([...url.searchParams.keys()], ['token']);
      assert.ok(token.length >= 32, `the token is long enough to be unguessable: ${token}`);
      assert.ok(!mail.raw.includes('evil.example'), 'nothing of the forged headers reaches the mail');
    });

    it('following the link sets the password, clears password_needs_reset and ends every session', async () => {
      const temporary = `temp-${unique('pw')}`;
      const created = await createPlainUser(adminClient, { password: temporary });
      assert.equal(created.password_needs_reset, true);
      const oldSession = await login(server.url, created.email, temporary);
      const secondSession = await login(server.url, created.email, temporary);
      expectStatus(await sessionOf(server.url, { jar: oldSession }).get('/v1/user'), 200, 'the session works before the reset');
      expectStatus(
        await sessionOf(server.url, { jar: oldSession }).get('/v1/user/api_keys'),
        403,
        'held back until the password is changed',
      );

      await requestLink(anon(), created.email);
      const { token } = linkOf(await tlsSmtp.nextMail(created.email));
      const password = `new-${unique('pw')}`;
      expectStatus(await resetWith(anon(), token, password), 204, 'reset with the mailed token');

      // Every session is gone: access cookies, and refresh cookies cannot mint new ones.
      for (const jar of [oldSession, secondSession]) {
        expectStatus(await sessionOf(server.url, { jar: jar.clone() }).get('/v1/user'), 401, 'old access cookie');
        const onlyRefresh = new CookieJar([[REFRESH_COOKIE, jar.get(REFRESH_COOKIE)!]]);
        expectStatus(await sessionOf(server.url, { jar: onlyRefresh }).post('/auth/refresh'), 401, 'old refresh cookie');
      }
      expectStatus(await loginRequest(server.url, created.email, temporary), 401, 'login with the old password');
      const jar = await login(server.url, created.email, password);
      const me = expectStatus(await sessionOf(server.url, { jar }).get('/v1/user'), 200).body.data;
      assert.equal(me.email, created.email);
      assert.equal(me.password_needs_reset, false, 'a password chosen through the link needs no further change');
      expectStatus(await sessionOf(server.url, { jar }).get('/v1/user/api_keys'), 200, 'no longer held back by a pending password change');

      // The token worked once.
      expectStatus(await resetWith(anon(), token, `again-${unique('pw')}`), 401, 'second use of the token');
      expectStatus(await loginRequest(server.url, created.email, password), 204, 'the password from the first use still holds');
    });

    it('only the newest link works', async () => {
      const user = await localUser();
      await requestLink(anon(), user.email);
      const first = linkOf(await tlsSmtp.nextMail(user.email)).token;
      await requestLink(anon(), user.email);
      const second = linkOf(await tlsSmtp.nextMail(user.email)).token;
      assert.notEqual(first, second);
      expectStatus(await resetWith(anon(), first, `first-${unique('pw')}`), 401, 'superseded token');
      expectStatus(await loginRequest(server.url, user.email, user.password), 204, 'the refused token changed nothing');
      const password = `second-${unique('pw')}`;
      expectStatus(await resetWith(anon(), second, password), 204, 'newest token');
      expectStatus(await loginRequest(server.url, user.email, password), 204);
    });

    it('an expired link is refused', async () => {
      const user = await localUser();
      await requestLink(anon(), user.email);
      const { token } = linkOf(await tlsSmtp.nextMail(user.email));

      // Just past the default lifetime of 15 minutes the service refuses it (and does not consume it)...
      const later = new Date(Date.now() + 15 * 60_000 + 1_000);
      await assert.rejects(server.server.auth.passwordResets.resetPassword(token, `late-${unique('pw')}`, later), (error: unknown) => {
        assert.ok(error instanceof UnauthenticatedError, `expected UnauthenticatedError, got ${String(error)}`);
        return true;
      });
      // ...and once the stored expiry has passed, the route does too.
      const db = server.server.database.db;
      const userIds = db.selectFrom('users').select('id').where('email', '=', user.email);
      const updated = await db
        .updateTable('password_reset_tokens')
        .set({ expires_at: new Date(Date.now() - 1_000).toISOString() })
        .where('user_id', 'in', userIds)
        .executeTakeFirst();
      assert.equal(Number(updated.numUpdatedRows), 1, 'exactly one token is stored for the user');
      expectStatus(await resetWith(anon(), token, `late-${unique('pw')}`), 401, 'expired token');
      expectStatus(await loginRequest(server.url, user.email, user.password), 204, 'the old password still works');
    });

    it('a weak password is refused with 422 and the link stays usable', async () => {
      const user = await localUser();
      await requestLink(anon(), user.email);
      const { token } = linkOf(await tlsSmtp.nextMail(user.email));
      for (const weak of ['short', '         ', 'x'.repeat(257), 12345678, null]) {
        const response = expectStatus(await resetWith(anon(), token, weak), 422, `weak password ${JSON.stringify(weak)}`);
        assert.match(String(response.body.detail), /password/, 'the detail names the rule');
      }
      expectStatus(await loginRequest(server.url, user.email, user.password), 204, 'nothing changed');
      const password = `strong-${unique('pw')}`;
      expectStatus(await resetWith(anon(), token, password), 204);
      expectStatus(await loginRequest(server.url, user.email, password), 204);
    });

    it('unknown, malformed or missing tokens are refused with 401', async () => {
      for (const token of ['', 'not-a-token', 'A'.repeat(43), 42, null, { $ne: '' }]) {
        expectStatus(await resetWith(anon(), token, `whatever-${unique('pw')}`), 401, `token ${JSON.stringify(token)}`);
      }
      expectStatus(await anon().post('/auth/password-reset', {}), 422, 'no token property at all: a body validation error');
    });

    it('never tells which emails exist: unknown, deleted and IDP users get 204 and no mail', async () => {
      const deleted = await localUser();
      expectStatus(await adminClient.delete(`/v1/users/${encodeURIComponent(deleted.id)}`), 204, 'delete user');
      const idpUser = await createPlainUser(adminClient, { auth_method: 'OAUTH2' });
      const unknown = `${unique('nobody')}@example.com`;
      const before = tlsSmtp.messages.length;
      const answers: ApiResponse[] = [];
      for (const email of [unknown, deleted.email, idpUser.email, deleted.email.toUpperCase()]) {
        answers.push(expectStatus(await anon().post('/auth/password-reset-email', { email }), 204, `reset mail for ${email}`));
      }
      for (const answer of answers) assert.equal(answer.body, '', 'the same empty answer every time');
      // A real user asked last, in mixed case with blanks: only that mail arrives.
      const real = await localUser();
      await requestLink(anon(), `  ${real.email.toUpperCase()} `);
      const mail = await tlsSmtp.nextMail(real.email);
      assert.deepEqual(mail.to, [real.email]);
      const arrived = await tlsSmtp.messagesAfter(before, 300);
      assert.deepEqual(
        arrived.map((m) => m.to.join(',')),
        [real.email],
        'no mail to the unknown, deleted or IDP user',
      );
      expectStatus(await loginRequest(server.url, idpUser.email, 'anything-at-all'), 401, 'the IDP user still has no password');
    });

    it('a request without an email is a validation error', async () => {
      expectStatus(await anon().post('/auth/password-reset-email', {}), 422);
      expectStatus(await anon().post('/auth/password-reset-email', { email: '   ' }), 422);
      expectStatus(await anon().post('/auth/password-reset-email', { email: 42 }), 422);
    });

    it('a reset ends the sessions of that user only', async () => {
      const other = await localUser();
      const otherSession = await login(server.url, other.email, other.password);
      const user = await localUser();
      await requestLink(anon(), user.email);
      const { token } = linkOf(await tlsSmtp.nextMail(user.email));
      expectStatus(await resetWith(anon(), token, `new-${unique('pw')}`), 204);
      expectStatus(await sessionOf(server.url, { jar: otherSession }).get('/v1/user'), 200, 'another user keeps their session');
    });

    it('without SMTP: 503 without Retry-After, and /auth/config says so', async () => {
      const bare = await startExtra({ ...AUTH_ENV });
      const client = anonymous(bare.url);
      const response = expectStatus(await client.post('/auth/password-reset-email', { email: DEFAULT_ADMIN_EMAIL }), 503);
      assert.equal(response.headers.get('retry-after'), null);
      assert.equal(typeof response.body.detail, 'string');
      expectStatus(
        await client.post('/auth/password-reset-email', { email: `${unique('x')}@example.com` }),
        503,
        'unknown email: same answer',
      );
      assert.equal(expectStatus(await client.get('/auth/config'), 200).body.data.smtp_configured, false);
    });

    it('without SERVICE_ROOT_URL the link uses the first trusted origin (plain SMTP, no credentials)', async () => {
      const other = await startExtra({
        ...AUTH_ENV,
        ...smtpEnv(plainSmtp),
        SERVICE_CSRF_TRUSTED_ORIGINS: 'https://first.example, https://second.example:8443',
      });
      expectStatus(await postWithForgedHost(other.url, '/auth/password-reset-email', { email: DEFAULT_ADMIN_EMAIL }), 204);
      const mail = await plainSmtp.nextMail(DEFAULT_ADMIN_EMAIL);
      assert.equal(mail.from, 'noreply@localhost', 'SERVICE_SMTP_MAIL_FROM defaults to noreply@localhost');
      assert.equal(mail.secure, false);
      assert.equal(mail.user, null);
      const { url, token } = linkOf(mail);
      assert.equal(url.origin, 'https://first.example');
      assert.equal(url.pathname, '/reset-password-with-token');
      assert.ok(!mail.raw.includes('evil.example'));
      const password = `from-mail-${unique('pw')}`;
      expectStatus(await resetWith(anonymous(other.url), token, password), 204);
      expectStatus(await loginRequest(other.url, DEFAULT_ADMIN_EMAIL, password), 204, 'the default admin logs in with the new password');
    });

    it('with certificate validation on, a self-signed SMTP certificate stops the mail (and the answer is still 204)', {
      skip: certificate === null && 'openssl is not installed',
    }, async () => {
      const strict = await startExtra({
        ...AUTH_ENV,
        ...smtpEnv(tlsSmtp, { SERVICE_SMTP_USERNAME: SMTP_USER, SERVICE_SMTP_PASSWORD: SMTP_PASSWORD }),
        SERVICE_LOG_LEVEL: 'silent',
      });
      const messages = tlsSmtp.messages.length;
      const connections = tlsSmtp.connections;
      expectStatus(await anonymous(strict.url).post('/auth/password-reset-email', { email: DEFAULT_ADMIN_EMAIL }), 204);
      const deadline = Date.now() + 5_000;
      while (tlsSmtp.connections === connections && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(tlsSmtp.connections > connections, 'the mailer did contact the SMTP server');
      assert.deepEqual(await tlsSmtp.messagesAfter(messages, 500), [], 'no mail was accepted over an unverified connection');
    });
  },
  MAIN_ENV,
);
