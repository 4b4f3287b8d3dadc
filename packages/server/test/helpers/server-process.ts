/**
 * A real server in a child process (test/fixtures/server-process.ts) on a throwaway database, so
 * that a test can read the server's peak memory (VmHWM of /proc/<pid>/status) apart from its own.
 * It runs with the node options and heap tuning of `npm start`, since a memory bound is about the
 * server as operators run it: reading a 200,000-example dataset whole grew the peak by 5-40 MiB
 * with them, by 110-150 MiB without.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { SERVE_ENV, SERVE_NODE_OPTIONS } from '@sightline/common';
import { nodeArgsForModule } from '@sightline/common/testing';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { createPgPool, openSqlite } from '../../src/db/database.js';
import { createMigratedTestDatabase, type TestDatabase, type TestDialect } from './databases.js';
import { serverEnv } from './server.js';

export interface ServerProcess {
  url: string;
  pid: number;
  /** The server's database (SQLite: the file `sightline.db` in its working directory). */
  database: TestDatabase;
  /** Peak resident memory of the process since it started, in MiB. */
  peakRssMiB(): number;
  /** Resident memory now, in MiB. */
  rssMiB(): number;
  /**
   * Sets the peak back to the resident memory now and returns that, in MiB: a later peakRssMiB()
   * minus it is what the work in between added, whatever start-up peaked at (compiling the
   * sources in the process peaks above what serving does).
   */
  resetPeakRssMiB(): number;
  close(): Promise<void>;
}

function statusField(pid: number, name: string): number {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1]);
  return kb / 1024;
}

/** Starts a server process on a new database of the dialect; resolves once it listens. */
export async function startServerProcess(dialect: TestDialect, env: Record<string, string> = {}): Promise<ServerProcess> {
  const database: TestDatabase = await createMigratedTestDatabase(dialect);
  const child: ChildProcess = spawn(
    process.execPath,
    [...SERVE_NODE_OPTIONS, ...nodeArgsForModule(import.meta.url, '../fixtures/server-process')],
    {
      env: { ...process.env, ...SERVE_ENV, ...serverEnv(database, env) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening (\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`the server process exited before it listened: ${stderr}`)));
  });
  const pid = child.pid!;
  return {
    url,
    pid,
    database,
    peakRssMiB: () => statusField(pid, 'VmHWM'),
    rssMiB: () => statusField(pid, 'VmRSS'),
    resetPeakRssMiB: () => {
      // Linux's clear_refs: "5" resets the peak resident set size to the current one.
      fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
      return statusField(pid, 'VmHWM');
    },
    close: async () => {
      child.kill('SIGTERM');
      await exited;
      await database.drop();
    },
  };
}

/** Opens a connection of its own to a server process's database (SQLite: a second connection to its file). */
export function openDatabaseOf(server: ServerProcess): Kysely<unknown> {
  const { database } = server;
  return new Kysely<unknown>({
    dialect:
      database.url === undefined
        ? new SqliteDialect({ database: openSqlite(path.join(database.workingDir, 'sightline.db')) })
        : new PostgresDialect({ pool: createPgPool(database.url, 1) }),
  });
}

/** What a health poller saw: the slowest answer, every answer's latency (ms), and the failures. */
export interface HealthPolls {
  slowestMs: number;
  polls: number;
  latencies: number[];
  failures: number;
}

/**
 * Polls GET /healthz every 50 ms until stopped, from a worker thread (so that the test's own work,
 * such as parsing a large answer, does not delay the polls); reports the slowest answer (ms).
 * bench:limits polls with it too.
 */
export function pollHealth(url: string): { stop(): Promise<HealthPolls> } {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
    let running = true, slowestMs = 0, polls = 0, failures = 0;
    const latencies = [];
    parentPort.on('message', () => { running = false; });
    (async () => {
      while (running) {
        const started = performance.now();
        try {
          const response = await fetch(workerData + '/healthz', { signal: AbortSignal.timeout(30000) });
          await response.text();
          if (response.status !== 200) failures++;
        } catch { failures++; }
        const ms = performance.now() - started;
        latencies.push(ms);
        slowestMs = Math.max(slowestMs, ms);
        polls++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      parentPort.postMessage({ slowestMs, polls, latencies, failures });
    })();`,
    { eval: true, workerData: url },
  );
  // A test that fails before it stops the poller must not keep the process alive.
  worker.unref();
  const result = new Promise<HealthPolls>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    stop: async () => {
      worker.postMessage('stop');
      const value = await result;
      await worker.terminate();
      return value;
    },
  };
}
