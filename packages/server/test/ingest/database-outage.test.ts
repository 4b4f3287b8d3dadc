/**
 * PostgreSQL going away under OTLP/HTTP ingest: exports answer 503 with Retry-After (which OTLP
 * exporters retry) while the database is unreachable, the process stays up, and ingest works
 * again by itself once the database is back. The database is cut with a TCP proxy (connections
 * reset), then a cluster of the test's own is stopped and started with pg_ctl (connections
 * terminated by the server, then refused, then "starting up").
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type PostgresCluster, proxyDatabaseUrl, startPostgresCluster, type TcpProxy } from '@sightline/common/testing';
import { loadConfig } from '../../src/config.js';
import { type RunningServer, startServer } from '../../src/server.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { jsonExport, newSpanId } from '../helpers/otlp-bodies.js';

// PostgreSQL only (an outage of an embedded SQLite file has no meaning); runs unless SIGHTLINE_TEST_DIALECTS leaves it out.
for (const _ of DIALECTS.filter((dialect) => dialect === 'postgres')) {
  describe('OTLP ingest while PostgreSQL is away', () => {
    let database: TestDatabase;
    let proxy: TcpProxy;
    let server: RunningServer;

    before(async () => {
      database = await createTestDatabase('postgres');
      const proxied = await proxyDatabaseUrl(database.url!);
      proxy = proxied.proxy;
      server = await startServer(
        loadConfig({
          SERVICE_WORKING_DIR: database.workingDir,
          SERVICE_PORT: '0',
          SERVICE_GRPC_PORT: '0',
          SERVICE_LOG_LEVEL: 'silent',
          SERVICE_SQL_DATABASE_URL: proxied.url,
        }),
      );
    });
    after(async () => {
      await server?.close().catch(() => {});
      await proxy?.close();
      await database?.drop();
    });

    const exportSpan = (spanId: string) =>
      fetch(`${server.url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-project-name': 'outage' },
        body: JSON.stringify(jsonExport([{ spanId, name: spanId }])),
      });

    it('answers 503 with Retry-After while the database is cut, then 200 again without a restart', async () => {
      const before = newSpanId();
      assert.equal((await exportSpan(before)).status, 200);

      await proxy.cut();
      for (const spanId of [newSpanId(), newSpanId()]) {
        const response = await exportSpan(spanId);
        assert.equal(response.status, 503, `expected 503 while the database is away, got ${response.status}: ${await response.text()}`);
        assert.ok(Number(response.headers.get('retry-after')) > 0, 'a 503 carries Retry-After');
      }
      const read = await fetch(`${server.url}/v1/projects`);
      assert.equal(read.status, 503, 'a query while the database is away is 503 too');

      await proxy.restore();
      const later = newSpanId();
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
        status = (await exportSpan(later)).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(status, 200, 'ingest recovers by itself once the database is back');
      const stored = await server.database.db.selectFrom('spans').select('span_id').orderBy('span_id').execute();
      assert.deepEqual(
        stored.map((row) => row.span_id).sort(),
        [before, later].sort(),
        'acknowledged spans are stored, refused ones are not',
      );
    });

    it('a cut in the middle of sustained ingest: no crash, only 200s and 503s, every acknowledged span stored', async () => {
      const acknowledged: string[] = [];
      const statuses = new Set<number>();
      let running = true;
      const loop = async () => {
        while (running) {
          const spanId = newSpanId();
          const response = await exportSpan(spanId);
          statuses.add(response.status);
          if (response.status === 200) acknowledged.push(spanId);
          else await response.arrayBuffer();
        }
      };
      const loops = Array.from({ length: 8 }, loop);
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
      assert.ok(statuses.has(200), 'ingest worked around the cut');
      assert.equal((await fetch(`${server.url.replace(/\/$/, '')}/healthz`)).status, 200, 'the server is still up');
      const stored = new Set(
        (await server.database.db.selectFrom('spans').select('span_id').where('span_id', 'in', acknowledged).execute()).map(
          (row) => row.span_id,
        ),
      );
      assert.deepEqual(
        acknowledged.filter((spanId) => !stored.has(spanId)),
        [],
        'every acknowledged span is stored',
      );
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const _ of DIALECTS.filter((dialect) => dialect === 'postgres')) {
  describe('OTLP ingest while a real PostgreSQL is stopped and started again (pg_ctl)', () => {
    let cluster: PostgresCluster;
    let workingDir: string;
    let server: RunningServer;

    before(async () => {
      cluster = await startPostgresCluster('sightline_outage');
      workingDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-outage-'));
      server = await startServer(
        loadConfig({
          SERVICE_WORKING_DIR: workingDir,
          SERVICE_PORT: '0',
          SERVICE_GRPC_PORT: '0',
          SERVICE_LOG_LEVEL: 'silent',
          SERVICE_SQL_DATABASE_URL: cluster.url,
        }),
      );
    });
    after(async () => {
      await server?.close().catch(() => {});
      cluster?.destroy();
      if (workingDir) fs.rmSync(workingDir, { recursive: true, force: true });
    });

    it('8 exporters through a 2.5 s stop: the server stays up, only 200s and 503s with Retry-After, back within seconds, nothing acknowledged lost', async (t) => {
      const acknowledged: string[] = [];
      const unexpected: string[] = [];
      let refused = 0;
      let restartedAt = Number.POSITIVE_INFINITY;
      let firstOkAfterRestart = Number.POSITIVE_INFINITY;
      let running = true;
      const loop = async () => {
        while (running) {
          const spans = Array.from({ length: 10 }, () => ({ spanId: newSpanId() }));
          const response = await fetch(`${server.url}/v1/traces`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-project-name': 'pg-stop' },
            body: JSON.stringify(jsonExport(spans)),
          });
          const text = await response.text();
          if (response.status === 200) {
            acknowledged.push(...spans.map((span) => span.spanId));
            if (Date.now() >= restartedAt) firstOkAfterRestart = Math.min(firstOkAfterRestart, Date.now());
          } else if (response.status === 503 && Number(response.headers.get('retry-after')) > 0) {
            refused++;
            // As an exporter backs off; a hot loop of refusals would only burn the CI's CPU.
            await sleep(50);
          } else {
            unexpected.push(`${response.status} retry-after=${response.headers.get('retry-after')}: ${text.slice(0, 200)}`);
          }
        }
      };
      const loops = Array.from({ length: 8 }, loop);
      await sleep(500);
      await cluster.stop();
      await sleep(2500);
      await cluster.start();
      restartedAt = Date.now();
      for (let waited = 0; waited < 10_000 && firstOkAfterRestart === Number.POSITIVE_INFINITY; waited += 50) await sleep(50);
      await sleep(300);
      running = false;
      await Promise.all(loops);

      assert.deepEqual(unexpected, [], 'only 200, or 503 with Retry-After');
      assert.ok(refused > 0, 'the outage was seen as 503s');
      const recovery = firstOkAfterRestart - restartedAt;
      t.diagnostic(
        `${acknowledged.length} spans acknowledged, ${refused} requests refused with 503, first 200 ${recovery} ms after the restart`,
      );
      assert.ok(recovery < 5000, `ingest is back within 5 s of the restart (took ${recovery} ms)`);
      assert.equal((await fetch(`${server.url.replace(/\/$/, '')}/healthz`)).status, 200, 'the server is still up');
      const stored = new Set<string>();
      for (let start = 0; start < acknowledged.length; start += 5000) {
        const chunk = acknowledged.slice(start, start + 5000);
        for (const row of await server.database.db.selectFrom('spans').select('span_id').where('span_id', 'in', chunk).execute()) {
          stored.add(row.span_id);
        }
      }
      assert.deepEqual(
        acknowledged.filter((spanId) => !stored.has(spanId)),
        [],
        `every acknowledged span is stored (${acknowledged.length} acknowledged)`,
      );
    });
  });
}
