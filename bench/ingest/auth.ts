/**
 * Ingest with authentication on versus off, in one run (issue 3's target: on ≥ 0.95 × off).
 * Two servers on the same build and the same kind of fresh SQLite database, one with
 * SERVICE_ENABLE_AUTH and a system API key; the same load generator alternates between them
 * (off, on, off, on, …) so that a change in the machine's other load hits both alike.
 *
 *   npm run bench:ingest-auth [-- --rounds 3 --seconds 8 --concurrency 8 --batch 100]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLoad } from './load.js';
import { freePort, startServerProcess, type ServerProcess } from './server-process.js';
import { buildBodyPool, IdPatcher } from './spans.js';
import { BENCH_SECRET, systemKey } from './system-key.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
  return value;
}

const rounds = option('rounds', 3);
const seconds = option('seconds', 8);
const concurrency = option('concurrency', 8);
const batch = option('batch', 100);

async function start(name: string, workDir: string, auth: boolean): Promise<ServerProcess> {
  const port = await freePort();
  let grpcPort = await freePort();
  while (grpcPort === port) grpcPort = await freePort();
  const dir = path.join(workDir, name);
  fs.mkdirSync(dir);
  return startServerProcess({
    root: ROOT,
    port,
    logFile: path.join(workDir, `${name}.log`),
    cpuProfileDir: null,
    startTimeoutMs: 60_000,
    env: {
      SERVICE_HOST: '127.0.0.1',
      SERVICE_PORT: String(port),
      SERVICE_GRPC_PORT: String(grpcPort),
      SERVICE_WORKING_DIR: dir,
      SERVICE_LOG_LEVEL: 'warn',
      SERVICE_ENABLE_AUTH: auth ? 'true' : 'false',
      ...(auth ? { SERVICE_SECRET: BENCH_SECRET, SERVICE_DISABLE_RATE_LIMIT: 'true' } : {}),
    },
  });
}

execFileSync('npx', ['tsc', '-b', 'packages/common', 'packages/monitor', 'packages/server'], { cwd: ROOT, stdio: 'inherit' });
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-auth-'));
const pool = buildBodyPool({ size: 32, batch, spansPerTrace: 5 });
const servers: ServerProcess[] = [];
try {
  const off = await start('auth-off', workDir, false);
  servers.push(off);
  const on = await start('auth-on', workDir, true);
  servers.push(on);
  const key = await systemKey(on.url);
  console.log(
    `bench/ingest auth: ${rounds} rounds × (auth off, auth on), ${seconds} s each, ${concurrency} clients × ${batch} spans/request; ${os.cpus().length} × ${os.cpus()[0]?.model}`,
  );
  const totals = { off: { spans: 0, ms: 0, non200: 0 }, on: { spans: 0, ms: 0, non200: 0 } };
  const patcher = new IdPatcher();
  for (let round = 1; round <= rounds; round++) {
    const line: string[] = [];
    for (const [label, server, headers] of [
      ['off', off, {}],
      ['on', on, { authorization: `Bearer ${key}` }],
    ] as const) {
      const port = Number(new URL(server.url).port);
      const result = await runLoad({
        host: '127.0.0.1',
        port,
        path: '/v1/traces',
        concurrency,
        pool,
        patcher,
        warmupMs: 2000,
        durationMs: seconds * 1000,
        requestTimeoutMs: 60_000,
        headers,
      });
      const non200 = Object.values(result.non200).reduce((sum, count) => sum + count, 0);
      totals[label].spans += result.okSpans;
      totals[label].ms += result.windowMs;
      totals[label].non200 += non200;
      line.push(`auth ${label} ${Math.round(result.okSpans / (result.windowMs / 1000))} spans/s${non200 ? ` (${non200} non-200)` : ''}`);
    }
    console.log(`  round ${round}: ${line.join(', ')}`);
  }
  const rate = (t: { spans: number; ms: number }) => t.spans / (t.ms / 1000);
  const ratio = rate(totals.on) / rate(totals.off);
  console.log(
    `auth off ${Math.round(rate(totals.off))} spans/s, auth on ${Math.round(rate(totals.on))} spans/s, non-200: off ${totals.off.non200}, on ${totals.on.non200}`,
  );
  console.log(
    `ratio on/off = ${ratio.toFixed(3)} (target ≥ 0.95) ${ratio >= 0.95 ? 'PASS' : 'FAIL'}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const resultsDir = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.writeFileSync(
    path.join(resultsDir, `ingest-auth-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
    JSON.stringify(
      {
        benchmark: 'ingest-auth',
        rounds,
        seconds,
        concurrency,
        batch,
        off: rate(totals.off),
        on: rate(totals.on),
        ratio,
        loadavg: os.loadavg(),
      },
      null,
      2,
    ),
  );
  if (totals.on.non200 > 0 || totals.off.non200 > 0) process.exitCode = 1;
} finally {
  for (const server of servers) await server.stop(30_000);
  fs.rmSync(workDir, { recursive: true, force: true });
}
