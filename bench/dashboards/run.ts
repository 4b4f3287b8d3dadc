/**
 * Dashboard benchmark (docs/dashboards.md, docs/performance.md "Dashboards"): loads bench/query's
 * corpus (N spans over D days, committed with the server's own SqliteSpanStore or
 * PostgresSpanWriter, so the per-minute rollups are written by the ingest code), starts the built
 * server on it, and times the data of the project's default dashboard over the last 7 days
 * (hourly buckets) through HTTP: every widget's POST /v1/dashboards/query at once, as the page
 * sends them, R times; against the floor of GET /healthz in the same run. With --ingest-ab N it
 * first loads N spans into fresh SQLite files with and without the rollups, alternating, to
 * measure what they cost the writer.
 *
 *   npm run bench:dashboards -- [--spans 1000000] [--days 7] [--runs 50] [--reuse FILE] [--postgres URL] [--ingest-ab 200000]
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import SQLite from 'better-sqlite3';
import { openDatabase, openSqlite } from '../../packages/server/src/db/database.js';
import { migrateToLatest } from '../../packages/server/src/db/migrate.js';
import { SqliteSpanStore } from '../../packages/server/src/db/writer/span-writes-sqlite.js';
import { createScratchDatabase, keptDatabase } from '../ingest/postgres.js';
import { freePort, startServerProcess, type ServerProcess } from '../ingest/server-process.js';
import { MAIN_PROJECT, SpanCorpus } from '../query/dataset.js';
import { distribution, type Distribution } from '../query/http-client.js';
import { loadCorpus, loadSqliteOnce, type Target } from '../query/load.js';
import { ROOT, buildServer, log, machine, round, sourceState } from '../shared.js';

/** The target of issue 33: the data of a 7-day, six-widget dashboard (hourly) in p50 < 300 ms. */
const TARGET_P50_MS = 300;

const HELP = `Usage: npm run bench:dashboards -- [options]

  --spans N        spans to load (default 1000000)
  --days N         days the corpus spans, ending now (default 7)
  --runs N         measured dashboard loads (default 50), after 5 unmeasured ones
  --reuse FILE     SQLite file to reuse (loaded on the first run); with --postgres, a database name
  --postgres URL   use PostgreSQL (a scratch database, dropped afterwards, unless --reuse)
  --ingest-ab N    first load N spans with and without rollups (SQLite, 3 rounds each, alternating)
  --skip-build     do not build the server first
  --out FILE       JSON result path (default bench/results/dashboards-<timestamp>.json)
  -h, --help       this text
`;

const { values } = parseArgs({
  options: {
    spans: { type: 'string' },
    days: { type: 'string' },
    runs: { type: 'string' },
    reuse: { type: 'string' },
    postgres: { type: 'string' },
    'ingest-ab': { type: 'string' },
    'skip-build': { type: 'boolean' },
    out: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const whole = (name: string, value: string | undefined, fallback: number) => {
  const parsed = value === undefined ? fallback : Number(value.replace(/_/g, ''));
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`--${name}: expected a whole number, got "${value}"`);
  return parsed;
};
const options = {
  spans: whole('spans', values.spans, 1_000_000),
  days: whole('days', values.days, 7),
  runs: whole('runs', values.runs, 50),
  ingestAb: whole('ingest-ab', values['ingest-ab'], 0),
  reuse: values.reuse ?? null,
  postgres: values.postgres ?? null,
};
const loadAverage = () => os.loadavg().map((value) => round(value, 2));
const round2 = (value: number) => Number(value.toPrecision(2));

/** POST with a JSON body on a keep-alive agent, timed to the last byte. */
function post(agent: http.Agent, base: URL, pathName: string, body: unknown): Promise<{ status: number; text: string; ms: number }> {
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.request(
      {
        host: base.hostname,
        port: base.port,
        path: pathName,
        method: body === undefined ? 'GET' : 'POST',
        agent,
        headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': payload.length },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body === undefined ? undefined : payload);
  });
}

/**
 * Loads `spans` into a fresh SQLite file with the writer's rollups on or off, their start times
 * spread over `days`; spans per second of the store.
 */
async function loadRate(file: string, spans: number, rollups: boolean, days: number): Promise<number> {
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  const database = openDatabase({ dialect: 'sqlite', url: file });
  await migrateToLatest(database);
  await database.close();
  const connection = openSqlite(file);
  const store = new SqliteSpanStore(connection, { rollups });
  const corpus = new SpanCorpus({ spans, batchSpans: 2000, days, endMs: Date.now(), bigTraceShare: 1 / 800, seed: 7 });
  let storeMs = 0;
  for (let rows = corpus.nextBatch(); rows !== null; rows = corpus.nextBatch()) {
    const started = performance.now();
    store.write(rows);
    storeMs += performance.now() - started;
  }
  connection.close();
  return spans / (storeMs / 1000);
}

async function main(): Promise<number> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const resultsDir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const outFile = values.out ? path.resolve(values.out) : path.join(resultsDir, `dashboards-${stamp}.json`);
  if (!values['skip-build']) buildServer();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-dashboards-'));
  const cleanups: Array<() => Promise<void> | void> = [() => fs.rmSync(workDir, { recursive: true, force: true })];
  let server: ServerProcess | null = null;
  try {
    // ---- what the rollups cost the writer (batches of 2,000 spans, as the ingest writer commits them)
    // Two timings: spans arriving live (their start times over the seconds a 15,000 spans/s server
    // takes to ingest them: a minute holds many spans, so few rollup rows each), and the corpus's
    // spread over 7 days (about 100 spans a minute: the rollups' worst case).
    type Ab = { spans: number; spreadDays: number; withRollups: number[]; without: number[]; ratio: number };
    const ingest: Ab[] = [];
    if (options.ingestAb > 0) {
      const median = (list: number[]) => [...list].sort((a, b) => a - b)[1]!;
      for (const spreadDays of [options.ingestAb / 15_000 / 86_400, 7]) {
        const withRollups: number[] = [];
        const without: number[] = [];
        for (let round = 0; round < 3; round++) {
          without.push(await loadRate(path.join(workDir, 'ab.db'), options.ingestAb, false, spreadDays));
          withRollups.push(await loadRate(path.join(workDir, 'ab.db'), options.ingestAb, true, spreadDays));
          log(
            `ingest A/B over ${round2(spreadDays)} days, round ${round + 1}: ${Math.round(without.at(-1)!)} spans/s without rollups, ${Math.round(withRollups.at(-1)!)} with`,
          );
        }
        const ab = { spans: options.ingestAb, spreadDays, withRollups, without, ratio: round(median(withRollups) / median(without), 3) };
        ingest.push(ab);
        log(`rollups keep ${(ab.ratio * 100).toFixed(1)} % of the writer's rate (median of 3; load average ${loadAverage().join(' ')})`);
      }
    }

    // ---- the corpus
    const datasetOptions = {
      spans: options.spans,
      batchSpans: 20_000,
      days: options.days,
      endMs: Date.now(),
      bigTraceShare: 1 / 800,
      seed: 1,
    };
    let target: Target;
    const load = async (loadTarget: Target) => {
      log(`loading ${options.spans} spans over ${options.days} days (load average ${loadAverage().join(' ')})`);
      const result = await loadCorpus(loadTarget, datasetOptions, log);
      log(`loaded in ${result.seconds.toFixed(0)} s (${Math.round(result.insertSpansPerSecond)} spans/s into the store)`);
    };
    if (options.postgres) {
      if (options.reuse)
        target = {
          dialect: 'postgres',
          url: (await keptDatabase(options.postgres, options.reuse, (url) => load({ dialect: 'postgres', url }))).url,
        };
      else {
        const scratch = await createScratchDatabase(options.postgres, 'dashboards');
        cleanups.push(() => scratch.drop());
        target = { dialect: 'postgres', url: scratch.url };
        await load(target);
      }
    } else if (options.reuse) {
      target = { dialect: 'sqlite', file: path.resolve(options.reuse) };
      if (!fs.existsSync(target.file)) await loadSqliteOnce(target.file, (loading) => load({ dialect: 'sqlite', file: loading }));
      else log(`reusing ${target.file}`);
    } else {
      target = { dialect: 'sqlite', file: path.join(workDir, 'data', 'sightline.db') };
      await load(target);
    }

    // ---- the rollups hold every span exactly once
    const countSql =
      "SELECT (SELECT count(*) FROM spans) AS spans, (SELECT sum(span_count) FROM span_rollups WHERE dimension = '') AS rolled, (SELECT count(*) FROM span_rollups) AS rows";
    let counts: { spans: number; rolled: number; rows: number };
    if (target.dialect === 'sqlite') {
      const connection = new SQLite(target.file, { readonly: true });
      counts = connection.prepare(countSql).get() as typeof counts;
      connection.close();
    } else {
      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      const row = (await client.query(countSql)).rows[0] as Record<string, string>;
      counts = { spans: Number(row.spans), rolled: Number(row.rolled), rows: Number(row.rows) };
      await client.end();
    }
    log(`${counts.spans} spans, ${counts.rows} rollup rows holding ${counts.rolled} spans`);
    if (Number(counts.rolled) !== Number(counts.spans))
      throw new Error(`the rollups hold ${counts.rolled} spans, the spans table ${counts.spans}`);

    // ---- the server
    const port = await freePort();
    let grpcPort = await freePort();
    while (grpcPort === port) grpcPort = await freePort();
    const serverDir = path.join(workDir, 'server');
    fs.mkdirSync(serverDir, { recursive: true });
    server = await startServerProcess({
      root: ROOT,
      port,
      logFile: path.join(workDir, 'server.log'),
      cpuProfileDir: null,
      startTimeoutMs: 120_000,
      env: {
        SERVICE_HOST: '127.0.0.1',
        SERVICE_PORT: String(port),
        SERVICE_GRPC_PORT: String(grpcPort),
        SERVICE_WORKING_DIR: serverDir,
        SERVICE_LOG_LEVEL: 'warn',
        SERVICE_ENABLE_AUTH: 'false',
        SERVICE_SQL_DATABASE_URL: target.dialect === 'sqlite' ? `sqlite:${target.file}` : target.url,
        // Nothing is ingested here; a reused SQLite file whose spans' words are not in the search
        // index file yet (loaded before the index had a file of its own) would be indexed again
        // in the background, beside the measurement.
        SERVICE_FULL_TEXT_SEARCH: 'false',
      },
    });
    const base = new URL(server.url);
    const prefix = base.pathname.replace(/\/$/, '');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const dashboard = await post(agent, base, `${prefix}/v1/projects/${encodeURIComponent(MAIN_PROJECT)}/default_dashboard`, undefined);
    if (dashboard.status !== 200) throw new Error(`default dashboard: HTTP ${dashboard.status} ${dashboard.text}`);
    const widgets = (JSON.parse(dashboard.text) as { data: { widgets: Array<Record<string, unknown> & { type: string; title: string }> } })
      .data.widgets;
    const end = Date.now();
    const bodies = widgets.map(({ id: _id, title: _title, type, projects: _projects, ...query }) => ({
      ...query,
      projects: [MAIN_PROJECT],
      start_time: new Date(end - 7 * 86_400_000).toISOString(),
      end_time: new Date(end).toISOString(),
      bucket: type === 'timeseries' ? 'hour' : 'none',
    }));
    const loadDashboard = async () => {
      const started = performance.now();
      const replies = await Promise.all(bodies.map((body) => post(agent, base, `${prefix}/v1/dashboards/query`, body)));
      const ms = performance.now() - started;
      for (const [index, reply] of replies.entries()) {
        if (reply.status !== 200) throw new Error(`${widgets[index]!.title}: HTTP ${reply.status} ${reply.text.slice(0, 300)}`);
      }
      return {
        ms,
        each: replies.map((reply) => reply.ms),
        sources: replies.map((reply) => (JSON.parse(reply.text) as { data: { source: string } }).data.source),
      };
    };
    const floorOnce = async () => (await post(agent, base, `${prefix}/healthz`, undefined)).ms;

    log(`timing ${widgets.length} widgets × ${options.runs} loads (load average ${loadAverage().join(' ')})`);
    const before = loadAverage();
    for (let i = 0; i < 5; i++) {
      await loadDashboard();
      await floorOnce();
    }
    const totals: number[] = [];
    const each: number[][] = widgets.map(() => []);
    const floor: number[] = [];
    let sources: string[] = [];
    for (let i = 0; i < options.runs; i++) {
      const run = await loadDashboard();
      totals.push(run.ms);
      for (const [index, ms] of run.each.entries()) each[index]!.push(ms);
      sources = run.sources;
      floor.push(await floorOnce());
    }
    // Each widget alone, one after another: what a single widget costs without the others beside it.
    const alone: number[][] = widgets.map(() => []);
    for (let i = 0; i < Math.min(20, options.runs); i++) {
      for (const [index, body] of bodies.entries()) alone[index]!.push((await post(agent, base, `${prefix}/v1/dashboards/query`, body)).ms);
    }
    agent.destroy();
    const dashboardMs: Distribution = distribution(totals);
    const floorMs: Distribution = distribution(floor);
    const result = {
      benchmark: 'dashboards',
      at: new Date().toISOString(),
      dialect: target.dialect,
      machine: machine(),
      source: sourceState(),
      options,
      loadAverageBefore: before,
      loadAverageAfter: loadAverage(),
      spans: counts.spans,
      rollupRows: counts.rows,
      widgets: widgets.map((widget, index) => ({
        title: widget.title,
        type: widget.type,
        source: sources[index],
        inDashboardMs: distribution(each[index]!),
        aloneMs: distribution(alone[index]!),
      })),
      dashboardMs,
      floorMs,
      ratioP50: round(dashboardMs.p50 / floorMs.p50, 1),
      targetP50Ms: TARGET_P50_MS,
      pass: dashboardMs.p50 < TARGET_P50_MS,
      ingest,
    };
    fs.writeFileSync(outFile, `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      `\n${target.dialect}, ${counts.spans} spans over ${options.days} days, ${counts.rows} rollup rows\n` +
        `floor GET /healthz          p50 ${floorMs.p50.toFixed(2)} ms  p99 ${floorMs.p99.toFixed(2)} ms\n` +
        `dashboard (${widgets.length} widgets, 7 d hourly) p50 ${dashboardMs.p50.toFixed(1)} ms  p99 ${dashboardMs.p99.toFixed(1)} ms  ` +
        `(${result.ratioP50}× the floor)  target p50 < ${TARGET_P50_MS} ms: ${result.pass ? 'PASS' : 'FAIL'}\n` +
        result.widgets
          .map(
            (widget) =>
              `  ${widget.title.padEnd(22)} ${String(widget.source).padEnd(10)} alone p50 ${widget.aloneMs.p50.toFixed(1)} ms  p99 ${widget.aloneMs.p99.toFixed(1)} ms`,
          )
          .join('\n') +
        ingest
          .map(
            (ab) =>
              `\nwriter with rollups, spans over ${round2(ab.spreadDays)} days: ${(ab.ratio * 100).toFixed(1)} % of its rate without (${ab.spans} spans, median of 3)`,
          )
          .join('') +
        `\nload average ${result.loadAverageBefore.join(' ')} → ${result.loadAverageAfter.join(' ')}\nwrote ${path.relative(ROOT, outFile)}\n`,
    );
    return result.pass ? 0 : 1;
  } finally {
    if (server) await server.stop(15_000);
    while (cleanups.length > 0) await Promise.resolve(cleanups.pop()!()).catch((error) => log(`cleanup: ${(error as Error).message}`));
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${(error as Error).stack ?? error}\n`);
    process.exit(2);
  },
);
