/**
 * bench/log: POST /v1/log throughput against its floor, measured in one run with one load generator.
 *
 *   npm run build && npm run bench:log [-- --connections 16 --rounds 3 --duration 5 --warmup 3 --cpu-prof | --perf]
 *
 * - The floor: a bare `node:http` server that reads the body and answers 200 without other work
 *   (bench/log/floor-server.ts).
 * - The durable floor (SQLite runs only): a bare `node:http` server that parses each body as JSON
 *   and appends it to a one-column table in the same directory, answering 200 after the commit and
 *   a sync of the WAL (bench/log/durable-floor-server.ts): what the disk leaves for any service
 *   that answers only once a record is stored.
 * - The service: `sightline monitor serve` (built bin) on a fresh SQLite database in a temp
 *   directory (every 200 is on disk: its WAL was synced after the commit), or on PostgreSQL with
 *   MONITOR_BENCH_DATABASE_URL=postgresql://... (an empty database).
 * - The load: an undici Pool (bench/log/load.ts) of `connections` keep-alive connections, one
 *   request in flight on each, one record per request (a full record with six features and two
 *   tags, a new prediction_id each).
 * The servers run side by side; the load alternates between them (floor, durable floor, service,
 * floor, ...) for `rounds` rounds of `duration` seconds each, so drifts in the machine's other
 * load hit them all.
 * The CPU each thread of the service used during its rounds is read from /proc and divided by
 * the records answered: request thread, writer thread, other threads (GC, compiler).
 * Afterwards the service is stopped and every acknowledged record is looked up through the read
 * API of a fresh service process on the same database.
 * Prints requests/s, p50/p99 latency, CPU µs per record and the ratios service/floor (target ≥ 0.5),
 * durable floor/floor and service/durable floor;
 * writes the figures to bench/results/log-<time>.json. With --cpu-prof the service runs under
 * `node --cpu-prof` (slower: the ratio is then not a result) and the profiles of its request
 * and writer threads are summarised (self time per function, wall time). With --perf the
 * service's threads are recorded with Linux perf instead (on-CPU samples, kernel included) and
 * their CPU per record is split by category (bench/log/perf-summary.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import SQLite from 'better-sqlite3';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatProfile } from '../ingest/profile-summary.js';
import { percentile, runLoad, type LoadResult } from './load.js';
import { formatPerfSummary } from './perf-summary.js';
import { sampleThreads, threadCpuBetween, type ThreadCpu } from './threads.js';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'packages/cli/bin/sightline.js');
const MODEL_ID = 'bench-model';
/** perf samples per second of CPU time of each thread. */
const PERF_FREQUENCY = 1999;

const HELP = `npm run bench:log [-- options]
  --connections N   keep-alive connections, one request in flight each (default 16)
  --rounds N        rounds of floor, durable floor (SQLite only) and service (default 3)
  --duration S      measured seconds per round (default 5)
  --warmup S        warm-up seconds before the first round of each (default 3; later rounds 0.5)
  --cpu-prof        run the service under node --cpu-prof and summarise its profiles (wall time)
  --perf            record the service's threads with Linux perf (on-CPU samples, kernel included)
                    and print CPU µs per record by category and thread (needs perf; slower)
  --service-env NAME=value   an extra MONITOR_* variable for the service (repeatable), e.g. MONITOR_SQLITE_SYNCS=1
  --dir DIR         where the service's SQLite database goes (default: the OS temp dir); /dev/shm
                    (tmpfs: fsync returns at once) takes the disk out, to see the CPU per record alone
PostgreSQL: MONITOR_BENCH_DATABASE_URL=postgresql://user@host:port/empty_database
`;

function parseOptions() {
  const { values } = parseArgs({
    options: {
      connections: { type: 'string' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      'cpu-prof': { type: 'boolean' },
      perf: { type: 'boolean' },
      dir: { type: 'string' },
      'service-env': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  const number = (name: string, value: string | undefined, fallback: number, integer: boolean) => {
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0 || (integer && !Number.isInteger(parsed))) {
      throw new Error(`--${name} must be a positive ${integer ? 'whole number' : 'number'}, got "${value}"`);
    }
    return parsed;
  };
  const serviceEnv: Record<string, string> = {};
  for (const pair of values['service-env'] ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0 || !pair.startsWith('MONITOR_')) throw new Error(`--service-env: expected MONITOR_NAME=value, got "${pair}"`);
    serviceEnv[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return {
    serviceEnv,
    connections: number('connections', values.connections, 16, true),
    rounds: number('rounds', values.rounds, 3, true),
    durationMs: number('duration', values.duration, 5, false) * 1000,
    warmupMs: number('warmup', values.warmup, 3, false) * 1000,
    cpuProf: values['cpu-prof'] ?? false,
    perf: values.perf ?? false,
    dir: values.dir ?? os.tmpdir(),
  };
}

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
function startChild(command: string, args: string[], env: Record<string, string>, ready: string, cwd = root): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** The body of request i of a round: a full record whose prediction_id is `idOf(round, i)`. */
function bodyFor(spaceKey: string, idOf: (i: number) => string): (i: number) => string {
  const timestamp = new Date(Date.now() - 60_000).toISOString();
  const before = `{"space_key":${JSON.stringify(spaceKey)},"model_id":"${MODEL_ID}","prediction_id":"`;
  const after =
    `","prediction":{"timestamp":"${timestamp}","model_version":"v1",` +
    `"label":{"score_categorical":{"score_category":{"category":"fraud","score":0.87}}},` +
    `"features":{"amount":{"double":12.5},"country":{"string":"DE"},"items":{"int":"3"},"merchant":{"string":"m-1234"},` +
    `"age_days":{"int":"812"},"velocity":{"double":0.25}},"tags":{"region":{"string":"eu"},"shard":{"int":"7"}}},` +
    `"environment_params":{"production":{}}}`;
  return (i) => `${before}${idOf(i)}${after}`;
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
    answered: 0,
    unknown: 0,
    sent: 0,
    connectionsOpened: 0,
  };
  for (const result of results) {
    merged.windowMs += result.windowMs;
    merged.okInWindow += result.okInWindow;
    for (const latency of result.latenciesMs) merged.latenciesMs.push(latency);
    for (const [status, count] of Object.entries(result.non200)) merged.non200[status] = (merged.non200[status] ?? 0) + count;
    merged.answered += result.answered;
    merged.unknown += result.unknown;
    merged.sent += result.sent;
    merged.connectionsOpened += result.connectionsOpened;
  }
  merged.latenciesMs.sort((a, b) => a - b);
  return merged;
}

/** CPU used while a load ran: the server's threads and the load generator (this process). */
interface LoadCpu {
  server: ThreadCpu;
  generator: number;
}

function addCpu(into: LoadCpu, cpu: LoadCpu): void {
  into.server.main += cpu.server.main;
  into.server.writer += cpu.server.writer;
  into.server.other += cpu.server.other;
  into.server.total += cpu.server.total;
  into.generator += cpu.generator;
}

const emptyCpu = (): LoadCpu => ({ server: { main: 0, writer: 0, other: 0, total: 0 }, generator: 0 });

/** CPU µs per answered request, rounded. */
function perRequest(cpu: LoadCpu, requests: number) {
  const us = (seconds: number) => Math.round((seconds * 1e6) / Math.max(requests, 1));
  return {
    request_thread: us(cpu.server.main),
    writer_thread: us(cpu.server.writer),
    other_threads: us(cpu.server.other),
    server_total: us(cpu.server.total),
    load_generator: us(cpu.generator),
  };
}

async function main(): Promise<void> {
  const options = parseOptions();
  if (!fs.existsSync(path.join(root, 'packages/monitor/dist/index.js'))) throw new Error('build first: npm run build');
  const workingDir = fs.mkdtempSync(path.join(options.dir, 'sightline-bench-log-'));
  const profileDir = options.cpuProf ? path.join(root, 'bench/results', `log-profile-${Date.now()}`) : null;
  const databaseUrl = process.env.MONITOR_BENCH_DATABASE_URL;
  const env: Record<string, string> = {
    SERVICE_WORKING_DIR: workingDir,
    MONITOR_LOG_LEVEL: 'warn',
    ...(databaseUrl && { MONITOR_DATABASE_URL: databaseUrl }),
    ...options.serviceEnv,
  };
  const cpus = os.cpus();
  process.stdout.write(
    `bench/log: undici, ${options.connections} keep-alive connections, one record per request; ${databaseUrl ? 'floor and service' : 'floor, durable floor and service'} alternate, ` +
      `${options.rounds} rounds of ${options.durationMs / 1000} s each (after ${options.warmupMs / 1000} s of warm-up); ` +
      `${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(2)}, ` +
      `${databaseUrl ? 'PostgreSQL' : `SQLite (WAL, synced before every 200) in ${options.dir}`}${profileDir ? ', service under --cpu-prof' : ''}\n`,
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
    const floor = await startChild(
      process.execPath,
      ['--import', 'tsx', 'bench/log/floor-server.ts'],
      { PORT: String(floorPort) },
      'listening',
    );
    children.push(floor);
    // The durable floor's database sits beside the service's, on the same disk.
    const durableFile = path.join(workingDir, 'durable-floor.db');
    const durablePort = await freePort();
    const durable = databaseUrl
      ? null
      : await startChild(
          process.execPath,
          ['--import', 'tsx', 'bench/log/durable-floor-server.ts'],
          { PORT: String(durablePort), DATABASE_FILE: durableFile },
          'listening',
        );
    if (durable) children.push(durable);
    const port = await freePort();
    const profileArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    // --perf-basic-prof: a map of JIT code for perf's symbols (and V8 logs in the working directory).
    const perfArgs = options.perf ? ['--perf-basic-prof'] : [];
    const service = await startChild(
      process.execPath,
      [...profileArgs, ...perfArgs, bin, 'monitor', 'serve'],
      { ...env, MONITOR_PORT: String(port) },
      'Log API',
      workingDir,
    );
    children.push(service);
    const perfFile = options.perf ? path.join(workingDir, 'perf.data') : null;
    // Samples only while the service's threads run: during the floor's rounds it idles.
    const perf = perfFile
      ? spawn('perf', ['record', '-e', 'cpu-clock', '-F', String(PERF_FREQUENCY), '-g', '-p', String(service.pid), '-o', perfFile], {
          stdio: 'ignore',
        })
      : null;

    const run = Date.now().toString(36);
    const idOf = (round: number, i: number) => `${run}-${round}-${i}`;
    const headers = { authorization: apiKey, 'content-type': 'application/json' };
    const targets = {
      floor: { child: floor, port: floorPort },
      durable: { child: durable, port: durablePort },
      service: { child: service, port },
    };
    const load = async (target: keyof typeof targets, round: number, warmupMs: number): Promise<{ result: LoadResult; cpu: LoadCpu }> => {
      const child = targets[target].child!;
      const threadsBefore = sampleThreads(child.pid!);
      const generatorBefore = process.cpuUsage();
      const result = await runLoad({
        origin: `http://127.0.0.1:${targets[target].port}`,
        path: '/v1/log',
        headers,
        connections: options.connections,
        warmupMs,
        durationMs: options.durationMs,
        body: bodyFor(spaceKey, (i) => idOf(round, i)),
      });
      const generator = process.cpuUsage(generatorBefore);
      const server = threadCpuBetween(child.pid!, threadsBefore, sampleThreads(child.pid!));
      return { result, cpu: { server, generator: (generator.user + generator.system) / 1e6 } };
    };
    const floorRounds: LoadResult[] = [];
    const durableRounds: LoadResult[] = [];
    const serviceRounds: LoadResult[] = [];
    const floorCpu = emptyCpu();
    const serviceCpu = emptyCpu();
    const acknowledged = new Set<string>();
    for (let round = 0; round < options.rounds; round++) {
      const warmupMs = round === 0 ? options.warmupMs : 500;
      const f = await load('floor', round, warmupMs);
      floorRounds.push(f.result);
      addCpu(floorCpu, f.cpu);
      const d = durable ? await load('durable', round, warmupMs) : null;
      if (d) durableRounds.push(d.result);
      const s = await load('service', round, warmupMs);
      serviceRounds.push(s.result);
      addCpu(serviceCpu, s.cpu);
      for (const i of s.result.acknowledged) acknowledged.add(idOf(round, i));
      process.stdout.write(
        `  round ${round + 1}: floor ${summary(f.result).requests_per_second} req/s, ` +
          `${d ? `durable floor ${summary(d.result).requests_per_second} req/s, ` : ''}service ${summary(s.result).requests_per_second} req/s\n`,
      );
    }
    if (perf) {
      const stopped = new Promise((resolve) => perf.once('exit', resolve));
      perf.kill('SIGINT');
      await stopped;
    }
    const floorResult = merge(floorRounds);
    const serviceResult = merge(serviceRounds);
    // The service stops (committing what it holds) and a fresh process reads the records back:
    // every 200 must have survived the restart, and the read-back stays out of the CPU figures
    // and profiles of the load.
    await stopChild(service);
    const reader = await startChild(process.execPath, [bin, 'monitor', 'serve'], { ...env, MONITOR_PORT: String(port) }, 'Log API');
    children.push(reader);
    const stored = await countStored(`http://127.0.0.1:${port}`, apiKey, spaceKey, acknowledged);
    let durableStored: { acknowledged: number; stored: number } | null = null;
    if (durable) {
      await stopChild(durable);
      const connection = new SQLite(durableFile, { readonly: true });
      const { rows } = connection.prepare('SELECT count(*) AS rows FROM records').get() as { rows: number };
      connection.close();
      durableStored = { acknowledged: durableRounds.reduce((sum, round) => sum + round.acknowledged.length, 0), stored: rows };
    }

    const floorFigures = summary(floorResult);
    const serviceFigures = summary(serviceResult);
    const floorPerRequest = perRequest(floorCpu, floorResult.answered);
    const servicePerRecord = perRequest(serviceCpu, serviceResult.answered);
    const ratio = serviceFigures.requests_per_second / floorFigures.requests_per_second;
    const durableFigures = durable ? summary(merge(durableRounds)) : null;
    process.stdout.write(
      `floor   (bare node:http)       ${floorFigures.requests_per_second} req/s  p50 ${floorFigures.p50_ms} ms  p99 ${floorFigures.p99_ms} ms\n`,
    );
    if (durableFigures) {
      process.stdout.write(
        `durable floor (JSON, stored)  ${durableFigures.requests_per_second} req/s  p50 ${durableFigures.p50_ms} ms  p99 ${durableFigures.p99_ms} ms\n`,
      );
    }
    process.stdout.write(
      `service (POST /v1/log, stored) ${serviceFigures.requests_per_second} req/s  p50 ${serviceFigures.p50_ms} ms  p99 ${serviceFigures.p99_ms} ms\n`,
    );
    process.stdout.write(
      `CPU µs per request: floor server ${floorPerRequest.server_total} (load generator ${floorPerRequest.load_generator}); ` +
        `service ${servicePerRecord.server_total} = request thread ${servicePerRecord.request_thread} + writer thread ` +
        `${servicePerRecord.writer_thread} + other threads ${servicePerRecord.other_threads} (load generator ${servicePerRecord.load_generator})\n`,
    );
    process.stdout.write(
      `durability: ${acknowledged.size} acknowledged with 200, ${stored.stored} stored, ${stored.missing} acknowledged but missing, ` +
        `${serviceResult.unknown} unanswered, non-200: ${JSON.stringify(serviceResult.non200)}\n`,
    );
    if (durableFigures && durableStored) {
      process.stdout.write(
        `durable floor: ${durableStored.acknowledged} acknowledged with 200, ${durableStored.stored} stored; ` +
          `durable floor/floor = ${(durableFigures.requests_per_second / floorFigures.requests_per_second).toFixed(2)}, ` +
          `service/durable floor = ${(serviceFigures.requests_per_second / durableFigures.requests_per_second).toFixed(2)}\n`,
      );
    }
    process.stdout.write(
      `ratio service/floor = ${ratio.toFixed(2)} (target ≥ 0.5) ${ratio >= 0.5 ? 'PASS' : 'BELOW TARGET'}` +
        `${profileDir || perfFile ? ' (profiled: not a result)' : ''}; load average ${os.loadavg()[0]!.toFixed(2)}\n`,
    );

    if (perfFile) {
      process.stdout.write(`\n${formatPerfSummary(perfFile, service.pid!, PERF_FREQUENCY, serviceResult.answered)}\n`);
      fs.rmSync(`/tmp/perf-${service.pid}.map`, { force: true });
    }

    if (profileDir) {
      for (const name of fs
        .readdirSync(profileDir)
        .filter((file) => file.endsWith('.cpuprofile'))
        .sort()) {
        process.stdout.write(`\n${formatProfile(path.join(profileDir, name), 25, root)}\n`);
      }
    }

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
          database_dir: databaseUrl ? null : options.dir,
          service_env: options.serviceEnv,
          load_generator: 'undici Pool, pipelining 1',
          floor_server: 'node:http',
          connections: options.connections,
          rounds: options.rounds,
          warmup_s: options.warmupMs / 1000,
          round_s: options.durationMs / 1000,
          cpu_profile: profileDir !== null,
          perf: perfFile !== null,
          floor: { ...floorFigures, cpu_us_per_request: floorPerRequest },
          service: { ...serviceFigures, cpu_us_per_record: servicePerRecord },
          durable_floor: durableFigures && { ...durableFigures, ...durableStored },
          rounds_req_per_s: floorRounds.map((round, i) => ({
            floor: summary(round).requests_per_second,
            durable_floor: durableRounds[i] ? summary(durableRounds[i]).requests_per_second : null,
            service: summary(serviceRounds[i]!).requests_per_second,
          })),
          ratio: Number(ratio.toFixed(3)),
          acknowledged: acknowledged.size,
          stored: stored.stored,
          missing: stored.missing,
        },
        null,
        2,
      )}\n`,
    );
    process.stdout.write(`figures written to ${path.relative(root, file)}\n`);
    if (stored.missing > 0 || (durableStored !== null && durableStored.stored < durableStored.acknowledged)) process.exitCode = 1;
  } finally {
    for (const child of children) await stopChild(child);
    fs.rmSync(workingDir, { recursive: true, force: true });
  }
}

await main();
