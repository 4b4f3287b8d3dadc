/** User and key input that PostgreSQL cannot store as sent (NUL, lone surrogates) and explicit nulls. */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect } from '../helpers/server.js';
import { AUTH_ENV, anonymous, expectStatus, sessionOf, setupDefaultAdmin, type TestUser } from '../helpers/auth.js';

describeEachDialect(
  'hostile input on user and key routes',
  (server) => {
    let admin: TestUser;
    before(async () => {
      admin = await setupDefaultAdmin(server().url);
    });

    it('stores NUL and lone surrogates in names as U+FFFD instead of failing', async () => {
      const client = sessionOf(server().url, admin);
      const renamed = expectStatus(await client.patch('/v1/user', { username: 'ad\u0000min \ud800' }), 200);
      assert.equal(renamed.body.data.username, 'ad\uFFFDmin \uFFFD');
      const created = expectStatus(
        await client.post('/v1/users', {
          user: { email: 'nul\u0000@example.com', username: 'n\u0000', role: 'member', auth_method: 'LOCAL' },
        }),
        422,
      );
      assert.match(JSON.stringify(created.body), /email/);
      const key = expectStatus(await client.post('/v1/user/api_keys', { data: { name: 'key\u0000', description: 'd\ud800' } }), 201);
      assert.equal(key.body.data.name, 'key\uFFFD');
      assert.equal(key.body.data.description, 'd\uFFFD');
    });

    it('never answers 500 to NUL characters in login and reset bodies', async () => {
      const login = await anonymous(server().url).post('/auth/login', { email: 'a\u0000@b', password: 'p\u0000assword' });
      assert.equal(login.status, 401);
      const reset = await anonymous(server().url).post('/auth/password-reset', { token: 't\u0000', password: 'long-enough-password' });
      assert.equal(reset.status, 401);
    });

    it('accepts explicit nulls for a key description and expiry', async () => {
      const key = expectStatus(
        await sessionOf(server().url, admin).post('/v1/user/api_keys', { data: { name: 'nulls', description: null, expires_at: null } }),
        201,
      );
      assert.equal(key.body.data.description, null);
      assert.equal(key.body.data.expires_at, null);
    });
  },
  AUTH_ENV,
);
