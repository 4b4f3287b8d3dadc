/** Admin REST routes, keys hashed at rest, and the 500 row of the error table. */
import { GroupCommitQueue } from '@sightline/common';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { buildMonitorApp } from '../src/app.js';
import { loadMonitorConfig } from '../src/config.js';
import { openMonitorDatabase } from '../src/db/database.js';
import { migrateMonitorDatabase } from '../src/db/migrate.js';
import { createDataAccess } from '../src/db/repositories/index.js';
import type { RecordRow } from '../src/db/repositories/record-writes.js';
import { MESSAGES } from '@sightline/monitor-sdk/log';
import { RecordReader } from '../src/read/record-reader.js';
import { SpacesService } from '../src/spaces/spaces-service.js';
import { createRecordWritePath } from '../src/store/record-queue.js';
import { fullRecord } from './helpers/bodies.js';
import { createTestDatabase, type TestDatabase } from './helpers/databases.js';
import { describeEachDialect, request, startTestMonitor, type TestMonitor } from './helpers/server.js';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describeEachDialect(
  'admin REST routes',
  (current) => {
    const admin = (t: TestMonitor, method: string, path: string, body?: unknown, token = ADMIN_TOKEN) =>
      request(`${t.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });

    it('refuses requests without the operator token', async () => {
      const t = current();
      const variants: Record<string, string>[] = [
        {},
        { authorization: 'Bearer wrong-token-wrong-token-wrong' },
        { authorization: ADMIN_TOKEN },
        { authorization: `Bearer ${ADMIN_TOKEN}x` },
      ];
      for (const headers of variants) {
        const response = await request(`${t.url}/v1/admin/spaces`, { headers });
        assert.equal(response.status, 401, JSON.stringify(headers));
        assert.match(response.json.message, /admin token/);
      }
    });

    it('creates a space whose keys work at once, lists it, and stores only hashes', async () => {
      const t = current();
      const created = await admin(t, 'POST', '/v1/admin/spaces', { name: '  Fraud team  ' });
      assert.equal(created.status, 201, created.text);
      const { space_id: spaceId, name, space_key: spaceKey, api_key: apiKey } = created.json.data;
      assert.equal(name, 'Fraud team');
      assert.match(apiKey, /^slm-ak-[A-Za-z0-9_-]{43}$/);
      assert.match(spaceKey, /^slm-sk-[A-Za-z0-9_-]{43}$/);
      const logged = await t.log(fullRecord(spaceKey), { authorization: apiKey });
      assert.equal(logged.status, 200, logged.text);

      const listed = await admin(t, 'GET', '/v1/admin/spaces');
      const entry = listed.json.data.find((space: any) => space.space_id === spaceId);
      assert.deepEqual(Object.keys(entry).sort(), ['active_api_keys', 'created_at', 'name', 'space_id']);
      assert.equal(entry.active_api_keys, 1);
      assert.ok(!listed.text.includes(apiKey) && !listed.text.includes(spaceKey));

      const db = t.monitor.database.db;
      const space = await db.selectFrom('monitor_spaces').selectAll().where('id', '=', Number(spaceId)).executeTakeFirstOrThrow();
      assert.equal(space.space_key_hash, sha256(spaceKey));
      const keys = await db.selectFrom('monitor_api_keys').selectAll().where('space_id', '=', Number(spaceId)).execute();
      assert.deepEqual(
        keys.map((key) => key.key_hash),
        [sha256(apiKey)],
      );
    });

    it('rotates the API key (and on request the space key); the old ones stop working', async () => {
      const t = current();
      const {
        space_id: spaceId,
        space_key: spaceKey,
        api_key: apiKey,
      } = (await admin(t, 'POST', '/v1/admin/spaces', { name: 'rotating' })).json.data;
      const rotated = await admin(t, 'POST', `/v1/admin/spaces/${spaceId}/rotate-key`);
      assert.equal(rotated.status, 200, rotated.text);
      assert.deepEqual(Object.keys(rotated.json.data).sort(), ['api_key', 'name', 'space_id']);
      const newKey = rotated.json.data.api_key;
      assert.deepEqual((await t.log(fullRecord(spaceKey), { authorization: apiKey })).json, { message: MESSAGES.invalidApiKey });
      assert.equal((await t.log(fullRecord(spaceKey), { authorization: newKey })).status, 200);

      const both = await admin(t, 'POST', `/v1/admin/spaces/${spaceId}/rotate-key`, { space_key: true });
      const { api_key: thirdKey, space_key: newSpaceKey } = both.json.data;
      assert.ok(newSpaceKey);
      assert.deepEqual((await t.log(fullRecord(spaceKey), { authorization: thirdKey })).json, { message: MESSAGES.invalidSpaceKey });
      assert.equal((await t.log(fullRecord(newSpaceKey), { authorization: thirdKey })).status, 200);
    });

    it('answers 400 for a bad name or body and 404 for an unknown space', async () => {
      const t = current();
      for (const body of [{}, { name: '' }, { name: 42 }, { name: 'x'.repeat(201) }]) {
        const response = await admin(t, 'POST', '/v1/admin/spaces', body);
        assert.equal(response.status, 400, JSON.stringify(body));
      }
      const notJson = await request(`${t.url}/v1/admin/spaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        body: '{',
      });
      assert.deepEqual([notJson.status, notJson.json], [400, { message: MESSAGES.invalidJson }]);
      assert.equal((await admin(t, 'POST', '/v1/admin/spaces/999999/rotate-key')).status, 404);
      assert.equal((await admin(t, 'POST', '/v1/admin/spaces/abc/rotate-key')).status, 404);
      assert.equal((await admin(t, 'POST', '/v1/admin/spaces/1/rotate-key', { space_key: 'yes' })).status, 400);
    });
  },
  { MONITOR_ADMIN_TOKEN: ADMIN_TOKEN },
);

describe('service without MONITOR_ADMIN_TOKEN', () => {
  let t: TestMonitor;
  before(async () => {
    t = await startTestMonitor('sqlite');
  });
  after(async () => t.close());

  it('does not serve the admin routes at all (404)', async () => {
    const response = await request(`${t.url}/v1/admin/spaces`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(response.status, 404);
    assert.equal((await request(`${t.url}/healthz`, {})).text, 'OK');
  });

  it('refuses a short MONITOR_ADMIN_TOKEN at start-up, naming the variable', () => {
    assert.throws(
      () => loadMonitorConfig({ MONITOR_ADMIN_TOKEN: 'short' }),
      /^ConfigError: MONITOR_ADMIN_TOKEN: must be at least 16 characters long, got 5$/,
    );
  });
});

describe('storage failures and unexpected errors', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('sqlite');
  });
  after(async () => database.drop());

  it('a failed write is 503 with Retry-After; an unexpected error is 500 Internal service error, without details', async () => {
    const config = loadMonitorConfig({ ...database.env, MONITOR_LOG_LEVEL: 'silent' });
    const monitorDb = openMonitorDatabase(config.database);
    await migrateMonitorDatabase(monitorDb);
    const { repositories, withTransaction } = createDataAccess(monitorDb);
    const spaces = new SpacesService(repositories.spaces, withTransaction);
    const space = await spaces.createSpace('failing');
    const { queue } = createRecordWritePath(config.database, { maxQueuedRecords: 10, maxBatchRecords: 10 });
    const failing = new GroupCommitQueue<RecordRow>(
      { write: async () => Promise.reject(new Error('disk on fire')) },
      {
        maxQueuedWeight: 10,
        maxBatchWeight: 10,
        messages: { full: 'full', failed: 'the service cannot store records right now; retry later', closing: 'closing' },
      },
    );
    const reader = new RecordReader(repositories.records);
    reader.listModels = async () => {
      throw new Error('a bug with secret details');
    };
    const app = await buildMonitorApp({ config, spaces, queue: failing, reader, logger: pino({ level: 'silent' }) });
    try {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/log',
        headers: { authorization: space.api_key },
        payload: JSON.stringify(fullRecord(space.space_key)),
      });
      assert.deepEqual(
        [response.statusCode, response.json()],
        [503, { message: 'the service cannot store records right now; retry later' }],
      );
      assert.equal(response.headers['retry-after'], '5');
      assert.ok(!response.body.includes('disk on fire'));
      const bug = await app.inject({
        method: 'GET',
        url: '/v1/models',
        headers: { authorization: space.api_key, 'space-key': space.space_key },
      });
      assert.deepEqual([bug.statusCode, bug.json()], [500, { message: 'Internal service error, contact the operator' }]);
      assert.ok(!bug.body.includes('secret details'));
      const invalid = await app.inject({
        method: 'POST',
        url: '/v1/log',
        headers: { authorization: space.api_key },
        payload: '{"space_key": 1}',
      });
      assert.equal(invalid.statusCode, 403, 'bad input is never a 500');
    } finally {
      await app.close();
      await queue.close();
      await monitorDb.close();
    }
  });
});
