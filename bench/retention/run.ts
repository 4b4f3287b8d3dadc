/**
 * Retention benchmark (docs/retention.md): does deleting old data slow ingest down? Loads N spans
 * dated ten days ago into a fresh SQLite database through the server's own OTLP/HTTP ingest,
 * measures ingest's maximum rate, then sends at half that rate, open loop, while the retention job
 * (a 2-day policy, run through POST /v1/retention/run) deletes every old trace; then, as the
 * control, restarts from a fresh copy of the loaded database and sends at the same rate for as long
 * without deletion. Prints both p99 latencies and their ratio (target: within 2×, no error).
 *
 *   npm run bench:retention -- [--spans 1000000] [--seconds 20]
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runLoad } from '../ingest/load.js';
import { freePort, startServerProcess, type ServerProcess } from '../ingest/server-process.js';
import { buildBodyPool, IdPatcher, type BodyTemplate } from '../ingest/spans.js';
import { ROOT, buildServer, copyDatabaseFile, log, machine, percentile, round, sourceState } from '../shared.js';

const TARGET_RATIO = 2;
const PROJECT = 'ingest-bench';

const HELP = `Usage: npm run bench:retention -- [options]

Starts the built server on a fresh SQLite database, loads --spans spans dated ten days ago
through OTLP/HTTP, measures the maximum ingest rate (closed loop), then sends recent spans at
half that rate (open loop) for --seconds without deletion, and again while the retention job
deletes every old trace (policy max_days=2). Then, as the control, it starts again from a copy of
the loaded database and sends at the same rate for as long as the job ran, without deletion.
Prints p50/p99 of each phase and the p99 ratio of the job's phase to the control.

Options:
  --spans N            old spans to load first (default 1000000)
  --seconds N          length of the max-rate and the no-deletion phases, s (default 20)
  --batch N            spans per request (default 100)
  --spans-per-trace N  spans per trace (default 5)
  --concurrency N      clients for loading and the max-rate phase (default 8)
  --server-env K=V     extra environment for the server (repeatable)
  --reuse FILE         load the old spans once into FILE (a SQLite database kept between runs) and
                       start every later run from a copy of it (a million spans take minutes to load)
  --skip-build         do not run tsc -b packages/cli first
  --keep               keep the temp directory
  --out FILE           JSON result path (default bench/results/retention-<timestamp>.json)
  -h, --help           this text
`;

interface Options {
  spans: number;
  seconds: number;
  batch: number;
  spansPerTrace: number;
  concurrency: number;
  serverEnv: Record<string, string>;
  skipBuild: boolean;
  keep: boolean;
  reuse: string | null;
  out: string | null;
}

function parseOptions(): Options {
  const { values } = parseArgs({
    options: {
      spans: { type: 'string', default: '1000000' },
      seconds: { type: 'string', default: '20' },
      batch: { type: 'string', default: '100' },
      'spans-per-trace': { type: 'string', default: '5' },
      concurrency: { type: 'string', default: '8' },
      'server-env': { type: 'string', multiple: true, default: [] },
      'skip-build': { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      reuse: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  const positive = (name: string, value: string) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number <= 0) throw new Error(`--${name}: expected a positive whole number, got "${value}"`);
    return number;
  };
  const serverEnv: Record<string, string> = {};
  for (const pair of values['server-env']) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--server-env: expected K=V, got "${pair}"`);
    serverEnv[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return {
    spans: positive('spans', values.spans),
    seconds: positive('seconds', values.seconds),
    batch: positive('batch', values.batch),
    spansPerTrace: positive('spans-per-trace', values['spans-per-trace']),
    concurrency: positive('concurrency', values.concurrency),
    serverEnv,
    skipBuild: values['skip-build'],
    keep: values.keep,
    reuse: values.reuse ?? null,
    out: values.out ?? null,
  };
}

/** Latencies and failures of one open-loop phase. */
interface PhaseResult {
  seconds: number;
  requests: number;
  spans: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: Record<string, number>;
  /** The latencies by window of the phase (by when each request was sent), to see when a p99 is made. */
  windows: LatencyWindow[];
}

interface LatencyWindow {
  fromSeconds: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
}

/** Seconds per latency window of a phase. */
const WINDOW_SECONDS = 20;

/** POSTs one body on a keep-alive agent; resolves to the status (or error code) and the latency. */
function post(
  agent: http.Agent,
  port: number,
  urlPath: string,
  body: Buffer,
  type: string,
): Promise<{ status: string; ms: number; text: string }> {
  return new Promise((resolve) => {
    const start = performance.now();
    const request = http.request(
      { host: '127.0.0.1', port, path: urlPath, method: 'POST', agent, headers: { 'content-type': type, 'content-length': body.length } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: String(response.statusCode ?? 0),
            ms: performance.now() - start,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? 'response-error', ms: 0, text: '' }));
      },
    );
    request.setTimeout(120_000, () => request.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? 'request-error', ms: 0, text: '' }));
    request.end(body);
  });
}

/** Sends `spansPerSecond` (in requests of the pool's size) on schedule, whatever the answers, until `until()` is true. */
async function openLoop(
  port: number,
  pool: BodyTemplate[],
  patcher: IdPatcher,
  spansPerSecond: number,
  until: () => boolean,
): Promise<PhaseResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const intervalMs = (1000 * pool[0]!.spans) / spansPerSecond;
  const latencies: number[] = [];
  const byWindow: number[][] = [];
  const errors: Record<string, number> = {};
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let sent = 0;
  let spans = 0;
  while (!until()) {
    const due = started + sent * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const template = pool[sent % pool.length]!;
    sent++;
    const window = Math.floor((performance.now() - started) / (WINDOW_SECONDS * 1000));
    const request = post(agent, port, '/v1/traces', patcher.next(template), 'application/x-protobuf').then((outcome) => {
      if (outcome.status === '200') {
        latencies.push(outcome.ms);
        byWindow[window] ??= [];
        byWindow[window].push(outcome.ms);
        spans += template.spans;
      } else errors[outcome.status] = (errors[outcome.status] ?? 0) + 1;
    });
    inFlight.add(request);
    void request.finally(() => inFlight.delete(request));
  }
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(inFlight);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    seconds: round(seconds, 1),
    requests: latencies.length,
    spans,
    p50Ms: round(percentile(latencies, 0.5), 2),
    p99Ms: round(percentile(latencies, 0.99), 2),
    maxMs: round(latencies.at(-1) ?? Number.NaN, 2),
    errors,
    windows: Array.from(byWindow, (window = [], index) => {
      window.sort((a, b) => a - b);
      return {
        fromSeconds: index * WINDOW_SECONDS,
        requests: window.length,
        p50Ms: round(percentile(window, 0.5), 1),
        p99Ms: round(percentile(window, 0.99), 1),
      };
    }),
  };
}

/** One line of a phase's windows: `from s: p50/p99 ms`. */
function windowsLine(phase: PhaseResult): string {
  return phase.windows.map((window) => `${window.fromSeconds}s ${window.p50Ms}/${window.p99Ms}`).join(', ');
}

/** Loads `total` spans (rounded up to whole requests) with `concurrency` closed-loop clients; throws on any non-200. */
async function load(port: number, pool: BodyTemplate[], patcher: IdPatcher, total: number, concurrency: number): Promise<number> {
  const requests = Math.ceil(total / pool[0]!.spans);
  let next = 0;
  let spans = 0;
  const client = async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      while (next < requests) {
        const template = pool[next++ % pool.length]!;
        const outcome = await post(agent, port, '/v1/traces', patcher.next(template), 'application/x-protobuf');
        if (outcome.status === '503') {
          next--;
          await new Promise((resolve) => setTimeout(resolve, 100));
          continue;
        }
        if (outcome.status !== '200') throw new Error(`loading: ingest answered ${outcome.status}: ${outcome.text}`);
        spans += template.spans;
        if (spans % 100_000 < template.spans) log(`loaded ${spans} spans`);
      }
    } finally {
      agent.destroy();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return spans;
}

/** A JSON request to the server, without a timeout (a run over a million spans takes minutes); throws unless it answers 200. */
function api(port: number, method: string, urlPath: string, body?: unknown): Promise<unknown> {
  const payload = body === undefined ? '' : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: urlPath,
        method,
        headers: payload === '' ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== 200) reject(new Error(`${method} ${urlPath} answered ${response.statusCode}: ${text}`));
          else resolve(JSON.parse(text) as unknown);
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/**
 * Every 10 s while the job runs, logs what its batches did since the last line (from the server's
 * debug log): spans deleted, batches, mean size, mean time held / answered / selecting, and the WAL size.
 */
function watchBatches(logFile: string, dbFile: string, since: number): { stop(): void } {
  let offset = fs.statSync(logFile).size;
  const timer = setInterval(() => {
    const size = fs.statSync(logFile).size;
    const text = Buffer.alloc(size - offset);
    const fd = fs.openSync(logFile, 'r');
    fs.readSync(fd, text, 0, text.length, offset);
    fs.closeSync(fd);
    offset = size;
    const batches = text
      .toString('utf8')
      .split('\n')
      .filter((line) => line.includes('"retentionBatch"'))
      .map(
        (line) =>
          (
            JSON.parse(line) as {
              retentionBatch: { traces: number; spans: number; heldMs: number; totalMs: number; selectMs: number; waitedMs: number };
            }
          ).retentionBatch,
      );
    const sum = (pick: (batch: (typeof batches)[number]) => number) => batches.reduce((total, batch) => total + pick(batch), 0);
    const n = Math.max(1, batches.length);
    const wal = fs.existsSync(`${dbFile}-wal`) ? fs.statSync(`${dbFile}-wal`).size : 0;
    log(
      `job +${round((performance.now() - since) / 1000, 0)} s: ${sum((b) => b.spans)} spans in ${batches.length} batches of ${round(sum((b) => b.traces) / n, 0)} traces; ` +
        `held ${round(sum((b) => b.heldMs) / n, 1)} ms, answered ${round(sum((b) => b.totalMs) / n, 1)} ms, select ${round(sum((b) => b.selectMs) / n, 1)} ms, waited for idle ingest ${round(sum((b) => b.waitedMs) / n, 1)} ms; WAL ${round(wal / 2 ** 20)} MiB`,
    );
  }, 10_000);
  return { stop: () => clearInterval(timer) };
}

async function main(): Promise<void> {
  const options = parseOptions();
  if (!options.skipBuild) buildServer();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-retention-'));
  let server: ServerProcess | null = null;
  try {
    const port = await freePort();
    const grpcPort = await freePort();
    const dbFile = path.join(workDir, 'sightline.db');
    const logFile = path.join(workDir, 'server.log');
    const start = () =>
      startServerProcess({
        root: ROOT,
        port,
        logFile,
        cpuProfileDir: null,
        startTimeoutMs: 120_000,
        env: {
          SERVICE_HOST: '127.0.0.1',
          SERVICE_PORT: String(port),
          SERVICE_GRPC_PORT: String(grpcPort),
          SERVICE_WORKING_DIR: workDir,
          // Debug level: the job logs each deletion batch (size, time held, wait), summarised below.
          SERVICE_LOG_LEVEL: 'debug',
          SERVICE_ENABLE_AUTH: 'false',
          // The benchmark starts the job itself, at a known moment.
          SERVICE_RETENTION_INTERVAL_SECONDS: '86400',
          ...options.serverEnv,
        },
      });
    const poolOptions = { size: 32, batch: options.batch, spansPerTrace: options.spansPerTrace };
    const tenDaysAgo = BigInt(Date.now() - 10 * 86_400_000) * 1_000_000n;
    const oldPool = buildBodyPool({ ...poolOptions, baseNanos: tenDaysAgo });
    const pool = buildBodyPool(poolOptions);
    const patcher = new IdPatcher();

    let loaded: number;
    let loadSeconds: number;
    let template: string;
    const reuseMeta = options.reuse ? `${options.reuse}.json` : null;
    if (options.reuse && reuseMeta && fs.existsSync(options.reuse) && fs.existsSync(reuseMeta)) {
      ({ loaded, loadSeconds } = JSON.parse(fs.readFileSync(reuseMeta, 'utf8')) as { loaded: number; loadSeconds: number });
      log(`copying ${options.reuse} (${loaded} old spans, loaded earlier in ${loadSeconds} s)`);
      template = options.reuse;
      copyDatabaseFile(template, dbFile);
      server = await start();
    } else {
      server = await start();
      log(`loading ${options.spans} spans dated ten days ago`);
      const loadStart = performance.now();
      loaded = await load(port, oldPool, patcher, options.spans, options.concurrency);
      loadSeconds = round((performance.now() - loadStart) / 1000);
      log(`loaded ${loaded} spans in ${loadSeconds} s; database ${round(fs.statSync(dbFile).size / 2 ** 20)} MiB`);
      // Stopped, the server checkpoints its WAL into the file, which then holds everything; the
      // control run below starts again from this copy.
      await server.stop(60_000);
      template = options.reuse ?? path.join(workDir, 'loaded.db');
      copyDatabaseFile(dbFile, `${template}.loading`);
      fs.renameSync(`${template}.loading`, template);
      if (options.reuse && reuseMeta) {
        fs.writeFileSync(reuseMeta, `${JSON.stringify({ loaded, loadSeconds })}\n`);
        log(`kept the loaded database as ${options.reuse}`);
      }
      server = await start();
    }

    log(`measuring the maximum ingest rate for ${options.seconds} s (${options.concurrency} clients, closed loop)`);
    const max = await runLoad({
      host: '127.0.0.1',
      port,
      path: '/v1/traces',
      concurrency: options.concurrency,
      pool,
      patcher,
      warmupMs: 2000,
      durationMs: options.seconds * 1000,
      requestTimeoutMs: 60_000,
    });
    const maxRate = max.okSpans / options.seconds;
    const rate = maxRate / 2;
    log(`maximum ${Math.round(maxRate)} spans/s; sending ${Math.round(rate)} spans/s from now on`);

    log(`without deletion: ${options.seconds} s`);
    const baselineEnd = performance.now() + options.seconds * 1000;
    const baseline = await openLoop(port, pool, patcher, rate, () => performance.now() >= baselineEnd);

    log('with deletion: policy max_days=2, running the retention job');
    await api(port, 'PUT', `/v1/projects/${PROJECT}/retention`, { max_days: 2 });
    let done = false;
    const during = openLoop(port, pool, patcher, rate, () => done);
    // A moment of load first, so the job starts into a steady stream.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const jobStart = performance.now();
    const progress = watchBatches(logFile, dbFile, jobStart);
    const run = (await api(port, 'POST', '/v1/retention/run')) as {
      data: { deleted_traces: number; deleted_spans: number; vacuumed_pages: number };
    };
    const jobSeconds = (performance.now() - jobStart) / 1000;
    progress.stop();
    done = true;
    const deleting = await during;
    const dbBytes = fs.statSync(dbFile).size;

    // The control: the same database as loaded, the same rate for as long as the job ran, no
    // deletion. Ingest slows as the database grows over a run of minutes, so comparing the job's
    // phase with the short phase above would charge that growth to the deletion.
    log(`control: a fresh copy of the loaded database, ${Math.round(rate)} spans/s for ${round(deleting.seconds, 0)} s without deletion`);
    await server.stop(60_000);
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${dbFile}${suffix}`, { force: true });
    copyDatabaseFile(template, dbFile);
    server = await start();
    const controlEnd = performance.now() + deleting.seconds * 1000;
    const control = await openLoop(port, pool, patcher, rate, () => performance.now() >= controlEnd);

    const ratio = deleting.p99Ms / control.p99Ms;
    const errors = [baseline, deleting, control].reduce((sum, phase) => sum + Object.values(phase.errors).reduce((a, b) => a + b, 0), 0);
    const result = {
      benchmark: 'retention',
      at: new Date().toISOString(),
      machine: machine(),
      source: sourceState(),
      options,
      load: { spans: loaded, seconds: loadSeconds, spansPerSecond: Math.round(loaded / loadSeconds), reused: options.reuse },
      maxSpansPerSecond: Math.round(maxRate),
      rateSpansPerSecond: Math.round(rate),
      withoutDeletion: baseline,
      withDeletion: deleting,
      control,
      job: {
        seconds: round(jobSeconds, 1),
        deletedTraces: run.data.deleted_traces,
        deletedSpans: run.data.deleted_spans,
        spansPerSecond: Math.round(run.data.deleted_spans / jobSeconds),
        vacuumedPages: run.data.vacuumed_pages,
        databaseMiBAfter: round(dbBytes / 2 ** 20),
      },
      p99Ratio: round(ratio, 2),
      target: `p99 with deletion ≤ ${TARGET_RATIO}× without, no ingest error`,
      met: ratio <= TARGET_RATIO && errors === 0,
    };
    const resultsDir = path.join(ROOT, 'bench/results');
    fs.mkdirSync(resultsDir, { recursive: true });
    const out = options.out ?? path.join(resultsDir, `retention-${result.at.replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      [
        `loaded            ${loaded} spans in ${round(loadSeconds)} s`,
        `max ingest        ${Math.round(maxRate)} spans/s; measured at ${Math.round(rate)} spans/s`,
        `without deletion  p50 ${baseline.p50Ms} ms, p99 ${baseline.p99Ms} ms, max ${baseline.maxMs} ms, ${baseline.requests} requests, errors ${JSON.stringify(baseline.errors)}`,
        `with deletion     p50 ${deleting.p50Ms} ms, p99 ${deleting.p99Ms} ms, max ${deleting.maxMs} ms, ${deleting.requests} requests, errors ${JSON.stringify(deleting.errors)}`,
        `  by ${WINDOW_SECONDS} s (p50/p99 ms): ${windowsLine(deleting)}`,
        `control           p50 ${control.p50Ms} ms, p99 ${control.p99Ms} ms, max ${control.maxMs} ms, ${control.requests} requests, errors ${JSON.stringify(control.errors)} (same rate and duration from the loaded database, no deletion)`,
        `  by ${WINDOW_SECONDS} s (p50/p99 ms): ${windowsLine(control)}`,
        `job               ${run.data.deleted_spans} spans / ${run.data.deleted_traces} traces deleted in ${round(jobSeconds, 1)} s (${result.job.spansPerSecond} spans/s), ${run.data.vacuumed_pages} pages vacuumed, database ${result.job.databaseMiBAfter} MiB after`,
        `p99 ratio         ${round(ratio, 2)} with deletion / control (target ≤ ${TARGET_RATIO}, no error): ${result.met ? 'met' : 'NOT met'}`,
        `result            ${path.relative(ROOT, out)}`,
        '',
      ].join('\n'),
    );
  } finally {
    await server?.stop(30_000);
    if (options.keep) log(`kept ${workDir}`);
    else fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
