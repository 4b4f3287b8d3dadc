/**
 * bench/outage: `sightline serve` on PostgreSQL while the database is stopped and started again.
 *
 *   npm run bench:outage [-- --exporters 16 --spans 100 --before 5 --outage 10 --after 10]
 *
 * Starts a throwaway PostgreSQL cluster (initdb, pg_ctl; the Debian postgresql binaries) and the
 * built server on it as a child process. `exporters` loops each POST OTLP/JSON bodies of `spans`
 * new spans; a 503 is retried with the same body after its Retry-After (at most 1 s, as an
 * exporter's backoff), until it gets a 200 or the run ends. After `before` seconds the cluster
 * is stopped (`pg_ctl stop -m fast`) for `outage` seconds, then started; the load goes on for
 * `after` seconds. Reports: whether the server stayed up, answers by status, seconds from the
 * restart to the first 200, spans acknowledged against spans stored (no acknowledged span may be
 * missing), and the server's peak RSS. Writes the figures to bench/results/outage-<time>.json.
 * See docs/deployment.md ("PostgreSQL outages").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPostgresCluster } from '../../packages/common/src/testing/postgres-cluster.js';
import { freePort, startServerProcess } from '../ingest/server-process.js';
import { countSpans } from '../ingest/postgres.js';
import { buildServer, log, machine, ROOT, round, sourceState } from '../shared.js';

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

const EXPORTERS = option('exporters', 16);
const SPANS = option('spans', 100);
const BEFORE_MS = option('before', 5) * 1000;
const OUTAGE_MS = option('outage', 10) * 1000;
const AFTER_MS = option('after', 10) * 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hex = (bytes: number) => {
  let text = '';
  for (let index = 0; index < bytes; index++)
    text += Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, '0');
  return text;
};

function body(count: number): string {
  const traceId = hex(16);
  const start = BigInt(Date.now()) * 1_000_000n;
  const spans = Array.from({ length: count }, (_, index) => ({
    traceId,
    spanId: hex(8),
    name: `span ${index}`,
    kind: 1,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 1_000_000n),
  }));
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans }] }] });
}

async function main(): Promise<void> {
  buildServer();
  log('starting a throwaway PostgreSQL cluster');
  const cluster = await startPostgresCluster('sightline_outage_bench');
  const workingDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-outage-'));
  const port = await freePort();
  const server = await startServerProcess({
    root: ROOT,
    env: {
      SERVICE_WORKING_DIR: workingDir,
      SERVICE_PORT: String(port),
      SERVICE_GRPC_PORT: String(await freePort()),
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_SQL_DATABASE_URL: cluster.url,
    },
    port,
    logFile: path.join(workingDir, 'server.log'),
    cpuProfileDir: null,
    startTimeoutMs: 60_000,
  });
  const statuses = new Map<string, number>();
  const count = (key: string) => statuses.set(key, (statuses.get(key) ?? 0) + 1);
  let acknowledged = 0;
  let running = true;
  let restartedAt = Number.POSITIVE_INFINITY;
  let firstOkAfterRestart = Number.POSITIVE_INFINITY;
  const sampler = setInterval(() => server.sample(), 100);

  const exporter = async () => {
    while (running) {
      const payload = body(SPANS);
      // The same body until it is acknowledged, as an exporter retries a batch.
      while (running) {
        let retryAfterMs = 1000;
        try {
          const response = await fetch(`${server.url}/v1/traces`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-project-name': 'outage-bench' },
            body: payload,
          });
          await response.arrayBuffer();
          const retryAfter = Number(response.headers.get('retry-after'));
          count(response.status === 503 && !(retryAfter > 0) ? '503 without Retry-After' : String(response.status));
          if (response.status === 200) {
            acknowledged += SPANS;
            if (Date.now() >= restartedAt) firstOkAfterRestart = Math.min(firstOkAfterRestart, Date.now());
            break;
          }
          if (retryAfter > 0) retryAfterMs = Math.min(retryAfter * 1000, 1000);
        } catch {
          count('connection failed');
        }
        await sleep(retryAfterMs);
      }
    }
  };

  log(`${EXPORTERS} exporters of ${SPANS}-span requests; PostgreSQL stops after ${BEFORE_MS / 1000} s for ${OUTAGE_MS / 1000} s`);
  const loops = Array.from({ length: EXPORTERS }, exporter);
  await sleep(BEFORE_MS);
  const stoppingAt = Date.now();
  await cluster.stop();
  log(`PostgreSQL stopped (pg_ctl took ${Date.now() - stoppingAt} ms)`);
  await sleep(OUTAGE_MS);
  await cluster.start();
  restartedAt = Date.now();
  log('PostgreSQL started again');
  await sleep(AFTER_MS);
  running = false;
  await Promise.all(loops);
  clearInterval(sampler);
  const alive = await fetch(`${server.url}/healthz`).then(
    (response) => response.status === 200,
    () => false,
  );
  const stored = await countSpans(cluster.url);
  const exit = await server.stop(15_000);
  cluster.destroy();
  fs.rmSync(workingDir, { recursive: true, force: true });

  const result = {
    benchmark: 'outage',
    at: new Date().toISOString(),
    machine: machine(),
    source: sourceState(),
    options: {
      exporters: EXPORTERS,
      spansPerRequest: SPANS,
      beforeS: BEFORE_MS / 1000,
      outageS: OUTAGE_MS / 1000,
      afterS: AFTER_MS / 1000,
    },
    serverStayedUp: alive,
    serverExit: exit,
    answers: Object.fromEntries([...statuses].sort()),
    recoverySeconds: Number.isFinite(firstOkAfterRestart) ? round((firstOkAfterRestart - restartedAt) / 1000, 2) : null,
    spansAcknowledged: acknowledged,
    spansStored: stored,
    acknowledgedMissing: Math.max(0, acknowledged - stored),
    peakRssMb: round(server.maxRssKb / 1024, 1),
  };
  const resultsDir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const outFile = path.join(resultsDir, `outage-${result.at.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(outFile, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  log(`written to ${path.relative(ROOT, outFile)}`);
  const ok = alive && result.acknowledgedMissing === 0 && [...statuses.keys()].every((key) => key === '200' || key === '503');
  process.exitCode = ok ? 0 : 1;
}

await main();
