/**
 * bench:conventions: ingest of OpenTelemetry GenAI spans against OpenInference spans of the same
 * content, in the same run (docs/performance.md, "GenAI conventions at ingest").
 *
 *   npm run build && npm run bench:conventions [-- --rounds 3 --seconds 20 --concurrency 16 --batch 200 --postgres URL]
 *
 * Each round starts the built server (auth on) on a fresh database once per convention, in
 * alternating order, and sends the same load (bench/ingest/load.ts) for `--seconds` after a
 * warm-up: OpenInference bodies, then bodies whose spans carry the same content under gen_ai.*
 * names (bench/ingest/spans.ts), which the server maps at ingest. Target (the issue "Every
 * instrumentation, every Phoenix route"): the GenAI rate reaches >= 0.95 of the OpenInference
 * rate (median over the rounds), so the mapping does not cost ingest.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { runLoad } from './load.js';
import { createScratchDatabase } from './postgres.js';
import { freePort, startServerProcess } from './server-process.js';
import { buildBodyPool, IdPatcher } from './spans.js';
import { BENCH_SECRET, systemKey } from './system-key.js';
import { ROOT, log, machine, round } from '../shared.js';

const TARGET_RATIO = 0.95;
type Conventions = 'openinference' | 'genai';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '16' },
    batch: { type: 'string', default: '200' },
    postgres: { type: 'string' },
  },
});
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const CONCURRENCY = Number(values.concurrency);
const BATCH = Number(values.batch);

/** LLM spans stored, by a connection of the benchmark's own: the GenAI bodies must have been mapped. */
async function llmSpans(target: { sqlite: string } | { postgres: string }): Promise<number> {
  const query = "SELECT count(*) AS n FROM spans WHERE span_kind = 'LLM' AND llm_token_count_total IS NOT NULL";
  if ('sqlite' in target) {
    const db = new SQLite(target.sqlite, { readonly: true });
    try {
      return Number((db.prepare(query).get() as { n: number }).n);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: target.postgres });
  await client.connect();
  try {
    return Number((await client.query(query)).rows[0].n);
  } finally {
    await client.end();
  }
}

/** One load against a fresh server; resolves to spans/s in the measured window. */
async function measure(conventions: Conventions, workDir: string): Promise<number> {
  const pool = buildBodyPool({ size: 32, batch: BATCH, spansPerTrace: 5, conventions });
  const dir = fs.mkdtempSync(path.join(workDir, `${conventions}-`));
  const scratch = values.postgres ? await createScratchDatabase(values.postgres, conventions) : null;
  const sqliteFile = path.join(dir, 'sightline.db');
  const port = await freePort();
  let grpcPort = await freePort();
  while (grpcPort === port) grpcPort = await freePort();
  const server = await startServerProcess({
    root: ROOT,
    port,
    logFile: path.join(dir, 'server.log'),
    cpuProfileDir: null,
    startTimeoutMs: 60_000,
    env: {
      SERVICE_HOST: '127.0.0.1',
      SERVICE_PORT: String(port),
      SERVICE_GRPC_PORT: String(grpcPort),
      SERVICE_WORKING_DIR: dir,
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_ENABLE_AUTH: 'true',
      SERVICE_SECRET: BENCH_SECRET,
      SERVICE_DISABLE_RATE_LIMIT: 'true',
      SERVICE_SQL_DATABASE_URL: scratch ? scratch.url : `sqlite:${sqliteFile}`,
    },
  });
  try {
    const load = await runLoad({
      host: '127.0.0.1',
      port,
      path: '/v1/traces',
      headers: { authorization: `Bearer ${await systemKey(server.url)}` },
      concurrency: CONCURRENCY,
      pool,
      patcher: new IdPatcher(),
      warmupMs: WARMUP * 1000,
      durationMs: SECONDS * 1000,
      requestTimeoutMs: 60_000,
    });
    const rate = load.okSpans / (load.windowMs / 1000);
    const stored = await llmSpans(scratch ? { postgres: scratch.url } : { sqlite: sqliteFile });
    if (stored === 0) throw new Error(`${conventions}: no LLM span with token counts was stored`);
    const errors = Object.entries(load.non200);
    log(
      `${conventions}: ${round(rate, 0)} spans/s, ${stored} LLM spans with tokens stored${errors.length ? `, non-200: ${JSON.stringify(load.non200)}` : ''}`,
    );
    return rate;
  } finally {
    await server.stop(30_000);
    await scratch?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, 'packages/server/dist/index.js'))) throw new Error('build first: npm run build');
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-conventions-'));
  const { cpus, cpuModel, node } = machine();
  log(
    `bench:conventions on ${values.postgres ? 'postgres' : 'sqlite'}, ${cpus} × ${cpuModel}, Node ${node}; ${ROUNDS} rounds of ${SECONDS} s per convention`,
  );
  const ratios: number[] = [];
  const rounds: { openinference: number; genai: number; ratio: number }[] = [];
  try {
    for (let index = 0; index < ROUNDS; index++) {
      // Alternate which goes first, so a machine slowing or warming through the run favours neither.
      const order: Conventions[] = index % 2 === 0 ? ['openinference', 'genai'] : ['genai', 'openinference'];
      const rates: Partial<Record<Conventions, number>> = {};
      for (const conventions of order) rates[conventions] = await measure(conventions, workDir);
      const ratio = rates.genai! / rates.openinference!;
      ratios.push(ratio);
      rounds.push({ openinference: round(rates.openinference!, 0), genai: round(rates.genai!, 0), ratio: round(ratio, 3) });
      log(`round ${index + 1}: GenAI / OpenInference = ${round(ratio, 3)}`);
    }
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  ratios.sort((a, b) => a - b);
  const median = ratios[Math.floor(ratios.length / 2)]!;
  const resultsDir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(
    resultsDir,
    `conventions-${values.postgres ? 'postgres' : 'sqlite'}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
  );
  fs.writeFileSync(file, JSON.stringify({ machine: machine(), rounds, median }, null, 2));
  console.log(
    `\n${median >= TARGET_RATIO ? 'MET    ' : 'NOT MET'} GenAI / OpenInference ingest rate, median of ${ROUNDS}: ${round(median, 3)} (target >= ${TARGET_RATIO})`,
  );
  console.log(`result written to ${path.relative(ROOT, file)}`);
  if (median < TARGET_RATIO) process.exitCode = 1;
}

await main();
