/**
 * Ingest benchmark: OTLP/HTTP protobuf throughput of the real server, against the floor of the
 * same decode + insert code run in one thread without HTTP.
 *
 *   npm run bench:ingest -- [--seconds 20] [--concurrency 8] [--batch 100] [--postgres URL]
 *
 * See docs/performance.md ("Ingest (bench/ingest)") and `--help`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import { decodeProtobufExport } from '../../packages/server/src/ingest/decode-protobuf.js';
import { toSpanRows } from '../../packages/server/src/span-model/span-rows.js';
import { measureFloor, type FloorResult, type FloorTarget } from './floor.js';
import { runLoad, type LoadResult } from './load.js';
import {
  countQueuedSearchTexts,
  countSpans,
  createScratchDatabase,
  databaseUrl,
  describeServer,
  listIndexes,
  type ScratchDatabase,
} from './postgres.js';
import { formatProfile } from './profile-summary.js';
import {
  cpuBetween,
  freePort,
  readCpuByCommand,
  readMachineBusySeconds,
  readProcCpuSeconds,
  readProcWriteBytes,
  startServerProcess,
  type ServerProcess,
} from './server-process.js';
import { buildBodyPool, IdPatcher, type BodyTemplate } from './spans.js';
import { measureSqliteSearchLag } from './sqlite-search.js';
import { BENCH_SECRET, systemKey } from './system-key.js';
import { busiestThreadsBetween, sampleThreads, type ThreadSample } from '../log/threads.js';
import { ROOT, buildServer, log, machine, parseServerEnv, percentile, redact, round, sourceState } from '../shared.js';

const TARGET_RATIO = 0.6;
/** Issue 15's target: the server against the lean floor (SQLite, 16 clients × 200 spans, auth on). */
const TARGET_LEAN_RATIO = 0.8;

const HELP = `Usage: npm run bench:ingest -- [options]

Starts the built server (node packages/cli/bin/sightline.js serve) in a child process on
127.0.0.1, sends OTLP/HTTP protobuf batches of OpenInference LLM spans from N keep-alive clients
for a fixed time, then measures the floor (same bodies decoded and inserted in one thread of
this process, no HTTP) and prints spans/s, latency, errors, server peak RSS and the ratio. On
SQLite it also measures the lean floor: the same decode inserting into one lean table (primary
key, trace-id index, start-time index), and prints the server's ratio against it.

Options:
  --seconds N          measured load duration, s (default 20)
  --warmup N           unmeasured warm-up before the measured window, s (default 2)
  --concurrency N      concurrent keep-alive HTTP clients (default 16)
  --batch N            spans per request (default 200)
  --no-auth            run the server with auth off (default: auth on, a system API key)
  --spans-per-trace N  spans per trace: 1 CHAIN root + N-1 LLM children (default 5)
  --pool N             distinct pre-encoded bodies (default 32; ids are patched per request)
  --floor-seconds N    measured floor duration, s (default: same as --seconds)
  --floor-batch N      spans per floor commit (default 5000, the server's largest batch)
  --sqlite-file FILE   ingest into this existing SQLite database (e.g. one of 10M spans loaded
                       by npm run bench:query -- --reuse FILE) instead of a fresh one; it keeps
                       what is sent
  --postgres URL       use PostgreSQL: fresh databases are created through URL (role needs
                       CREATEDB) and dropped afterwards; default is SQLite in a temp dir
  --postgres-database NAME  with --postgres, ingest into this existing database on that server
                       (e.g. one of 10M spans loaded by npm run bench:query -- --postgres URL
                       --reuse NAME) instead of a fresh one; it keeps what is sent
  --server-env K=V     extra environment for the server (repeatable), e.g.
                       --server-env SERVICE_INGEST_MAX_BATCH_SPANS=2000
  --node-arg ARG       an option for the server's node (repeatable), e.g. --node-arg=--trace-gc
                       (its output goes to the server log; keep it with --keep)
  --cpu-prof           write V8 CPU profiles of the server to bench/results/ and summarise them
  --skip-build         do not run tsc -b packages/cli first
  --skip-floor         measure only the server
  --keep               keep the temp directory / PostgreSQL databases
  --out FILE           JSON result path (default bench/results/ingest-<timestamp>.json)
  --note TEXT          free text stored in the JSON result (e.g. what was changed)
  -h, --help           this text
`;

interface Options {
  seconds: number;
  warmup: number;
  concurrency: number;
  batch: number;
  spansPerTrace: number;
  pool: number;
  floorSeconds: number;
  floorBatch: number;
  /** An existing SQLite database to ingest into, or null for a fresh one. */
  sqliteFile: string | null;
  postgresDatabase: string | null;
  /** Auth on, ingest with a system API key. */
  auth: boolean;
  postgres: string | null;
  serverEnv: Record<string, string>;
  nodeArgs: string[];
  cpuProf: boolean;
  skipBuild: boolean;
  skipFloor: boolean;
  keep: boolean;
  out: string | null;
  note: string | null;
}

/** PostgreSQL: the search words queued when the load stopped (null without a queue), and how long the idle server took to index them. */
async function measureSearchLag(url: string): Promise<{ queuedAtEnd: number; drainSeconds: number | null } | null> {
  const queuedAtEnd = await countQueuedSearchTexts(url);
  if (queuedAtEnd === null) return null;
  const started = performance.now();
  for (let queued = queuedAtEnd; queued > 0; queued = (await countQueuedSearchTexts(url)) ?? 0) {
    if (performance.now() - started > 300_000) return { queuedAtEnd, drainSeconds: null };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { queuedAtEnd, drainSeconds: round((performance.now() - started) / 1000, 1) };
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: 'string' },
      warmup: { type: 'string' },
      concurrency: { type: 'string' },
      batch: { type: 'string' },
      'spans-per-trace': { type: 'string' },
      pool: { type: 'string' },
      'floor-seconds': { type: 'string' },
      'floor-batch': { type: 'string' },
      postgres: { type: 'string' },
      'sqlite-file': { type: 'string' },
      'postgres-database': { type: 'string' },
      'server-env': { type: 'string', multiple: true },
      'node-arg': { type: 'string', multiple: true },
      'cpu-prof': { type: 'boolean' },
      'no-auth': { type: 'boolean' },
      'skip-build': { type: 'boolean' },
      'skip-floor': { type: 'boolean' },
      keep: { type: 'boolean' },
      out: { type: 'string' },
      note: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    process.exit(0);
  }
  const number = (name: string, value: string | undefined, fallback: number, { min = 1, integer = true } = {}) => {
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < min || (integer && !Number.isInteger(parsed))) {
      throw new Error(`--${name}: expected ${integer ? 'a whole number' : 'a number'} >= ${min}, got "${value}"`);
    }
    return parsed;
  };
  const seconds = number('seconds', values.seconds, 20, { integer: false });
  if (seconds > 600) throw new Error('--seconds: at most 600');
  const serverEnv = parseServerEnv(values['server-env']);
  if (values.postgres !== undefined && !/^postgres(ql)?:\/\//i.test(values.postgres)) {
    throw new Error('--postgres: expected a postgresql://user@host:port/database URL');
  }
  if (values['postgres-database'] !== undefined && values.postgres === undefined) throw new Error('--postgres-database needs --postgres');
  return {
    seconds,
    warmup: number('warmup', values.warmup, 2, { min: 0, integer: false }),
    concurrency: number('concurrency', values.concurrency, 16),
    batch: number('batch', values.batch, 200),
    auth: !(values['no-auth'] ?? false),
    spansPerTrace: number('spans-per-trace', values['spans-per-trace'], 5, { min: 2 }),
    pool: number('pool', values.pool, 32),
    floorSeconds: Math.min(number('floor-seconds', values['floor-seconds'], seconds, { integer: false }), 600),
    floorBatch: number('floor-batch', values['floor-batch'], 5000),
    postgres: values.postgres ?? null,
    sqliteFile: values['sqlite-file'] ? path.resolve(values['sqlite-file']) : null,
    postgresDatabase: values['postgres-database'] ?? null,
    serverEnv,
    nodeArgs: values['node-arg'] ?? [],
    cpuProf: values['cpu-prof'] ?? false,
    skipBuild: values['skip-build'] ?? false,
    skipFloor: values['skip-floor'] ?? false,
    keep: values.keep ?? false,
    out: values.out ?? null,
    note: values.note ?? null,
  };
}

// ---------------------------------------------------------------------------------------------

const mb = (kb: number) => kb / 1024;

/** Spans in a SQLite file (read-only connection). */
function countSqliteSpans(file: string): number {
  const connection = new SQLite(file, { readonly: true });
  try {
    return Number(connection.prepare('SELECT count(*) FROM spans').pluck().get());
  } finally {
    connection.close();
  }
}

/** Decodes patched bodies with the server's code and checks ids are fresh and the shape is right. */
function checkBodies(pool: BodyTemplate[]): void {
  const patcher = new IdPatcher();
  const seen = new Set<string>();
  for (const template of pool.slice(0, 2)) {
    for (let copy = 0; copy < 2; copy++) {
      const rows = toSpanRows(decodeProtobufExport(patcher.next(template)));
      if (rows.length !== template.spans) throw new Error(`body decodes to ${rows.length} spans, expected ${template.spans}`);
      const byId = new Map(rows.map((row) => [row.spanId, row]));
      for (const row of rows) {
        if (seen.has(row.spanId)) throw new Error(`span id ${row.spanId} repeats across requests`);
        seen.add(row.spanId);
        if (row.parentId !== null && byId.get(row.parentId)?.traceId !== row.traceId)
          throw new Error('child span points outside its trace');
        if (row.spanKind === 'LLM' && row.tokenCountTotal === null) throw new Error('LLM span without token counts');
      }
    }
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const resultsDir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const outFile = options.out ? path.resolve(options.out) : path.join(resultsDir, `ingest-${stamp}.json`);
  const dialect = options.postgres ? 'postgres' : 'sqlite';

  // Everything below is bounded: a watchdog ends the run (and the server) if anything hangs.
  const budgetMs = (300 + 2 * options.warmup + options.seconds + options.floorSeconds) * 1000;
  let server: ServerProcess | null = null;
  const cleanups: Array<() => Promise<void> | void> = [];
  const cleanup = async () => {
    while (cleanups.length > 0) await Promise.resolve(cleanups.pop()!()).catch((error) => log(`cleanup: ${(error as Error).message}`));
  };
  const abort = (reason: string, code: number) => {
    log(`${reason}: stopping`);
    try {
      if (server) process.kill(server.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    const force = setTimeout(() => process.exit(code), 20_000);
    void cleanup().finally(() => {
      clearTimeout(force);
      process.exit(code);
    });
  };
  const watchdog = setTimeout(() => abort(`time budget of ${budgetMs / 1000} s exceeded`, 2), budgetMs);
  const onSignal = (signal: NodeJS.Signals) => abort(signal, 130);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    if (!options.skipBuild) buildServer();

    log(`encoding ${options.pool} bodies of ${options.batch} spans`);
    const pool = buildBodyPool({ size: options.pool, batch: options.batch, spansPerTrace: options.spansPerTrace });
    checkBodies(pool);
    const bodyBytes = pool.reduce((sum, body) => sum + body.bytes.length, 0) / pool.length;
    const attributeBytes = pool.reduce((sum, body) => sum + body.attributeBytesPerSpan, 0) / pool.length;
    const llmShare = pool.reduce((sum, body) => sum + body.llmSpans / body.spans, 0) / pool.length;
    log(
      `body ${(bodyBytes / 1024).toFixed(0)} KiB, ${attributeBytes.toFixed(0)} B of attribute JSON per span, ${(llmShare * 100).toFixed(0)}% LLM spans`,
    );

    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-'));
    cleanups.push(() => {
      if (options.keep) log(`kept ${workDir}`);
      else fs.rmSync(workDir, { recursive: true, force: true });
    });
    let serverDb: ScratchDatabase | null = null;
    let floorDb: ScratchDatabase | null = null;
    let postgresSettings: Record<string, string> | null = null;
    if (options.postgres) {
      postgresSettings = await describeServer(options.postgres);
      if (options.postgresDatabase !== null) {
        serverDb = { name: options.postgresDatabase, url: databaseUrl(options.postgres, options.postgresDatabase), drop: async () => {} };
      } else {
        serverDb = await createScratchDatabase(options.postgres, 'server');
        const dropServerDb = serverDb;
        cleanups.push(() => {
          if (!options.keep) return dropServerDb.drop();
          log(`kept database ${dropServerDb.name}`);
        });
      }
      if (!options.skipFloor) {
        floorDb = await createScratchDatabase(options.postgres, 'floor');
        const dropFloorDb = floorDb;
        cleanups.push(() => {
          if (!options.keep) return dropFloorDb.drop();
          log(`kept database ${dropFloorDb.name}`);
        });
      }
    }

    // ---- server phase
    if (options.sqliteFile && options.postgres) throw new Error('--sqlite-file and --postgres exclude each other');
    if (options.sqliteFile && !fs.existsSync(options.sqliteFile)) throw new Error(`--sqlite-file: ${options.sqliteFile} does not exist`);
    const spansBefore = options.sqliteFile
      ? countSqliteSpans(options.sqliteFile)
      : options.postgresDatabase !== null
        ? await countSpans(serverDb!.url)
        : 0;
    if (options.sqliteFile) log(`ingesting into ${options.sqliteFile}, which holds ${spansBefore} spans`);
    if (options.postgresDatabase !== null) log(`ingesting into database ${options.postgresDatabase}, which holds ${spansBefore} spans`);
    const port = await freePort();
    let grpcPort = await freePort();
    while (grpcPort === port) grpcPort = await freePort();
    const serverDir = path.join(workDir, 'server');
    fs.mkdirSync(serverDir);
    const profileDir = options.cpuProf ? path.join(resultsDir, `ingest-${stamp}-profile`) : null;
    if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
    log(`starting the server (${dialect}) on 127.0.0.1:${port}`);
    server = await startServerProcess({
      root: ROOT,
      port,
      logFile: path.join(workDir, 'server.log'),
      cpuProfileDir: profileDir,
      nodeArgs: options.nodeArgs,
      startTimeoutMs: 60_000,
      env: {
        SERVICE_HOST: '127.0.0.1',
        SERVICE_PORT: String(port),
        SERVICE_GRPC_PORT: String(grpcPort),
        SERVICE_WORKING_DIR: serverDir,
        SERVICE_LOG_LEVEL: 'warn',
        SERVICE_ENABLE_AUTH: options.auth ? 'true' : 'false',
        ...(options.auth ? { SERVICE_SECRET: BENCH_SECRET, SERVICE_DISABLE_RATE_LIMIT: 'true' } : {}),
        ...(serverDb ? { SERVICE_SQL_DATABASE_URL: serverDb.url } : {}),
        ...(options.sqliteFile ? { SERVICE_SQL_DATABASE_URL: `sqlite:${options.sqliteFile}` } : {}),
        ...options.serverEnv,
      },
    });
    const running = server;
    cleanups.push(async () => {
      await running.stop(10_000);
    });
    const headers = options.auth ? { authorization: `Bearer ${await systemKey(running.url)}` } : undefined;
    const idle = running.sample();
    const poll = setInterval(() => running.sample(), 100);

    log(
      `load: ${options.concurrency} clients, ${options.batch} spans/request, ${options.warmup} s warm-up + ${options.seconds} s measured`,
    );
    let serverCpuStart = 0;
    // Bytes the server made the disk write (WAL, checkpoints): the write amplification of its indexes.
    let writeBytesStart = 0;
    let writeBytes = NaN;
    let serverCpuSeconds = NaN;
    let loadCpuStart = process.cpuUsage();
    let loadCpu = { user: 0, system: 0 };
    let machineStart = 0;
    let machineSeconds = NaN;
    // Which threads the server's CPU goes to: main (requests), writer, compression, the rest.
    let threadsStart: ThreadSample = { seconds: new Map() };
    let threads = { main: NaN, busiest: [] as number[], rest: NaN };
    // PostgreSQL's own processes (when local): their CPU is part of the system under test, not noise.
    const postgresCpu = () => (dialect === 'postgres' ? readCpuByCommand('postgres') : new Map<number, number>());
    let postgresStart = new Map<number, number>();
    let postgresSeconds = 0;
    const load: LoadResult = await runLoad({
      host: '127.0.0.1',
      port,
      path: '/v1/traces',
      headers,
      concurrency: options.concurrency,
      pool,
      patcher: new IdPatcher(),
      warmupMs: options.warmup * 1000,
      durationMs: options.seconds * 1000,
      requestTimeoutMs: 60_000,
      onWindow: (edge) => {
        if (edge === 'start') {
          serverCpuStart = readProcCpuSeconds(running.pid) ?? NaN;
          writeBytesStart = readProcWriteBytes(running.pid) ?? NaN;
          loadCpuStart = process.cpuUsage();
          machineStart = readMachineBusySeconds();
          postgresStart = postgresCpu();
          threadsStart = sampleThreads(running.pid);
        } else {
          threads = busiestThreadsBetween(running.pid, threadsStart, sampleThreads(running.pid), 3);
          serverCpuSeconds = (readProcCpuSeconds(running.pid) ?? NaN) - serverCpuStart;
          writeBytes = (readProcWriteBytes(running.pid) ?? NaN) - writeBytesStart;
          loadCpu = process.cpuUsage(loadCpuStart);
          machineSeconds = readMachineBusySeconds() - machineStart;
          postgresSeconds = cpuBetween(postgresStart, postgresCpu());
        }
      },
    });
    clearInterval(poll);
    // Both databases index search words behind ingest: how far behind the load left them, and how long they took to catch up.
    const searchLag = serverDb ? await measureSearchLag(serverDb.url) : null;
    const sqliteSearchLag =
      serverDb || options.serverEnv.SERVICE_FULL_TEXT_SEARCH === 'false'
        ? null
        : await measureSqliteSearchLag(options.sqliteFile ?? path.join(serverDir, 'sightline.db'));
    const final = running.sample();
    const peakRssKb = final?.hwmKb ?? running.last?.hwmKb ?? NaN;
    log('stopping the server');
    const exit = await running.stop(60_000);
    server = null;
    if (exit.killed || exit.code !== 0) log(`server exit: ${JSON.stringify(exit)}\n${running.logTail()}`);
    const serverErrors = running
      .logTail(1000)
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line)).length;

    let storedSpans: number;
    let databaseBytes = 0;
    let indexes: string[];
    if (serverDb) {
      storedSpans = (await countSpans(serverDb.url)) - spansBefore;
      indexes = await listIndexes(serverDb.url);
    } else {
      const file = options.sqliteFile ?? path.join(serverDir, 'sightline.db');
      const connection = new SQLite(file, { readonly: true });
      storedSpans = Number(connection.prepare('SELECT count(*) FROM spans').pluck().get()) - spansBefore;
      indexes = connection
        .prepare(`SELECT tbl_name || '.' || name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('spans', 'traces') ORDER BY 1`)
        .pluck()
        .all() as string[];
      connection.close();
      databaseBytes = fileSize(file) + fileSize(`${file}-wal`);
    }

    const windowS = load.windowMs / 1000;
    const ingestRate = load.okSpans / windowS;
    const non200Total = Object.values(load.non200).reduce((sum, count) => sum + count, 0);
    const windowSeconds = options.seconds;
    const ingest = {
      spansPerSecond: round(ingestRate, 0),
      requestsPerSecond: round(load.okRequests / windowS, 1),
      okRequests: load.okRequests,
      okSpans: load.okSpans,
      latencyMs: {
        p50: round(percentile(load.latenciesMs, 0.5), 1),
        p90: round(percentile(load.latenciesMs, 0.9), 1),
        p99: round(percentile(load.latenciesMs, 0.99), 1),
        max: round(load.latenciesMs.at(-1) ?? NaN, 1),
        mean: round(load.latenciesMs.reduce((sum, ms) => sum + ms, 0) / Math.max(load.latenciesMs.length, 1), 1),
      },
      non200: load.non200,
      non200Total,
      serverPeakRssMB: round(mb(peakRssKb), 0),
      serverMaxSampledRssMB: round(mb(running.maxRssKb), 0),
      serverIdleRssMB: round(mb(idle?.rssKb ?? NaN), 0),
      serverCpuCores: round(serverCpuSeconds / windowSeconds, 2),
      /** Cores of the server's main thread and of its three busiest other threads (the writer and compression threads first). */
      serverThreadCores: {
        main: round(threads.main / windowSeconds, 2),
        busiest: threads.busiest.map((seconds) => round(seconds / windowSeconds, 2)),
        rest: round(threads.rest / windowSeconds, 2),
      },
      /** Server CPU per acknowledged span in the window, µs (both threads). */
      serverCpuUsPerSpan: round((serverCpuSeconds * 1e6) / Math.max(load.okSpans, 1), 1),
      /** Bytes written to disk by the server per acknowledged span in the window (SQLite; PostgreSQL writes in its own processes). */
      diskWriteBytesPerSpan: dialect === 'sqlite' ? round(writeBytes / Math.max(load.okSpans, 1), 0) : null,
      loadGeneratorCpuCores: round((loadCpu.user + loadCpu.system) / 1e6 / windowSeconds, 2),
      /** CPU of local PostgreSQL processes during the window (postgres dialect only). */
      postgresCpuCores: dialect === 'postgres' ? round(postgresSeconds / windowSeconds, 2) : null,
      /** CPU used by everything else on the machine during the window: should be near 0. */
      otherCpuCores: round(
        Math.max(0, machineSeconds - serverCpuSeconds - postgresSeconds - (loadCpu.user + loadCpu.system) / 1e6) / windowSeconds,
        2,
      ),
      connectionsOpened: load.connections,
      totalRequests: load.totalRequests,
      acknowledgedSpans: load.acknowledgedSpans,
      unknownFateSpans: load.unknownSpans,
      storedSpans,
      storedMatchesAcknowledged: storedSpans >= load.acknowledgedSpans && storedSpans <= load.acknowledgedSpans + load.unknownSpans,
      /** PostgreSQL: spans whose words waited for the search index when the load stopped, and the seconds until none did (null: not measured). */
      searchLag,
      /** SQLite: spans with indexed words when the load stopped and in the end, and the seconds until the index last grew (null: not measured). */
      sqliteSearchLag,
      databaseBytesPerSpan: databaseBytes > 0 ? round(databaseBytes / Math.max(storedSpans + spansBefore, 1), 0) : null,
      serverErrorLogLines: serverErrors,
      serverExit: exit,
    };

    // ---- floor phase (server stopped: the floor has the machine to itself)
    let floor: FloorResult | null = null;
    let floorOtherCpuCores = NaN;
    let floorPostgresCpuCores: number | null = null;
    if (!options.skipFloor) {
      const target: FloorTarget = floorDb
        ? { dialect: 'postgres', url: floorDb.url }
        : { dialect: 'sqlite', file: path.join(workDir, 'floor', 'floor.db') };
      log(
        `floor: decode + insert in one thread, batches of ${options.floorBatch}, ${options.warmup} s warm-up + ${options.floorSeconds} s`,
      );
      const floorCpuStart = process.cpuUsage();
      const floorMachineStart = readMachineBusySeconds();
      const floorPostgresStart = postgresCpu();
      const floorStarted = performance.now();
      floor = await measureFloor({
        target,
        pool,
        patcher: new IdPatcher(),
        warmupMs: options.warmup * 1000,
        durationMs: options.floorSeconds * 1000,
        batchSpans: options.floorBatch,
      });
      const floorWallSeconds = (performance.now() - floorStarted) / 1000;
      const ownCpu = process.cpuUsage(floorCpuStart);
      const floorPostgresSeconds = cpuBetween(floorPostgresStart, postgresCpu());
      floorPostgresCpuCores = dialect === 'postgres' ? round(floorPostgresSeconds / floorWallSeconds, 2) : null;
      floorOtherCpuCores = round(
        Math.max(0, readMachineBusySeconds() - floorMachineStart - floorPostgresSeconds - (ownCpu.user + ownCpu.system) / 1e6) /
          floorWallSeconds,
        2,
      );
      if (floor.storedSpans !== floor.committedSpans) log(`floor: stored ${floor.storedSpans} spans but committed ${floor.committedSpans}`);
    }
    const ratio = floor ? ingestRate / floor.spansPerSecond : null;
    let lean: FloorResult | null = null;
    if (!options.skipFloor && !floorDb) {
      log(`lean floor: decode + insert into one lean table, batches of ${options.floorBatch}`);
      lean = await measureFloor({
        target: { dialect: 'sqlite', file: path.join(workDir, 'lean', 'lean.db'), lean: true },
        pool,
        patcher: new IdPatcher(),
        warmupMs: options.warmup * 1000,
        durationMs: options.floorSeconds * 1000,
        batchSpans: options.floorBatch,
      });
    }
    const leanRatio = lean ? ingestRate / lean.spansPerSecond : null;

    // ---- report
    const errorsText =
      non200Total === 0
        ? 'errors 0'
        : `errors ${non200Total} (${Object.entries(load.non200)
            .map(([status, count]) => `${status}×${count}`)
            .join(', ')})`;
    const lines = [
      '',
      `ingest  spans/s ${ingest.spansPerSecond}  p50 ${ingest.latencyMs.p50.toFixed(1)} ms  p99 ${ingest.latencyMs.p99.toFixed(1)} ms  ${errorsText}  server peak RSS ${ingest.serverPeakRssMB} MB`,
    ];
    if (floor) {
      lines.push(`floor   spans/s ${round(floor.spansPerSecond, 0)} (decode + insert, one thread, batches of ${options.floorBatch})`);
      lines.push(`ratio   ${ratio!.toFixed(2)}  (target >= ${TARGET_RATIO})`);
    }
    if (lean) {
      lines.push(
        `lean    spans/s ${round(lean.spansPerSecond, 0)} (decode + insert into a lean table: primary key, trace-id and start-time indexes)`,
      );
      lines.push(`ratio   ${leanRatio!.toFixed(2)} of the lean floor  (target >= ${TARGET_LEAN_RATIO})`);
    }
    lines.push(
      '',
      `  ${dialect}, ${options.concurrency} clients × ${options.batch} spans/request, ${options.seconds} s measured after ${options.warmup} s warm-up; ` +
        `${(bodyBytes / 1024).toFixed(0)} KiB bodies, ~${attributeBytes.toFixed(0)} B attributes/span`,
      `  requests ${ingest.okRequests} ok (${ingest.requestsPerSecond}/s), latency p90 ${ingest.latencyMs.p90} ms, max ${ingest.latencyMs.max} ms; ` +
        `${ingest.connectionsOpened} connections opened`,
      `  server CPU ${ingest.serverCpuCores} cores, load generator ${ingest.loadGeneratorCpuCores}, ` +
        (ingest.postgresCpuCores !== null ? `PostgreSQL ${ingest.postgresCpuCores}, ` : '') +
        `other processes ${ingest.otherCpuCores} (machine: ${os.cpus().length} cores); ` +
        `server CPU ${ingest.serverCpuUsPerSpan} µs/span` +
        (ingest.diskWriteBytesPerSpan !== null ? `, disk writes ${ingest.diskWriteBytesPerSpan} B/span; ` : '; ') +
        `server RSS idle ${ingest.serverIdleRssMB} MB, peak ${ingest.serverPeakRssMB} MB`,
      `  server threads (cores): main ${ingest.serverThreadCores.main}, busiest others ${ingest.serverThreadCores.busiest.join(' / ')}, ` +
        `rest ${ingest.serverThreadCores.rest}`,
      `  stored ${storedSpans} spans for ${load.acknowledgedSpans} acknowledged: ${ingest.storedMatchesAcknowledged ? 'OK' : 'MISMATCH'}` +
        (ingest.databaseBytesPerSpan ? `; ${ingest.databaseBytesPerSpan} B on disk per span` : ''),
    );
    if (searchLag) {
      lines.push(
        `  search index: ${searchLag.queuedAtEnd} spans' words queued when the load stopped; ` +
          (searchLag.drainSeconds === null ? 'still queued after 300 s' : `indexed ${searchLag.drainSeconds} s later`),
      );
    }
    if (sqliteSearchLag) {
      lines.push(
        `  search index: ${sqliteSearchLag.indexedAtEnd} spans' words indexed when the load stopped; ${sqliteSearchLag.indexed} ` +
          (sqliteSearchLag.drainSeconds === null
            ? 'with ranges still to index after 300 s'
            : `in the end, the last ${sqliteSearchLag.drainSeconds} s later`),
      );
    }
    if (floor) {
      lines.push(
        `  floor: ${floor.spans} spans in ${floor.commits} commits; decode ${((floor.decodeMs * 1000) / floor.spans).toFixed(1)} µs/span, ` +
          `insert ${((floor.insertMs * 1000) / floor.spans).toFixed(1)} µs/span` +
          (floorPostgresCpuCores !== null ? `; PostgreSQL CPU ${floorPostgresCpuCores} cores` : '') +
          `; other processes ${floorOtherCpuCores} cores`,
      );
    }
    if (lean) {
      lines.push(
        `  lean floor: decode ${((lean.decodeMs * 1000) / lean.spans).toFixed(1)} µs/span, insert ${((lean.insertMs * 1000) / lean.spans).toFixed(1)} µs/span`,
      );
    }
    lines.push(`  ${indexes.length} indexes on spans/traces: ${indexes.map((name) => name.replace(/^(spans|traces)\./, '')).join(', ')}`);
    if (postgresSettings) lines.push(`  PostgreSQL ${JSON.stringify(postgresSettings)}`);
    const busy = Math.max(ingest.otherCpuCores, floor ? floorOtherCpuCores : 0);
    if (busy > 0.15) {
      lines.push(
        `  WARNING: other processes used up to ${busy} cores during the measurement; the figures are disturbed, run again on a quiet machine`,
      );
    }
    if (serverErrors > 0) lines.push(`  the server logged ${serverErrors} error lines (see --keep and server.log)`);
    process.stdout.write(`${lines.join('\n')}\n`);

    const profiles: string[] = [];
    if (profileDir) {
      for (const name of fs
        .readdirSync(profileDir)
        .filter((file) => file.endsWith('.cpuprofile'))
        .sort()) {
        const file = path.join(profileDir, name);
        profiles.push(path.relative(ROOT, file));
        process.stdout.write(`\n${formatProfile(file, 20, ROOT)}\n`);
      }
    }

    const result = {
      benchmark: 'ingest',
      timestamp: new Date().toISOString(),
      machine: machine(),
      dialect,
      postgres: postgresSettings,
      source: sourceState(),
      spanAndTraceIndexes: indexes,
      options: { ...options, postgres: options.postgres ? redact(options.postgres) : null },
      workload: {
        bodyBytes: round(bodyBytes, 0),
        attributeBytesPerSpan: round(attributeBytes, 0),
        llmSpanShare: round(llmShare, 2),
        contentType: 'application/x-protobuf',
      },
      ingest,
      floor: floor
        ? {
            spansPerSecond: round(floor.spansPerSecond, 0),
            spans: floor.spans,
            commits: floor.commits,
            batchSpans: options.floorBatch,
            decodeUsPerSpan: round((floor.decodeMs * 1000) / floor.spans, 2),
            insertUsPerSpan: round((floor.insertMs * 1000) / floor.spans, 2),
            storedSpans: floor.storedSpans,
            committedSpans: floor.committedSpans,
            otherCpuCores: floorOtherCpuCores,
            postgresCpuCores: floorPostgresCpuCores,
          }
        : null,
      ratio: ratio === null ? null : round(ratio, 3),
      targetRatio: TARGET_RATIO,
      leanFloor: lean
        ? {
            spansPerSecond: round(lean.spansPerSecond, 0),
            decodeUsPerSpan: round((lean.decodeMs * 1000) / lean.spans, 2),
            insertUsPerSpan: round((lean.insertMs * 1000) / lean.spans, 2),
            storedSpans: lean.storedSpans,
            committedSpans: lean.committedSpans,
          }
        : null,
      leanRatio: leanRatio === null ? null : round(leanRatio, 3),
      targetLeanRatio: TARGET_LEAN_RATIO,
      profiles,
    };
    fs.mkdirSync(path.dirname(outFile), { recursive: true });
    fs.writeFileSync(outFile, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`\nresult written to ${path.relative(ROOT, outFile)}\n`);
    return ingest.storedMatchesAcknowledged ? 0 : 1;
  } finally {
    clearTimeout(watchdog);
    await cleanup();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const usage =
      error instanceof Error &&
      (String((error as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS') || error.message.startsWith('--'));
    const text = error instanceof Error ? (usage ? `${error.message} (see --help)` : (error.stack ?? error.message)) : String(error);
    process.stderr.write(`bench:ingest failed: ${text}\n`);
    process.exit(1);
  },
);
