/**
 * Export benchmark: the memory and speed of a whole project exported through HTTP (docs/export.md,
 * docs/performance.md "Export"). A database of N spans (default 1,000,000, all in one project),
 * the built server on it in a child process, and one `GET …/spans/export?format=parquet` read to a
 * file, while the server's RSS is sampled from /proc/<pid>/status every 100 ms. The floor is the
 * same server's RSS idle just before (the ratio: peak over idle); the target is peak RSS < 300 MB.
 *
 *   npm run bench:export -- [--spans 1000000] [--reuse FILE|NAME] [--postgres URL] [--format parquet] [--target spans]
 *
 * See `--help`.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import { asyncBufferFromFile, parquetMetadataAsync } from 'hyparquet';
import pg from 'pg';
import { COST_WATERMARK } from '../../packages/server/src/costs/costs-service.js';
import { createScratchDatabase, describeServer, keptDatabase } from '../ingest/postgres.js';
import { freePort, readProcCpuSeconds, startServerProcess, type ServerProcess } from '../ingest/server-process.js';
import { MAIN_PROJECT } from '../query/dataset.js';
import { loadCorpus, loadSqliteOnce, type LoadResult, type Target } from '../query/load.js';
import { ROOT, buildServer, log, machine, parseServerEnv, redact, round, sourceState } from '../shared.js';

const TARGET_PEAK_RSS_MB = 300;

const HELP = `Usage: npm run bench:export -- [options]

Loads N spans into a fresh database with bench:query's loader (every trace in the project
${MAIN_PROJECT}, so the export holds every span), starts the built server on it in a child
process, waits until the cost job has priced the loaded spans, samples the idle server's RSS,
then reads one export of the project through HTTP into a file while sampling the server's RSS
every 100 ms. Prints rows, seconds, rows/s, MB/s, peak RSS, idle RSS and their ratio, and
checks the file (Parquet: its footer's row count, read by hyparquet).

Options:
  --spans N          spans to load (default 1000000)
  --batch N          spans per insert transaction (default 20000)
  --seed N           corpus seed (default 1)
  --reuse FILE       SQLite file to reuse: loaded on the first run, reused as is afterwards; with
                     --postgres, the name of a database kept on that server
  --postgres URL     use PostgreSQL (a scratch database through URL unless --reuse)
  --format F         parquet (default), csv or jsonl
  --target T         spans (default) or traces
  --filter TEXT      a span condition for the export (default none)
  --project NAME     the project exported (default ${MAIN_PROJECT})
  --idle-seconds N   seconds the idle RSS is sampled (default 10)
  --server-env K=V   extra environment for the server (repeatable), e.g.
                     --server-env SERVICE_FULL_TEXT_SEARCH=false
  --skip-build       do not run tsc -b packages/cli first
  --keep             keep the temp directory (and the exported file) / scratch database
  --out FILE         JSON result path (default bench/results/export-<timestamp>.json)
  --note TEXT        free text stored in the JSON result
  -h, --help         this text

Exit status 1 when peak RSS reaches ${TARGET_PEAK_RSS_MB} MB, the file is not whole, or the server logged errors.
`;

interface Options {
  spans: number;
  batch: number;
  seed: number;
  reuse: string | null;
  postgres: string | null;
  format: 'parquet' | 'csv' | 'jsonl';
  target: 'spans' | 'traces';
  filter: string | null;
  project: string;
  idleSeconds: number;
  serverEnv: Record<string, string>;
  skipBuild: boolean;
  keep: boolean;
  out: string | null;
  note: string | null;
}

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      spans: { type: 'string' },
      batch: { type: 'string' },
      seed: { type: 'string' },
      reuse: { type: 'string' },
      postgres: { type: 'string' },
      format: { type: 'string' },
      target: { type: 'string' },
      filter: { type: 'string' },
      project: { type: 'string' },
      'idle-seconds': { type: 'string' },
      'server-env': { type: 'string', multiple: true },
      'skip-build': { type: 'boolean' },
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
  const number = (name: string, value: string | undefined, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER) => {
    if (value === undefined) return fallback;
    const parsed = Number(value.replace(/_/g, ''));
    if (!Number.isInteger(parsed) || parsed < min || parsed > max)
      throw new Error(`--${name}: expected a whole number from ${min} to ${max}, got "${value}"`);
    return parsed;
  };
  const format = values.format ?? 'parquet';
  if (format !== 'parquet' && format !== 'csv' && format !== 'jsonl') throw new Error('--format: parquet, csv or jsonl');
  const target = values.target ?? 'spans';
  if (target !== 'spans' && target !== 'traces') throw new Error('--target: spans or traces');
  if (values.postgres !== undefined && !/^postgres(ql)?:\/\//i.test(values.postgres))
    throw new Error('--postgres: expected a postgresql://user@host:port/database URL');
  return {
    spans: number('spans', values.spans, 1_000_000, 1000, 50_000_000),
    batch: number('batch', values.batch, 20_000, 100, 1_000_000),
    seed: number('seed', values.seed, 1, 0),
    reuse: values.reuse ? (values.postgres === undefined ? path.resolve(values.reuse) : values.reuse) : null,
    postgres: values.postgres ?? null,
    format,
    target,
    filter: values.filter ?? null,
    project: values.project ?? MAIN_PROJECT,
    idleSeconds: number('idle-seconds', values['idle-seconds'], 10, 1, 600),
    serverEnv: parseServerEnv(values['server-env']),
    skipBuild: values['skip-build'] ?? false,
    keep: values.keep ?? false,
    out: values.out ?? null,
    note: values.note ?? null,
  };
}

/** Queries of the loaded database: how many rows the export should hold, whether the cost job is done. */
interface Probe {
  rows(project: string, target: 'spans' | 'traces'): Promise<number>;
  /** The newest span row id and the cost job's watermark. */
  costProgress(): Promise<{ maxId: number; watermark: number }>;
  close(): Promise<void>;
}

async function openProbe(target: Target): Promise<Probe> {
  const rowsSql = (table: string, p: string) =>
    `SELECT count(*) AS n FROM ${table} WHERE project_id = (SELECT id FROM projects WHERE name = ${p})`;
  if (target.dialect === 'sqlite') {
    const connection = new SQLite(target.file, { readonly: true });
    return {
      rows: async (project, table) => Number(connection.prepare(rowsSql(table, '?')).pluck().get(project)),
      costProgress: async () => ({
        maxId: Number(connection.prepare('SELECT coalesce(max(id), 0) FROM spans').pluck().get()),
        watermark: Number(connection.prepare('SELECT value FROM job_state WHERE name = ?').pluck().get(COST_WATERMARK) ?? 0),
      }),
      close: async () => {
        connection.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  return {
    rows: async (project, table) => Number((await client.query<{ n: string }>(rowsSql(table, '$1'), [project])).rows[0]!.n),
    costProgress: async () => ({
      maxId: Number((await client.query<{ n: string }>('SELECT coalesce(max(id), 0) AS n FROM spans')).rows[0]!.n),
      watermark: Number(
        (await client.query<{ value: string }>('SELECT value FROM job_state WHERE name = $1', [COST_WATERMARK])).rows[0]?.value ?? 0,
      ),
    }),
    close: async () => {
      await client.end();
    },
  };
}

/** RSS samples of the server every 100 ms while `work` runs. */
async function sampled<T>(server: ServerProcess, work: () => Promise<T>): Promise<{ value: T; rssMb: number[] }> {
  const rssMb: number[] = [];
  const take = () => {
    const status = server.sample();
    if (status) rssMb.push(status.rssKb / 1024);
  };
  take();
  const timer = setInterval(take, 100);
  try {
    const value = await work();
    take();
    return { value, rssMb };
  } finally {
    clearInterval(timer);
  }
}

/** Reads the export into `file`: status, headers, bytes, seconds to the first and to the last byte. */
function download(url: string, file: string): Promise<{ status: number; type: string; bytes: number; firstByteMs: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.get(url, { agent: false }, (response) => {
      const firstByteMs = performance.now() - started;
      let bytes = 0;
      const out = fs.createWriteStream(file);
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.pipe(out);
      out.on('finish', () =>
        resolve({
          status: response.statusCode ?? 0,
          type: String(response.headers['content-type'] ?? ''),
          bytes,
          firstByteMs,
          ms: performance.now() - started,
        }),
      );
      response.on('error', reject);
      out.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** Rows in the file: Parquet's footer, or the lines of CSV (less the header) and JSONL. */
async function rowsInFile(file: string, format: Options['format']): Promise<number> {
  if (format === 'parquet') {
    const buffer = await asyncBufferFromFile(file);
    return Number((await parquetMetadataAsync(buffer)).num_rows);
  }
  // A quoted CSV field may hold line breaks: count records the way a CSV reader does.
  let rows = 0;
  let quoted = false;
  for await (const chunk of fs.createReadStream(file)) {
    for (const byte of chunk as Buffer) {
      if (format === 'csv' && byte === 0x22) quoted = !quoted;
      else if (byte === 0x0a && !quoted) rows++;
    }
  }
  return format === 'csv' ? rows - 1 : rows;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const resultsDir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const outFile = options.out ? path.resolve(options.out) : path.join(resultsDir, `export-${stamp}.json`);
  const dialect = options.postgres ? 'postgres' : 'sqlite';
  let server: ServerProcess | null = null;
  const cleanups: Array<() => Promise<void> | void> = [];
  const cleanup = async () => {
    while (cleanups.length > 0) await Promise.resolve(cleanups.pop()!()).catch((error) => log(`cleanup: ${(error as Error).message}`));
  };
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping`);
    if (server) process.kill(server.pid, 'SIGKILL');
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    if (!options.skipBuild) buildServer();
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-export-'));
    cleanups.push(() => {
      if (options.keep) log(`kept ${workDir}`);
      else fs.rmSync(workDir, { recursive: true, force: true });
    });

    // ---- database: bench:query's corpus, every trace in one project
    const datasetOptions = {
      spans: options.spans,
      batchSpans: options.batch,
      days: 3,
      endMs: Date.now(),
      bigTraceShare: 1 / 800,
      seed: options.seed,
      projects: [{ name: MAIN_PROJECT, weight: 1 }],
    };
    let loaded = null as LoadResult | null;
    const load = async (loadTarget: Target, name: string) => {
      log(`loading ${options.spans} spans into ${name}`);
      loaded = await loadCorpus(loadTarget, datasetOptions, log);
      log(
        `loaded ${loaded.stats.spans} spans in ${loaded.seconds.toFixed(0)} s, ${(loaded.databaseBytes / 2 ** 20).toFixed(0)} MiB on disk`,
      );
    };
    let target: Target;
    let postgresSettings: Record<string, string> | null = null;
    if (options.postgres && options.reuse !== null) {
      postgresSettings = await describeServer(options.postgres);
      const kept = await keptDatabase(options.postgres, options.reuse, (url) =>
        load({ dialect: 'postgres', url }, `database ${options.reuse}`),
      );
      target = { dialect: 'postgres', url: kept.url };
    } else if (options.postgres) {
      postgresSettings = await describeServer(options.postgres);
      const scratch = await createScratchDatabase(options.postgres, 'export');
      cleanups.push(() => (options.keep ? log(`kept database ${scratch.name}`) : scratch.drop()));
      target = { dialect: 'postgres', url: scratch.url };
      await load(target, scratch.name);
    } else if (options.reuse !== null) {
      target = { dialect: 'sqlite', file: options.reuse };
      if (!fs.existsSync(options.reuse))
        await loadSqliteOnce(options.reuse, (loading) => load({ dialect: 'sqlite', file: loading }, loading));
      else log(`reusing ${options.reuse} (not loading; --spans and --seed are ignored)`);
    } else {
      target = { dialect: 'sqlite', file: path.join(workDir, 'data', 'sightline.db') };
      await load(target, target.file);
    }
    const probe = await openProbe(target);
    cleanups.push(() => probe.close());
    const expectedRows = await probe.rows(options.project, options.target);
    if (options.filter === null && expectedRows === 0) throw new Error(`project ${options.project} has no ${options.target}`);
    log(`${options.project}: ${expectedRows} ${options.target}`);

    // ---- server
    const port = await freePort();
    let grpcPort = await freePort();
    while (grpcPort === port) grpcPort = await freePort();
    const serverDir = path.join(workDir, 'server');
    fs.mkdirSync(serverDir, { recursive: true });
    const started = performance.now();
    server = await startServerProcess({
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
        SERVICE_ENABLE_AUTH: 'false',
        SERVICE_SQL_DATABASE_URL: target.dialect === 'sqlite' ? `sqlite:${target.file}` : target.url,
        ...options.serverEnv,
      },
    });
    const running = server;
    cleanups.push(async () => {
      await running.stop(15_000);
    });
    log(`server up in ${((performance.now() - started) / 1000).toFixed(1)} s (pid ${running.pid})`);

    // The cost job prices loaded spans after start (20,000 a second): the export is measured once it has caught up.
    for (;;) {
      const progress = await probe.costProgress();
      if (progress.watermark >= progress.maxId) break;
      log(`waiting for the cost job: ${progress.watermark} of ${progress.maxId} spans priced`);
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    }
    const idle = await sampled(running, () => new Promise((resolve) => setTimeout(resolve, options.idleSeconds * 1000)));
    const idleRssMb = median(idle.rssMb);
    log(`idle RSS: median ${idleRssMb.toFixed(1)} MB over ${options.idleSeconds} s`);

    // ---- the export
    const query = new URLSearchParams({ format: options.format, ...(options.filter ? { filter: options.filter } : {}) });
    const url = `${running.url}/v1/projects/${encodeURIComponent(options.project)}/${options.target}/export?${query}`;
    const file = path.join(workDir, `export.${options.format}`);
    const cpuBefore = readProcCpuSeconds(running.pid) ?? NaN;
    log(`GET ${url.slice(running.url.length)}`);
    const run = await sampled(running, () => download(url, file));
    const serverCpu = (readProcCpuSeconds(running.pid) ?? NaN) - cpuBefore;
    if (run.value.status !== 200) throw new Error(`export answered ${run.value.status}: ${fs.readFileSync(file, 'utf8').slice(0, 300)}`);
    const rows = await rowsInFile(file, options.format);
    const seconds = run.value.ms / 1000;
    const peakRssMb = Math.max(...run.rssMb);
    const stopped = await running.stop(15_000);
    const serverErrors = fs
      .readFileSync(path.join(workDir, 'server.log'), 'utf8')
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line));
    if (!options.keep) fs.rmSync(file, { force: true });

    const whole = options.filter !== null || rows === expectedRows;
    const pass = peakRssMb < TARGET_PEAK_RSS_MB && whole && serverErrors.length === 0;
    const result = {
      benchmark: 'export',
      at: new Date().toISOString(),
      dialect,
      database: target.dialect === 'sqlite' ? target.file : redact(target.url),
      postgres: postgresSettings,
      machine: machine(),
      source: sourceState(),
      loadAverage: os.loadavg().map((value) => round(value, 2)),
      options: { ...options, postgres: options.postgres ? redact(options.postgres) : null },
      load: loaded,
      export: {
        path: url.slice(running.url.length),
        contentType: run.value.type,
        rows,
        expectedRows: options.filter === null ? expectedRows : null,
        bytes: run.value.bytes,
        seconds: round(seconds, 2),
        firstByteMs: round(run.value.firstByteMs, 1),
        rowsPerSecond: Math.round(rows / seconds),
        mbPerSecond: round(run.value.bytes / 2 ** 20 / seconds, 1),
        serverCpuSeconds: round(serverCpu, 1),
        serverCpuCores: round(serverCpu / seconds, 2),
      },
      rss: {
        idleMedianMb: round(idleRssMb, 1),
        idleMaxMb: round(Math.max(...idle.rssMb), 1),
        peakMb: round(peakRssMb, 1),
        peakOverIdle: round(peakRssMb / idleRssMb, 2),
        samples: run.rssMb.length,
        targetMb: TARGET_PEAK_RSS_MB,
      },
      serverExit: stopped,
      serverErrors: serverErrors.slice(0, 10),
      pass,
      note: options.note,
    };
    fs.writeFileSync(outFile, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      [
        `export of ${options.project} (${options.target}, ${options.format}, ${dialect}): ${rows} rows${whole ? '' : ` (expected ${expectedRows})`}, ` +
          `${(run.value.bytes / 2 ** 20).toFixed(1)} MiB in ${seconds.toFixed(1)} s: ${result.export.rowsPerSecond} rows/s, ` +
          `${result.export.mbPerSecond} MiB/s, first byte after ${result.export.firstByteMs} ms, server CPU ${result.export.serverCpuCores} cores`,
        `server RSS: peak ${result.rss.peakMb} MB (target < ${TARGET_PEAK_RSS_MB} MB: ${peakRssMb < TARGET_PEAK_RSS_MB ? 'PASS' : 'FAIL'}), ` +
          `idle ${result.rss.idleMedianMb} MB (floor): ratio ${result.rss.peakOverIdle}`,
        `errors logged by the server: ${serverErrors.length}`,
        `result: ${outFile}`,
        '',
      ].join('\n'),
    );
    return pass ? 0 : 1;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    log(`failed: ${(error as Error).stack ?? error}`);
    process.exit(2);
  },
);
