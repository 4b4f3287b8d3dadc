/**
 * A real server in a child process (test/fixtures/server-process.ts) on a throwaway database, so
 * that a test can read the server's peak memory (VmHWM of /proc/<pid>/status) apart from its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TestDatabase, type TestDialect } from './databases.js';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'server-process.ts');

export interface ServerProcess {
  url: string;
  pid: number;
  /** The server's database (SQLite: the file `sightline.db` in its working directory). */
  database: TestDatabase;
  /** Peak resident memory of the process since it started, in MiB. */
  peakRssMiB(): number;
  /** Resident memory now, in MiB. */
  rssMiB(): number;
  close(): Promise<void>;
}

function statusField(pid: number, name: string): number {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1]);
  return kb / 1024;
}

/** Starts a server process on a new database of the dialect; resolves once it listens. */
export async function startServerProcess(dialect: TestDialect, env: Record<string, string> = {}): Promise<ServerProcess> {
  const database: TestDatabase = await createTestDatabase(dialect);
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    env: {
      ...process.env,
      SERVICE_WORKING_DIR: database.workingDir,
      SERVICE_PORT: '0',
      SERVICE_GRPC_PORT: '0',
      SERVICE_LOG_LEVEL: 'warn',
      ...(database.url ? { SERVICE_SQL_DATABASE_URL: database.url } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
    close: async () => {
      child.kill('SIGTERM');
      await exited;
      await database.drop();
    },
  };
}
