/**
 * What every bench:limits case shares: a fresh database, the server started on it with
 * authentication on, and the watch kept on it while a case runs (/healthz polled every 50 ms,
 * the server's resident memory sampled and its high-water mark read).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createScratchDatabase } from '../ingest/postgres.js';
import { freePort, startServerProcess, type ServerProcess } from '../ingest/server-process.js';
import { BENCH_SECRET, systemKey } from '../ingest/system-key.js';
import type { Target } from '../query/load.js';
import { pollHealth } from '../../packages/server/test/helpers/server-process.js';
import { log, ROOT, round } from '../shared.js';

export const TARGET_RSS_MB = 512;
export const TARGET_HEALTH_MS = 250;
const POLL_MS = 50;

export interface Options {
  postgres: string | null;
  cases: string[];
  traceSpans: number;
  projectSpans: number;
  projectSeconds: number;
  uploadExamples: number;
  datasetExamples: number;
}

export function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      postgres: { type: 'string' },
      cases: { type: 'string' },
      'trace-spans': { type: 'string' },
      'project-spans': { type: 'string' },
      'project-seconds': { type: 'string' },
      'upload-examples': { type: 'string' },
      'dataset-examples': { type: 'string' },
    },
  });
  return {
    postgres: values.postgres ?? null,
    cases: (values.cases ?? 'trace,project,upload,dataset').split(','),
    traceSpans: Number(values['trace-spans'] ?? 100_000),
    projectSpans: Number(values['project-spans'] ?? 10_000_000),
    projectSeconds: Number(values['project-seconds'] ?? 600),
    uploadExamples: Number(values['upload-examples'] ?? 20_000_000),
    datasetExamples: Number(values['dataset-examples'] ?? 2_800_000),
  };
}

/** What the server did while a case ran. */
export interface Watched<T> {
  result: T;
  seconds: number;
  /**
   * Highest resident memory of the server process during the case (MB): its VmHWM, reset when the
   * case starts, or the highest VmRSS sampled every 50 ms where the reset is not allowed.
   */
  peakRssMb: number;
  worstHealthMs: number;
  p99HealthMs: number;
  healthPolls: number;
  /** /healthz answers other than 200 (a timeout counts as status 0). */
  healthFailures: number;
  alive: boolean;
}

/**
 * Resets the kernel's high-water mark of the process's resident memory (VmHWM) to what it holds
 * now (`5` written to /proc/<pid>/clear_refs, Linux 4.0+); false where that is not permitted.
 */
function resetPeakRss(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `work` while /healthz is polled every 50 ms from a worker thread (the datasets tests'
 * poller: the benchmark's own reading of a 400 MiB download must not pass for a slow server) and
 * the server's memory is watched: a timer samples VmRSS every 50 ms, and the high-water mark
 * catches a peak between samples.
 */
export async function watch<T>(server: ServerProcess, work: () => Promise<T>): Promise<Watched<T>> {
  let peakKb = 0;
  const hwmReset = resetPeakRss(server.pid);
  const sample = () => {
    const status = server.sample();
    if (status) peakKb = Math.max(peakKb, status.rssKb, hwmReset ? status.hwmKb : 0);
    return status;
  };
  const sampler = setInterval(sample, POLL_MS);
  const poller = pollHealth(server.url);
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  const { latencies, failures } = await poller.stop();
  clearInterval(sampler);
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

/** The server started on `target`, with authentication on, and a system key. */
export async function startServer(target: Target, workDir: string): Promise<{ server: ServerProcess; key: string }> {
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
export async function freshTarget(options: Options, workDir: string, name: string): Promise<{ target: Target; drop(): Promise<void> }> {
  if (options.postgres === null) {
    const file = path.join(workDir, name, 'sightline.db');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    return { target: { dialect: 'sqlite', file }, drop: async () => {} };
  }
  const scratch = await createScratchDatabase(options.postgres, `limits_${name}`);
  return { target: { dialect: 'postgres', url: scratch.url }, drop: () => scratch.drop() };
}

export interface CaseReport extends Omit<Watched<unknown>, 'result'> {
  name: string;
  detail: string;
  status: number;
  met: boolean;
}

export function report(name: string, watched: Watched<{ status: number; detail: string }>): CaseReport {
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
