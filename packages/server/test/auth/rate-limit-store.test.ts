/**
 * The database-backed store of the per-client limits (docs/auth.md, "Protection against guessing
 * and forgery"): counts survive across connections (replicas), parallel requests never lose an
 * increment, a window restarts once it has passed, and expired buckets are deleted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Database, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createRateLimitsRepository } from '../../src/db/repositories/rate-limits-repository.js';
import { databaseRateLimitStore } from '../../src/http/rate-limit-store.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { unique } from '../helpers/auth.js';

const WINDOW = 60_000;

for (const dialect of DIALECTS) {
  describe(`rate-limit counts in the database [${dialect}]`, () => {
    let database: TestDatabase;
    // Two connections to one database, as two replicas have.
    const opened: Database[] = [];

    before(async () => {
      database = await createTestDatabase(dialect);
      const config = database.url
        ? { dialect: 'postgres' as const, url: database.url }
        : { dialect: 'sqlite' as const, url: `${database.workingDir}/sightline.db` };
      opened.push(openDatabase(config));
      await migrateToLatest(opened[0]!);
      opened.push(openDatabase(config));
    });

    after(async () => {
      for (const handle of opened) await handle.close();
      await database?.drop();
    });

    it('two connections count into one bucket; 40 parallel hits give exactly 1..40; a passed window restarts at 1', async () => {
      const [first, second] = opened.map((handle) => createRateLimitsRepository(handle.db)) as [
        ReturnType<typeof createRateLimitsRepository>,
        ReturnType<typeof createRateLimitsRepository>,
      ];
      const bucket = unique('bucket');
      const start = 1_800_000_000_000;
      const hits = await Promise.all(
        Array.from({ length: 40 }, (_, index) => (index % 2 ? first : second).hit(bucket, start + index, WINDOW)),
      );
      assert.deepEqual(
        hits.map((hit) => hit.hits).sort((x, y) => x - y),
        Array.from({ length: 40 }, (_, index) => index + 1),
        'no increment lost or counted twice',
      );
      assert.ok(
        hits.every((hit) => hit.windowStartedAt >= start && hit.windowStartedAt < start + 40),
        'one window, started by the first hit',
      );
      const windowStartedAt = Math.min(...hits.map((hit) => hit.windowStartedAt));
      assert.deepEqual(
        await first.hit(bucket, windowStartedAt + WINDOW - 1, WINDOW),
        { hits: 41, windowStartedAt },
        'still the same window',
      );
      assert.deepEqual(
        await second.hit(bucket, windowStartedAt + WINDOW, WINDOW),
        { hits: 1, windowStartedAt: windowStartedAt + WINDOW },
        'the window has passed: counting starts again',
      );
      const other = unique('bucket');
      assert.equal((await first.hit(other, start, WINDOW)).hits, 1, 'another bucket counts on its own');
      assert.equal(await first.deleteStartedBefore(windowStartedAt + WINDOW), 1, 'the other bucket, whose window has passed, is deleted');
      assert.equal((await first.hit(other, windowStartedAt + WINDOW, WINDOW)).hits, 1);
      assert.equal((await first.hit(bucket, windowStartedAt + WINDOW + 1, WINDOW)).hits, 2, 'the live bucket was kept');
    });

    it("the store keeps one bucket per route and client, and reports the window's remaining time", async () => {
      const Store = databaseRateLimitStore(createRateLimitsRepository(opened[0]!.db));
      const root = new Store({});
      const route = (url: string) => ({ routeInfo: { method: 'POST', url } }) as unknown as Parameters<typeof root.child>[0];
      const login = root.child(route('/auth/login'));
      const reset = root.child(route('/auth/password-reset'));
      const incr = (store: typeof login, key: string) =>
        new Promise<{ current: number; ttl: number }>((resolve, reject) =>
          store.incr(key, (error, result) => (error ? reject(error) : resolve(result!)), WINDOW, 30),
        );
      const client = unique('203.0.113.9');
      assert.equal((await incr(login, client)).current, 1);
      const second = await incr(login, client);
      assert.equal(second.current, 2, 'the same route and client');
      assert.ok(second.ttl > WINDOW - 5_000 && second.ttl <= WINDOW, `ttl ${second.ttl} is what is left of the minute`);
      assert.equal((await incr(reset, client)).current, 1, 'another route has its own bucket');
      assert.equal((await incr(login, unique('203.0.113.10'))).current, 1, 'another client too');
      const stored = await opened[0]!.db.selectFrom('rate_limits').select('bucket').where('bucket', 'like', `%${client}`).execute();
      assert.deepEqual(stored.map((row) => row.bucket).sort(), [`POST /auth/login ${client}`, `POST /auth/password-reset ${client}`]);
    });
  });
}
