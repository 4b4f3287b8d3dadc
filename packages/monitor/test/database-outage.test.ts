/**
 * PostgreSQL going away under the log API: the service answers 503 with Retry-After (never a
 * 500, never a crash) while the database is unreachable, and 200 again by itself once it is back.
 * The database is cut with a TCP proxy between the service and a real PostgreSQL (connections
 * reset), then a cluster of the test's own is stopped and started with pg_ctl (connections
 * terminated by the server, then refused, then "starting up").
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type PostgresCluster, proxyDatabaseUrl, startPostgresCluster, type TcpProxy } from '@sightline/common/testing';
import { loadMonitorConfig } from '../src/config.js';
import { type RunningMonitor, startMonitorServer } from '../src/server.js';
import { fullRecord } from './helpers/bodies.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import { request } from './helpers/server.js';

// PostgreSQL only (an outage of an embedded SQLite file has no meaning); runs unless SIGHTLINE_TEST_DIALECTS leaves it out.
for (const _ of DIALECTS.filter((dialect) => dialect === 'postgres')) {
  describe('log API while PostgreSQL is away', () => {
    let database: TestDatabase;
    let proxy: TcpProxy;
    let monitor: RunningMonitor;
    let space: { api_key: string; space_key: string };

    before(async () => {
      database = await createTestDatabase('postgres');
      const proxied = await proxyDatabaseUrl(database.url!);
      proxy = proxied.proxy;
      const config = loadMonitorConfig({
        ...database.env,
        MONITOR_DATABASE_URL: proxied.url,
        MONITOR_PORT: '0',
        MONITOR_LOG_LEVEL: 'silent',
      });
      monitor = await startMonitorServer(config);
      space = await monitor.spaces.createSpace('outage');
    });
    after(async () => {
      await monitor?.close().catch(() => {});
      await proxy?.close();
      await database?.drop();
    });

    const log = (predictionId: string) =>
      request(`${monitor.url}/v1/log`, {
        method: 'POST',
        headers: { authorization: space.api_key, 'content-type': 'application/json' },
        body: JSON.stringify({ ...fullRecord(space.space_key), prediction_id: predictionId }),
      });

    it('answers 503 with Retry-After while the database is cut, then 200 again without a restart', async () => {
      assert.equal((await log('before')).status, 200);

      await proxy.cut();
      const during = await Promise.all(['cut-1', 'cut-2', 'cut-3'].map(log));
      for (const response of during) {
        assert.equal(response.status, 503, `expected 503 while the database is away, got ${response.status}: ${response.text}`);
        assert.ok(Number(response.headers.get('retry-after')) > 0, 'a 503 carries Retry-After');
        assert.equal(typeof response.json?.message, 'string');
      }
      const read = await request(`${monitor.url}/v1/models`, { headers: { authorization: space.api_key, 'space-key': space.space_key } });
      assert.equal(read.status, 503, `a read while the database is away is 503 too, got ${read.status}: ${read.text}`);

      await proxy.restore();
      let after: Awaited<ReturnType<typeof log>> | undefined;
      for (let attempt = 0; attempt < 50; attempt++) {
        after = await log('after');
        if (after.status === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(after?.status, 200, 'the service recovers by itself once the database is back');

      const stored = await monitor.database.db.selectFrom('monitor_records').select('prediction_id').orderBy('prediction_id').execute();
      assert.deepEqual(
        stored.map((row) => row.prediction_id),
        ['after', 'before'],
        'every acknowledged record is stored, and nothing refused is',
      );
    });

    it('a cut in the middle of sustained logging: no crash, only 200s and 503s, every acknowledged record stored', async () => {
      const acknowledged: string[] = [];
      const statuses = new Set<number>();
      let running = true;
      let next = 0;
      const loop = async () => {
        while (running) {
          const predictionId = `sustained-${next++}`;
          const response = await log(predictionId);
          statuses.add(response.status);
          if (response.status === 200) acknowledged.push(predictionId);
        }
      };
      const loops = Array.from({ length: 16 }, loop);
      await new Promise((resolve) => setTimeout(resolve, 400));
      await proxy.cut();
      await new Promise((resolve) => setTimeout(resolve, 600));
      await proxy.restore();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      running = false;
      await Promise.all(loops);
      assert.deepEqual(
        [...statuses].filter((status) => status !== 200 && status !== 503),
        [],
        `only 200 and 503: ${[...statuses]}`,
      );
      assert.ok(statuses.has(503), 'the cut was seen');
      assert.equal((await request(`${monitor.url}/healthz`, {})).status, 200, 'the service is still up');
      const stored = new Set(
        (
          await monitor.database.db
            .selectFrom('monitor_records')
            .select('prediction_id')
            .where('prediction_id', 'like', 'sustained-%')
            .execute()
        ).map((row) => row.prediction_id),
      );
      assert.deepEqual(
        acknowledged.filter((id) => !stored.has(id)),
        [],
        'every acknowledged record is stored',
      );
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const _ of DIALECTS.filter((dialect) => dialect === 'postgres')) {
  describe('log API while a real PostgreSQL is stopped and started again (pg_ctl)', () => {
    let cluster: PostgresCluster;
    let workingDir: string;
    let monitor: RunningMonitor;
    let space: { api_key: string; space_key: string };
    /** A space first used during the outage: its key is in no cache, so each request looks it up. */
    let unseen: { api_key: string; space_key: string };

    before(async () => {
      cluster = await startPostgresCluster('sightline_monitor_outage');
      workingDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-monitor-outage-'));
      monitor = await startMonitorServer(
        loadMonitorConfig({
          SERVICE_WORKING_DIR: workingDir,
          // Over the Unix socket (the server's test uses TCP): a stopped server's socket file is gone.
          MONITOR_DATABASE_URL: cluster.socketUrl,
          MONITOR_PORT: '0',
          MONITOR_LOG_LEVEL: 'silent',
        }),
      );
      space = await monitor.spaces.createSpace('pg-stop');
      unseen = await monitor.spaces.createSpace('pg-stop-unseen');
    });
    after(async () => {
      await monitor?.close().catch(() => {});
      cluster?.destroy();
      if (workingDir) fs.rmSync(workingDir, { recursive: true, force: true });
    });

    it('16 clients through a 2.5 s stop: the service stays up, only 200s and 503s with Retry-After, back within seconds, nothing acknowledged lost', async (t) => {
      // Half the clients start during the outage with a key no cache holds (as any client does once
      // the key cache's 5 s are over): their key lookups meet the stopped database too.
      const acknowledged: string[] = [];
      const unexpected: string[] = [];
      let refused = 0;
      let restartedAt = Number.POSITIVE_INFINITY;
      let firstOkAfterRestart = Number.POSITIVE_INFINITY;
      let running = true;
      let next = 0;
      const loop = async (credentials: { api_key: string; space_key: string }) => {
        while (running) {
          const predictionId = `stop-${next++}`;
          const response = await request(`${monitor.url}/v1/log`, {
            method: 'POST',
            headers: { authorization: credentials.api_key, 'content-type': 'application/json' },
            body: JSON.stringify({ ...fullRecord(credentials.space_key), prediction_id: predictionId }),
          });
          if (response.status === 200) {
            acknowledged.push(predictionId);
            if (Date.now() >= restartedAt) firstOkAfterRestart = Math.min(firstOkAfterRestart, Date.now());
          } else if (
            response.status === 503 &&
            Number(response.headers.get('retry-after')) > 0 &&
            typeof response.json?.message === 'string'
          ) {
            refused++;
            // As a client backs off; a hot loop of refusals would only burn the CI's CPU.
            await sleep(50);
          } else {
            unexpected.push(`${response.status} retry-after=${response.headers.get('retry-after')}: ${response.text.slice(0, 200)}`);
          }
        }
      };
      const loops = Array.from({ length: 8 }, () => loop(space));
      await sleep(500);
      await cluster.stop();
      loops.push(...Array.from({ length: 8 }, () => loop(unseen)));
      await sleep(2500);
      await cluster.start();
      restartedAt = Date.now();
      for (let waited = 0; waited < 10_000 && firstOkAfterRestart === Number.POSITIVE_INFINITY; waited += 50) await sleep(50);
      await sleep(300);
      running = false;
      await Promise.all(loops);

      assert.deepEqual(unexpected, [], 'only 200, or 503 with Retry-After and a message');
      assert.ok(refused > 0, 'the outage was seen as 503s');
      const recovery = firstOkAfterRestart - restartedAt;
      t.diagnostic(
        `${acknowledged.length} records acknowledged, ${refused} requests refused with 503, first 200 ${recovery} ms after the restart`,
      );
      assert.ok(recovery < 5000, `the service is back within 5 s of the restart (took ${recovery} ms)`);
      assert.equal((await request(`${monitor.url}/healthz`, {})).status, 200, 'the service is still up');
      const stored = new Set(
        (
          await monitor.database.db.selectFrom('monitor_records').select('prediction_id').where('prediction_id', 'like', 'stop-%').execute()
        ).map((row) => row.prediction_id),
      );
      assert.deepEqual(
        acknowledged.filter((id) => !stored.has(id)),
        [],
        `every acknowledged record is stored (${acknowledged.length} acknowledged)`,
      );
    });
  });
}
