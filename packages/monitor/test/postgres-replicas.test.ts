/**
 * Several monitoring services started together on one empty PostgreSQL database (replicas, or a
 * restart of all of them after an upgrade): migrations run once, under the advisory lock the
 * others wait on (docs/deployment.md), every service comes up, and each serves the others' data.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadMonitorConfig } from '../src/config.js';
import { migrations } from '../src/db/migrations/index.js';
import { type RunningMonitor, startMonitorServer } from '../src/server.js';
import { fullRecord } from './helpers/bodies.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import { request } from './helpers/server.js';

// PostgreSQL only: a SQLite file belongs to one service.
for (const _ of DIALECTS.filter((dialect) => dialect === 'postgres')) {
  describe('three monitoring services starting together on one PostgreSQL', () => {
    let database: TestDatabase;
    let monitors: RunningMonitor[] = [];

    before(async () => {
      database = await createTestDatabase('postgres');
      const config = loadMonitorConfig({ ...database.env, MONITOR_PORT: '0', MONITOR_LOG_LEVEL: 'silent' });
      const started = await Promise.allSettled([0, 1, 2].map(() => startMonitorServer(config)));
      monitors = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
      assert.deepEqual(
        started.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : [])),
        [],
        'every service starts',
      );
    });
    after(async () => {
      for (const monitor of monitors) await monitor.close().catch(() => {});
      await database?.drop();
    });

    it('each migration is recorded once, and a record logged on one is read on another', async () => {
      const applied = await monitors[0]!.database.db
        .selectFrom('monitor_migration' as never)
        .select('name' as never)
        .execute();
      assert.deepEqual(
        applied.map((row) => (row as { name: string }).name).sort(),
        Object.keys(migrations({ dialect: 'postgres' })).sort(),
      );
      const space = await monitors[0]!.spaces.createSpace('replicas');
      const logged = await request(`${monitors[1]!.url}/v1/log`, {
        method: 'POST',
        headers: { authorization: space.api_key, 'content-type': 'application/json' },
        body: JSON.stringify({ ...fullRecord(space.space_key), prediction_id: 'on-replica-1' }),
      });
      assert.equal(logged.status, 200, logged.text);
      const read = await request(`${monitors[2]!.url}/v1/models`, {
        headers: { authorization: space.api_key, 'space-key': space.space_key },
      });
      assert.equal(read.status, 200, read.text);
      assert.match(read.text, /fraud-model/, 'the model logged through another replica is listed');
    });
  });
}
