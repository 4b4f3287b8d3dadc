/**
 * bench/log: POST /v1/log throughput against its floor, measured in one run with one load generator.
 *
 *   npm run build && npm run bench:log [-- --rounds 3 --duration 5 --warmup 3 --connections 128]
 *
 * - The floor: a bare Fastify route answering 200 without work (bench/log/floor-server.ts).
 * - The service: `sightline monitor serve` (built bin) on a fresh SQLite database in a temp
 *   directory (synchronous=FULL: every 200 is on disk), or on PostgreSQL with
 *   MONITOR_BENCH_DATABASE_URL=postgresql://... (an empty database).
 * Both run side by side; the load alternates between them (floor, service, floor, ...) for
 * `rounds` rounds of `duration` seconds each, so drifts in the machine's other load hit both.
 * Both get single-record requests (a full record with six features and two tags, a new
 * prediction_id each) over keep-alive connections, one request in flight per connection.
 * Afterwards every acknowledged record is looked up through the read API.
 * Prints requests/s, p50/p99 latency and the ratio service/floor (target ≥ 0.5); writes the
 * figures to bench/results/log-<time>.json.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { percentile, runLoad, type LoadResult } from './load.js';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'packages/cli/bin/sightline.js');

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

const DURATION_MS = option('duration', 5) * 1000;
const WARMUP_MS = option('warmup', 3) * 1000;
const ROUNDS = option('rounds', 3);
const CONNECTIONS = option('connections', 128);
const MODEL_ID = 'bench-model';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a child and resolves once its stdout contains `ready`. */
function startChild(command: string, args: string[], env: Record<string, string>, ready: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(ready)) resolve(child);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${output}`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** One complete HTTP request: a full record with a fresh prediction_id. */
function requestFor(port: number, apiKey: string, spaceKey: string): (i: number) => Buffer {
  const timestamp = new Date(Date.now() - 60_000).toISOString();
  const before = `{"space_key":${JSON.stringify(spaceKey)},"model_id":"${MODEL_ID}","prediction_id":"`;
  const after =
    `","prediction":{"timestamp":"${timestamp}","model_version":"v1",` +
    `"label":{"score_categorical":{"score_category":{"category":"fraud","score":0.87}}},` +
    `"features":{"amount":{"double":12.5},"country":{"string":"DE"},"items":{"int":"3"},"merchant":{"string":"m-1234"},` +
    `"age_days":{"int":"812"},"velocity":{"double":0.25}},"tags":{"region":{"string":"eu"},"shard":{"int":"7"}}},` +
    `"environment_params":{"production":{}}}`;
  const head = (length: number) =>
    `POST /v1/log HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
  const run = Date.now().toString(36);
  return (i) => {
    const body = `${before}${run}-${i}${after}`;
    return Buffer.from(head(Buffer.byteLength(body)) + body);
  };
}

function summary(result: LoadResult) {
  return {
    requests_per_second: Math.round(result.okInWindow / (result.windowMs / 1000)),
    p50_ms: Number(percentile(result.latenciesMs, 50).toFixed(2)),
    p99_ms: Number(percentile(result.latenciesMs, 99).toFixed(2)),
    ok_in_window: result.okInWindow,
    non_200: result.non200,
    connections_opened: result.connectionsOpened,
  };
}

async function countStored(
  base: string,
  apiKey: string,
  spaceKey: string,
  expected: Set<string>,
): Promise<{ stored: number; missing: number }> {
  const seen = new Set<string>();
  let cursor: string | null = null;
  do {
    const response = await fetch(`${base}/v1/models/${MODEL_ID}/records?limit=1000${cursor ? `&cursor=${cursor}` : ''}`, {
      headers: { authorization: apiKey, 'space-key': spaceKey },
    });
    if (!response.ok) throw new Error(`read API answered ${response.status}: ${await response.text()}`);
    const page = (await response.json()) as { data: { prediction_id: string }[]; next_cursor: string | null };
    for (const record of page.data) seen.add(record.prediction_id);
    cursor = page.next_cursor;
  } while (cursor !== null);
  let missing = 0;
  for (const id of expected) if (!seen.has(id)) missing++;
  return { stored: seen.size, missing };
}

/** Sums the rounds of one target into one result (latencies merged and sorted). */
function merge(results: LoadResult[]): LoadResult {
  const merged: LoadResult = {
    windowMs: 0,
    okInWindow: 0,
    latenciesMs: [],
    non200: {},
    acknowledged: [],
    unknown: 0,
    sent: 0,
    connectionsOpened: 0,
  };
  for (const result of results) {
    merged.windowMs += result.windowMs;
    merged.okInWindow += result.okInWindow;
    for (const latency of result.latenciesMs) merged.latenciesMs.push(latency);
    for (const [status, count] of Object.entries(result.non200)) merged.non200[status] = (merged.non200[status] ?? 0) + count;
    for (const i of result.acknowledged) merged.acknowledged.push(i);
    merged.unknown += result.unknown;
    merged.sent += result.sent;
    merged.connectionsOpened += result.connectionsOpened;
  }
  merged.latenciesMs.sort((a, b) => a - b);
  return merged;
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(root, 'packages/monitor/dist/index.js'))) throw new Error('build first: npm run build');
  const workingDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-log-'));
  const databaseUrl = process.env.MONITOR_BENCH_DATABASE_URL;
  const env: Record<string, string> = {
    SERVICE_WORKING_DIR: workingDir,
    MONITOR_LOG_LEVEL: 'warn',
    ...(databaseUrl && { MONITOR_DATABASE_URL: databaseUrl }),
  };
  const cpus = os.cpus();
  process.stdout.write(
    `bench/log: ${CONNECTIONS} keep-alive connections; floor and service alternate, ${ROUNDS} rounds of ${DURATION_MS / 1000} s each ` +
      `(after ${WARMUP_MS / 1000} s of warm-up each); ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, Node ${process.version}, ` +
      `${databaseUrl ? 'PostgreSQL' : 'SQLite (WAL, synchronous=FULL)'}\n`,
  );
  const children: ChildProcess[] = [];
  try {
    const created = spawnSync(process.execPath, [bin, 'monitor', 'create-space', '--name', 'bench', '--json'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    if (created.status !== 0) throw new Error(`create-space failed: ${created.stderr}`);
    const { api_key: apiKey, space_key: spaceKey } = JSON.parse(created.stdout) as { api_key: string; space_key: string };

    // Both servers run for the whole bench; the load alternates between them, so a change in
    // the machine's other load hits both alike.
    const floorPort = await freePort();
    children.push(
      await startChild(process.execPath, ['--import', 'tsx', 'bench/log/floor-server.ts'], { PORT: String(floorPort) }, 'listening'),
    );
    const port = await freePort();
    children.push(await startChild(process.execPath, [bin, 'monitor', 'serve'], { ...env, MONITOR_PORT: String(port) }, 'Log API'));

    const floorRequest = requestFor(floorPort, apiKey, spaceKey);
    const serviceRequest = requestFor(port, apiKey, spaceKey);
    const ids = new Map<number, string>();
    const load = (target: 'floor' | 'service', round: number, warmupMs: number) =>
      runLoad({
        host: '127.0.0.1',
        port: target === 'floor' ? floorPort : port,
        connections: CONNECTIONS,
        warmupMs,
        durationMs: DURATION_MS,
        request:
          target === 'floor'
            ? floorRequest
            : (i) => {
                const n = round * 100_000_000 + i;
                const bytes = serviceRequest(n);
                ids.set(n, /"prediction_id":"([^"]+)"/.exec(bytes.toString('latin1'))![1]!);
                return bytes;
              },
      }).then((result) => {
        if (target === 'service') result.acknowledged = result.acknowledged.map((i) => round * 100_000_000 + i);
        return result;
      });
    const floorRounds: LoadResult[] = [];
    const serviceRounds: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const warmupMs = round === 0 ? WARMUP_MS : 500;
      floorRounds.push(await load('floor', round, warmupMs));
      serviceRounds.push(await load('service', round, warmupMs));
      const f = summary(floorRounds[round]!);
      const v = summary(serviceRounds[round]!);
      process.stdout.write(`  round ${round + 1}: floor ${f.requests_per_second} req/s, service ${v.requests_per_second} req/s\n`);
    }
    const floorResult = merge(floorRounds);
    const serviceResult = merge(serviceRounds);
    const acknowledged = new Set(serviceResult.acknowledged.map((i) => ids.get(i)!));
    const stored = await countStored(`http://127.0.0.1:${port}`, apiKey, spaceKey, acknowledged);

    const floorFigures = summary(floorResult);
    const serviceFigures = summary(serviceResult);
    const ratio = serviceFigures.requests_per_second / floorFigures.requests_per_second;
    process.stdout.write(
      `floor   (bare Fastify route)   ${floorFigures.requests_per_second} req/s  p50 ${floorFigures.p50_ms} ms  p99 ${floorFigures.p99_ms} ms\n`,
    );
    process.stdout.write(
      `service (POST /v1/log, stored) ${serviceFigures.requests_per_second} req/s  p50 ${serviceFigures.p50_ms} ms  p99 ${serviceFigures.p99_ms} ms\n`,
    );
    process.stdout.write(
      `durability: ${serviceResult.acknowledged.length} acknowledged with 200, ${stored.stored} stored, ${stored.missing} acknowledged but missing, ` +
        `${serviceResult.unknown} unanswered, non-200: ${JSON.stringify(serviceResult.non200)}\n`,
    );
    process.stdout.write(`ratio service/floor = ${ratio.toFixed(2)} (target ≥ 0.5) ${ratio >= 0.5 ? 'PASS' : 'BELOW TARGET'}\n`);

    const results = path.join(root, 'bench/results');
    fs.mkdirSync(results, { recursive: true });
    const file = path.join(results, `log-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(
      file,
      `${JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpus: cpus.length, model: cpus[0]?.model, node: process.version, loadavg: os.loadavg() },
          database: databaseUrl ? 'postgresql' : 'sqlite',
          connections: CONNECTIONS,
          rounds: ROUNDS,
          warmup_s: WARMUP_MS / 1000,
          round_s: DURATION_MS / 1000,
          floor: floorFigures,
          service: serviceFigures,
          rounds_req_per_s: floorRounds.map((round, i) => ({
            floor: summary(round).requests_per_second,
            service: summary(serviceRounds[i]!).requests_per_second,
          })),
          ratio: Number(ratio.toFixed(3)),
          acknowledged: serviceResult.acknowledged.length,
          stored: stored.stored,
          missing: stored.missing,
        },
        null,
        2,
      )}\n`,
    );
    process.stdout.write(`figures written to ${path.relative(root, file)}\n`);
    if (stored.missing > 0) process.exitCode = 1;
  } finally {
    for (const child of children) await stopChild(child);
    fs.rmSync(workingDir, { recursive: true, force: true });
  }
}

await main();
