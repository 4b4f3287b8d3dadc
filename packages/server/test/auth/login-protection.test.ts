/**
 * Login protection: the per-email lockout after 5 failures, and the per-IP rate limit on /auth/login
 * (counted in the database); password guesses through PATCH /v1/user share both.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect } from '../helpers/server.js';
import {
  AUTH_ENV,
  DEFAULT_ADMIN_EMAIL,
  anonymous,
  createActiveUser,
  expectStatus,
  loginRequest,
  sessionOf,
  setupDefaultAdmin,
  unique,
  type ApiResponse,
  type TestUser,
} from '../helpers/auth.js';

const WRONG = 'definitely-not-the-password';

function assertRetryAfter(response: ApiResponse, maxSeconds: number) {
  const retryAfter = response.headers.get('retry-after');
  assert.match(retryAfter ?? '', /^\d+$/, 'Retry-After is a number of seconds');
  const seconds = Number(retryAfter);
  assert.ok(seconds >= 1 && seconds <= maxSeconds, `Retry-After ${seconds} within 1..${maxSeconds}`);
  assert.equal(typeof response.body.detail, 'string', 'a {detail} body');
}

describeEachDialect(
  'login lockout',
  (server) => {
    let admin: TestUser;
    let first: TestUser;
    let second: TestUser;

    before(async () => {
      const { url } = server();
      admin = await setupDefaultAdmin(url);
      first = await createActiveUser(url, sessionOf(url, admin), 'member');
      second = await createActiveUser(url, sessionOf(url, admin), 'member');
    });

    it('a successful login before the 5th failure resets the count', async () => {
      const { url } = server();
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 4; i++) {
          const failed = expectStatus(await loginRequest(url, first.email, WRONG), 401, `failure ${i + 1} of round ${round + 1}`);
          assert.deepEqual(failed.body, { detail: 'Invalid email and/or password' });
        }
        // 8 failures in all, but never 5 in a row: the right password still opens a session.
        expectStatus(await loginRequest(url, first.email, first.password), 204, `success after round ${round + 1}`);
      }
    });

    it('5 failed logins lock the email: 429 with Retry-After even with the right password; other emails are unaffected', async () => {
      const { url } = server();
      for (let i = 0; i < 5; i++) expectStatus(await loginRequest(url, second.email, WRONG), 401, `failure ${i + 1}`);
      const locked = expectStatus(await loginRequest(url, second.email, second.password), 429, 'right password while locked');
      assertRetryAfter(locked, 300);
      expectStatus(await loginRequest(url, second.email, WRONG), 429, 'wrong password while locked');
      expectStatus(await loginRequest(url, `  ${second.email.toUpperCase()}`, second.password), 429, 'the same email written differently');
      expectStatus(await loginRequest(url, first.email, first.password), 204, 'another user');
      expectStatus(await loginRequest(url, DEFAULT_ADMIN_EMAIL, admin.password), 204, 'the admin');
      // The lockout guards logins only: the locked user's existing session and key keep working.
      expectStatus(await sessionOf(url, second).get('/v1/user'), 200);
    });

    it('20 wrong guesses sent at once get at most 5 password checks: the rest are 429, and then the right password is too', async () => {
      const { url } = server();
      const target = await createActiveUser(url, sessionOf(url, admin), 'member');
      const guesses = await Promise.all(Array.from({ length: 20 }, () => loginRequest(url, target.email, WRONG)));
      const statuses = guesses.map((response) => response.status);
      assert.deepEqual([...new Set(statuses)].sort(), [401, 429], `only 401 and 429: ${statuses.join(' ')}`);
      assert.equal(statuses.filter((status) => status === 401).length, 5, `exactly 5 guesses were checked: ${statuses.join(' ')}`);
      for (const response of guesses.filter((guess) => guess.status === 429)) assertRetryAfter(response, 300);
      expectStatus(await loginRequest(url, target.email, target.password), 429, 'the right password after the parallel guesses');
    });

    it('with SERVICE_DISABLE_RATE_LIMIT=true, 31 logins a minute from one address are not limited', async () => {
      const { url } = server();
      const responses = await Promise.all(Array.from({ length: 31 }, () => loginRequest(url, `${unique('nobody')}@example.com`, WRONG)));
      assert.deepEqual([...new Set(responses.map((response) => response.status))], [401]);
      expectStatus(await loginRequest(url, first.email, first.password), 204);
    });
  },
  AUTH_ENV,
);

describeEachDialect(
  'per-IP rate limit on /auth/login',
  (server) => {
    it('the 31st POST /auth/login within a minute → 429 with Retry-After and a {detail} body', async () => {
      const { url } = server();
      // No email: nothing counts towards a lockout, only towards the per-IP limit. Each request claims
      // another client address: without SERVICE_TRUSTED_PROXIES the header is ignored, so they all count.
      const spoofed = (index: number) => ({ 'x-forwarded-for': `198.51.100.${index}` });
      const first30 = await Promise.all(Array.from({ length: 30 }, (_, index) => anonymous(url).post('/auth/login', {}, spoofed(index))));
      assert.deepEqual([...new Set(first30.map((response) => response.status))], [401], 'the first 30 are answered normally');
      const limited = expectStatus(
        await anonymous(url).post('/auth/login', { email: DEFAULT_ADMIN_EMAIL, password: 'admin' }, spoofed(31)),
        429,
      );
      assertRetryAfter(limited, 60);
      // Other routes are not limited.
      expectStatus(await anonymous(url).get('/auth/config'), 200);
    });
  },
  { SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: AUTH_ENV.SERVICE_SECRET! },
);

describeEachDialect(
  'password guesses through PATCH /v1/user share the login limits',
  (server) => {
    let admin: TestUser;
    before(async () => {
      admin = await setupDefaultAdmin(server().url);
    });
    /** A password change with `current` as the current password, from the client address given (behind the trusted loopback proxy). */
    const guess = (user: TestUser, current: string, client = '192.0.2.1') =>
      sessionOf(server().url, user).patch(
        '/v1/user',
        { password: 'a-brand-new-password', current_password: current },
        { 'x-forwarded-for': client },
      );

    it('a stolen session gets 5 guesses of the password: then 429 with Retry-After, even with the right one, and login is locked too', async () => {
      const { url } = server();
      const victim = await createActiveUser(url, sessionOf(url, admin), 'member');
      for (let i = 0; i < 5; i++) expectStatus(await guess(victim, `${WRONG}-${i}`), 403, `guess ${i + 1}`);
      const locked = expectStatus(await guess(victim, victim.password), 429, 'the right password while locked');
      assert.match(locked.body.detail, /^too many wrong passwords for this account; try again in \d+ seconds$/);
      assertRetryAfter(locked, 300);
      expectStatus(await loginRequest(url, victim.email, victim.password), 429, 'the same limit as login');
      expectStatus(await sessionOf(url, victim).get('/v1/user'), 200, 'the password did not change; the session lives on');
    });

    it('a right password before the 5th wrong one resets the count', async () => {
      const { url } = server();
      const user = await createActiveUser(url, sessionOf(url, admin), 'member');
      for (let i = 0; i < 4; i++) expectStatus(await guess(user, WRONG), 403, `guess ${i + 1}`);
      expectStatus(await guess(user, user.password), 200);
    });

    it('per IP: the 31st request with current_password within a minute → 429; renames are not counted', async () => {
      const { url } = server();
      const user = await createActiveUser(url, sessionOf(url, admin), 'member');
      const client = '198.51.100.7'; // an address of its own: the other tests' guesses do not count here
      for (let i = 0; i < 35; i++) {
        const rename = await sessionOf(url, user).patch('/v1/user', { username: unique('rename') }, { 'x-forwarded-for': client });
        expectStatus(rename, 200, `rename ${i + 1}`);
      }
      const answers = [];
      for (let i = 0; i < 31; i++) answers.push(await guess(user, WRONG, client));
      // 5 wrong guesses, then the account's lock, then the address's limit.
      const kinds = answers.map((answer) =>
        answer.status === 429
          ? /^too many requests; retry in \d+ seconds$/.test(answer.body.detail)
            ? 'address'
            : 'account'
          : answer.status,
      );
      assert.deepEqual(kinds, [...Array(5).fill(403), ...Array(25).fill('account'), 'address']);
      assertRetryAfter(answers[30]!, 60);
    });
  },
  { SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: AUTH_ENV.SERVICE_SECRET!, SERVICE_TRUSTED_PROXIES: 'loopback' },
);
