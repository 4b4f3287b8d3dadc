/**
 * bench:limits (docs/performance.md, "Limits"): the requests that could take a server down, at
 * full size, each while /healthz is polled every 50 ms, on a built server with authentication on.
 *
 *   npm run build && npm run bench:limits [-- --postgres URL] [--cases trace,project]
 *       [--trace-spans 100000] [--project-spans 10000000] [--project-seconds 600]
 *
 * Cases:
 * - trace: a trace of `--trace-spans` spans, sent through OTLP, then opened
 *   (GET /v1/projects/{p}/traces/{t});
 * - project: a project of `--project-spans` spans, loaded into the database before the server
 *   starts, then deleted (DELETE /v1/projects/{p}); the case lasts until the retention job has
 *   deleted every span, or `--project-seconds`.
 *
 * Target (the issue "No request takes the server down"): during every case the server's peak RSS
 * stays under 512 MB, the worst /healthz answer under 250 ms, nothing answers 500, and the process
 * never exits. The figures are absolute: the floor of each is what an idle server shows (its RSS
 * and /healthz latency are printed first).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import SQLite from 'better-sqlite3';
import { createScratchDatabase } from '../ingest/postgres.js';
import { freePort, startServerProcess, type ServerProcess } from '../ingest/server-process.js';
import { BENCH_SECRET, systemKey } from '../ingest/system-key.js';
import { MAIN_PROJECT } from '../query/dataset.js';
import { loadCorpus, type Target } from '../query/load.js';
import { log, ROOT, round } from '../shared.js';

const TARGET_RSS_MB = 512;
const TARGET_HEALTH_MS = 250;
const POLL_MS = 50;

interface Options {
  postgres: string | null;
  cases: string[];
  traceSpans: number;
  projectSpans: number;
  projectSeconds: number;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      postgres: { type: 'string' },
      cases: { type: 'string' },
      'trace-spans': { type: 'string' },
      'project-spans': { type: 'string' },
      'project-seconds': { type: 'string' },
    },
  });
  return {
    postgres: values.postgres ?? null,
    cases: (values.cases ?? 'trace,project').split(','),
    traceSpans: Number(values['trace-spans'] ?? 100_000),
    projectSpans: Number(values['project-spans'] ?? 10_000_000),
    projectSeconds: Number(values['project-seconds'] ?? 600),
  };
}

/** What the server did while a case ran. */
interface Watched<T> {
  result: T;
  seconds: number;
  /** Highest VmRSS of the server process sampled during the case, every 50 ms (MB). */
  peakRssMb: number;
  worstHealthMs: number;
  p99HealthMs: number;
  healthPolls: number;
  /** /healthz answers other than 200 (a timeout counts as status 0). */
  healthFailures: number;
  alive: boolean;
}

/** Runs `work` while /healthz is polled every 50 ms (each poll waits for the last) and the server's memory is sampled. */
async function watch<T>(server: ServerProcess, work: () => Promise<T>): Promise<Watched<T>> {
  const latencies: number[] = [];
  let failures = 0;
  let peakKb = 0;
  let polling = true;
  const sample = () => {
    const status = server.sample();
    if (status) peakKb = Math.max(peakKb, status.rssKb);
    return status;
  };
  const poller = (async () => {
    while (polling) {
      const started = performance.now();
      try {
        const response = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(30_000) });
        await response.text();
        if (response.status !== 200) failures++;
      } catch {
        failures++;
      }
      latencies.push(performance.now() - started);
      sample();
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  polling = false;
  await poller;
  const status = sample();
  latencies.sort((a, b) => a - b);
  return {
    result,
    seconds: round(seconds, 1),
    peakRssMb: round(peakKb / 1024, 0),
    worstHealthMs: round(latencies.at(-1) ?? 0, 1),
    p99HealthMs: round(latencies[Math.floor(latencies.length * 0.99)] ?? 0, 1),
    healthPolls: latencies.length,
    healthFailures: failures,
    alive: status !== null,
  };
}

/** An OTLP/JSON export of `count` spans of one trace, children of `rootId` (the first export carries the root). */
function traceExport(traceId: string, rootId: string, first: number, count: number) {
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  const startNs = BigInt(Date.now() - 60_000) * 1_000_000n;
  const spans = Array.from({ length: count }, (_, index) => {
    const n = first + index;
    const start = startNs + BigInt(n) * 1000n;
    return {
      traceId,
      spanId: n === 0 ? rootId : hex(n + 1, 16),
      parentSpanId: n === 0 ? '' : rootId,
      name: n === 0 ? 'agent run' : 'llm call',
      kind: 1,
      startTimeUnixNano: start.toString(),
      endTimeUnixNano: (start + 500_000n).toString(),
      attributes: [
        { key: 'openinference.span.kind', value: { stringValue: n === 0 ? 'AGENT' : 'LLM' } },
        { key: 'llm.model_name', value: { stringValue: 'gpt-4o-mini' } },
        { key: 'llm.token_count.prompt', value: { intValue: 120 } },
        { key: 'llm.token_count.completion', value: { intValue: 40 } },
        { key: 'input.value', value: { stringValue: `question ${n}: what does the contract say about renewal pricing?` } },
        { key: 'output.value', value: { stringValue: `answer ${n}: renewal is at list price less the negotiated discount.` } },
      ],
      status: { code: 0 },
    };
  });
  return {
    resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'limits' } }] }, scopeSpans: [{ spans }] }],
  };
}

/** The server started on `target`, with authentication on, and a system key. */
async function startServer(target: Target, workDir: string): Promise<{ server: ServerProcess; key: string }> {
  const port = await freePort();
  let grpcPort = await freePort();
  while (grpcPort === port) grpcPort = await freePort();
  const serverDir = path.join(workDir, 'server');
  fs.mkdirSync(serverDir, { recursive: true });
  const server = await startServerProcess({
    root: ROOT,
    port,
    logFile: path.join(workDir, 'server.log'),
    cpuProfileDir: null,
    startTimeoutMs: 300_000,
    env: {
      SERVICE_HOST: '127.0.0.1',
      SERVICE_PORT: String(port),
      SERVICE_GRPC_PORT: String(grpcPort),
      SERVICE_WORKING_DIR: serverDir,
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_ENABLE_AUTH: 'true',
      SERVICE_SECRET: BENCH_SECRET,
      SERVICE_DISABLE_RATE_LIMIT: 'true',
      SERVICE_SQL_DATABASE_URL: target.dialect === 'sqlite' ? `sqlite:${target.file}` : target.url,
    },
  });
  return { server, key: await systemKey(server.url) };
}

/** A fresh database: a SQLite file under `workDir`, or a scratch PostgreSQL database. */
async function freshTarget(options: Options, workDir: string, name: string): Promise<{ target: Target; drop(): Promise<void> }> {
  if (options.postgres === null) {
    const file = path.join(workDir, name, 'sightline.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    return { target: { dialect: 'sqlite', file }, drop: async () => {} };
  }
  const scratch = await createScratchDatabase(options.postgres, `limits_${name}`);
  return { target: { dialect: 'postgres', url: scratch.url }, drop: () => scratch.drop() };
}

/** Spans left in the database, by a connection of the benchmark's own. */
async function countSpans(target: Target): Promise<number> {
  if (target.dialect === 'sqlite') {
    const db = new SQLite(target.file, { readonly: true });
    try {
      return Number((db.prepare('SELECT count(*) AS n FROM spans').get() as { n: number }).n);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    return Number((await client.query('SELECT count(*) AS n FROM spans')).rows[0].n);
  } finally {
    await client.end();
  }
}

interface CaseReport extends Omit<Watched<unknown>, 'result'> {
  name: string;
  detail: string;
  status: number;
  met: boolean;
}

function report(name: string, watched: Watched<{ status: number; detail: string }>): CaseReport {
  const { result, ...figures } = watched;
  const met =
    figures.peakRssMb < TARGET_RSS_MB &&
    figures.worstHealthMs < TARGET_HEALTH_MS &&
    figures.alive &&
    figures.healthFailures === 0 &&
    result.status < 500;
  log(
    `${name}: ${result.detail}; answered ${result.status}; peak RSS ${figures.peakRssMb} MB; /healthz worst ${figures.worstHealthMs} ms, ` +
      `p99 ${figures.p99HealthMs} ms over ${figures.healthPolls} polls, ${figures.healthFailures} failed; ${met ? 'MET' : 'NOT MET'}`,
  );
  return { name, ...figures, status: result.status, detail: result.detail, met };
}

async function traceCase(options: Options, workDir: string): Promise<CaseReport> {
  const { target, drop } = await freshTarget(options, workDir, 'trace');
  const { server, key } = await startServer(target, workDir);
  try {
    const traceId = 'a1'.repeat(16);
    const rootId = 'b2'.repeat(8);
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
    log(`sending a trace of ${options.traceSpans} spans`);
    for (let sent = 0; sent < options.traceSpans; sent += 5000) {
      const count = Math.min(5000, options.traceSpans - sent);
      const response = await fetch(`${server.url}/v1/traces`, {
        method: 'POST',
        headers,
        body: JSON.stringify(traceExport(traceId, rootId, sent, count)),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`ingest answered ${response.status}`);
    }
    const idle = await watch(server, () => new Promise((resolve) => setTimeout(resolve, 2000)));
    log(`idle server: RSS peak so far ${idle.peakRssMb} MB, /healthz worst ${idle.worstHealthMs} ms`);
    const watched = await watch(server, async () => {
      const started = performance.now();
      const response = await fetch(`${server.url}/v1/projects/limits/traces/${traceId}`, { headers });
      const body = await response.text();
      const ms = performance.now() - started;
      let spans = 0;
      try {
        spans = (JSON.parse(body) as { data: { spans: unknown[] } }).data.spans.length;
      } catch {}
      return {
        status: response.status,
        detail: `opened in ${round(ms, 0)} ms, ${round(body.length / 2 ** 20, 1)} MiB, ${spans} spans in full`,
      };
    });
    return report(`a ${options.traceSpans}-span trace opened`, watched);
  } finally {
    await server.stop(30_000);
    await drop();
  }
}

async function projectCase(options: Options, workDir: string): Promise<CaseReport> {
  const { target, drop } = await freshTarget(options, workDir, 'project');
  log(`loading ${options.projectSpans} spans`);
  const loaded = await loadCorpus(
    target,
    { spans: options.projectSpans, batchSpans: 20_000, days: 7, endMs: Date.now(), bigTraceShare: 1 / 800, seed: 7 },
    log,
  );
  const projectSpans = loaded.stats.byProject[MAIN_PROJECT] ?? 0;
  log(`loaded ${loaded.stats.spans} spans in ${round(loaded.seconds, 0)} s; ${MAIN_PROJECT} holds ${projectSpans}`);
  const { server, key } = await startServer(target, workDir);
  try {
    const before = await countSpans(target);
    const watched = await watch(server, async () => {
      const started = performance.now();
      const response = await fetch(`${server.url}/v1/projects/${encodeURIComponent(MAIN_PROJECT)}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${key}` },
      });
      await response.arrayBuffer();
      const answeredMs = performance.now() - started;
      const deadline = started + options.projectSeconds * 1000;
      let left = before;
      while (performance.now() < deadline && left > before - projectSpans) {
        await new Promise((resolve) => setTimeout(resolve, 5000));
        left = await countSpans(target);
      }
      const deleted = before - left;
      const seconds = (performance.now() - started) / 1000;
      return {
        status: response.status,
        detail:
          `answered in ${round(answeredMs, 0)} ms; ${deleted} of ${projectSpans} spans deleted in ${round(seconds, 0)} s ` +
          `(${round(deleted / seconds, 0)} spans/s${deleted < projectSpans ? `, stopped at --project-seconds ${options.projectSeconds}` : ''})`,
      };
    });
    return report(`a ${projectSpans}-span project deleted`, watched);
  } finally {
    await server.stop(30_000);
    await drop();
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!fs.existsSync(path.join(ROOT, 'packages/server/dist/index.js'))) throw new Error('build first: npm run build');
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-limits-'));
  const dialect = options.postgres ? 'postgres' : 'sqlite';
  log(
    `bench:limits on ${dialect}, cases ${options.cases.join(', ')}; target peak RSS < ${TARGET_RSS_MB} MB, /healthz < ${TARGET_HEALTH_MS} ms`,
  );
  const reports: CaseReport[] = [];
  try {
    if (options.cases.includes('trace')) reports.push(await traceCase(options, workDir));
    if (options.cases.includes('project')) reports.push(await projectCase(options, workDir));
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  const resultsDir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `limits-${dialect}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ dialect, options, reports }, null, 2));
  console.log(
    `\n${reports.map((each) => `${each.met ? 'MET    ' : 'NOT MET'} ${each.name}: peak RSS ${each.peakRssMb} MB, /healthz worst ${each.worstHealthMs} ms, ${each.detail}`).join('\n')}`,
  );
  console.log(`result written to ${path.relative(ROOT, file)}`);
  if (reports.some((each) => !each.met)) process.exitCode = 1;
}

await main();
