/**
 * `sightline serve` and `sightline monitor serve` as operators run them: the built bin in a
 * child process, on free ports, against a throwaway database, so tests can kill and restart it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { createTestDatabase, type TestDatabase, type TestDialect } from '@sightline/common/testing';

const bin = path.resolve(import.meta.dirname, '../../bin/sightline.js');

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One run of a service process. */
export interface ServiceProcess {
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** What the process wrote to stderr so far. */
  stderr(): string;
  /** Peak resident set size so far (VmHWM), in MB; NaN once the process is gone. */
  peakRssMb(): number;
}

/** A service kind, its database, and how to (re)start it on that database. */
export interface Service {
  dialect: TestDialect;
  database: TestDatabase;
  /** HTTP base URL, e.g. http://127.0.0.1:PORT */
  url: string;
  /** gRPC port (the observability server only). */
  grpcPort: number;
  /** The environment the process runs with (without extraEnv). */
  env: Record<string, string>;
  /** Starts the process and waits until /healthz answers. */
  start(extraEnv?: Record<string, string>): Promise<ServiceProcess>;
  /** Values of one column of a table, read straight from the database. */
  column(table: string, column: string): Promise<string[]>;
  drop(): Promise<void>;
}

/** The observability server (`serve`) or the monitoring service (`monitor serve`) on a fresh database. */
export async function createService(kind: 'serve' | 'monitor', dialect: TestDialect, env: Record<string, string> = {}): Promise<Service> {
  const database = await createTestDatabase(dialect, {
    dirPrefix: 'sightline-process-test-',
    databasePrefix: kind === 'serve' ? 'sl_proc' : 'slm_proc',
  });
  const port = await freePort();
  const grpcPort = kind === 'serve' ? await freePort() : 0;
  const baseEnv: Record<string, string> =
    kind === 'serve'
      ? {
          SERVICE_PORT: String(port),
          SERVICE_GRPC_PORT: String(grpcPort),
          SERVICE_LOG_LEVEL: 'warn',
          ...(database.url ? { SERVICE_SQL_DATABASE_URL: database.url } : {}),
        }
      : { MONITOR_PORT: String(port), MONITOR_LOG_LEVEL: 'warn', ...(database.url ? { MONITOR_DATABASE_URL: database.url } : {}) };
  const url = `http://127.0.0.1:${port}`;
  const sqliteFile = path.join(database.workingDir, kind === 'serve' ? 'sightline.db' : 'monitor.db');
  const serviceEnv = { SERVICE_WORKING_DIR: database.workingDir, ...baseEnv, ...env };
  return {
    dialect,
    database,
    url,
    grpcPort,
    env: serviceEnv,
    start: (extraEnv = {}) =>
      startProcess(
        kind === 'serve' ? ['serve'] : ['monitor', 'serve'],
        { PATH: process.env.PATH ?? '', HOME: database.workingDir, ...serviceEnv, ...extraEnv },
        url,
      ),
    column: async (table, column) => {
      if (database.url === undefined) {
        const sqlite = new SQLite(sqliteFile, { readonly: true });
        try {
          return sqlite.prepare(`SELECT ${column} AS value FROM ${table}`).pluck().all() as string[];
        } finally {
          sqlite.close();
        }
      }
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query<{ value: string }>(`SELECT ${column} AS value FROM ${table}`)).rows.map((row) => row.value);
      } finally {
        await client.end();
      }
    },
    drop: () => database.drop(),
  };
}

async function startProcess(args: string[], env: Record<string, string>, url: string): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let exit: Exit | null = null;
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    }),
  );
  const deadline = Date.now() + 60_000;
  while (!(await healthy(url))) {
    if (exit) throw new Error(`the service exited during start-up (${JSON.stringify(exit)}): ${stderr}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not answer /healthz within 60 s: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    exited,
    stderr: () => stderr,
    peakRssMb: () => {
      try {
        const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
        return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN) / 1024;
      } catch {
        return NaN;
      }
    },
  };
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}
