/**
 * The server under test, in its own process (so its memory and CPU can be read from /proc):
 * `node packages/cli/bin/sightline.js serve` on 127.0.0.1 and free ports, with the node options
 * and environment `npm start` passes (SERVE_NODE_OPTIONS, SERVE_ENV).
 */
import { SERVE_ENV, SERVE_NODE_OPTIONS } from '@sightline/common';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ProcStatus {
  /** Resident set size now, kB. */
  rssKb: number;
  /** Peak resident set size since the process started, kB. */
  hwmKb: number;
}

/** VmRSS and VmHWM of a process, or null when it is gone. */
export function readProcStatus(pid: number): ProcStatus | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
}

/** Bytes a process has caused to be written to storage (`write_bytes` of /proc/<pid>/io), or null. */
export function readProcWriteBytes(pid: number): number | null {
  try {
    const match = /^write_bytes: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** CPU time (user + system, all threads) a process has used, in seconds, or null when it is gone. */
export function readProcCpuSeconds(pid: number): number | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // Fields after the command name (which may contain spaces) start at field 3; utime is 14, stime 15.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / CLOCK_TICKS;
}

/** CPU seconds used so far by every process whose command is `name` (e.g. the PostgreSQL processes), by pid. */
export function readCpuByCommand(name: string): Map<number, number> {
  const result = new Map<number, number>();
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return result;
  }
  for (const entry of entries) {
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== name) continue;
    } catch {
      continue;
    }
    const seconds = readProcCpuSeconds(Number(entry));
    if (seconds !== null) result.set(Number(entry), seconds);
  }
  return result;
}

/** CPU seconds used between two readCpuByCommand samples (processes started in between count from zero). */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/** CPU time used by the whole machine (all processes, all cores) since boot, in seconds. */
export function readMachineBusySeconds(): number {
  try {
    const [, ...ticks] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
    const [user, nice, system, , , irq, softirq, steal] = ticks.map(Number);
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

// sysconf(_SC_CLK_TCK) is 100 on every Linux architecture Node runs on.
const CLOCK_TICKS = 100;

export interface ServerProcessOptions {
  root: string;
  env: Record<string, string>;
  port: number;
  logFile: string;
  /** Directory for V8 CPU profiles (--cpu-prof), or null. */
  cpuProfileDir: string | null;
  startTimeoutMs: number;
  /** Extra options for the server's node (e.g. --trace-gc, --max-old-space-size=…). */
  nodeArgs?: string[];
}

export interface ServerProcess {
  pid: number;
  url: string;
  /** Highest VmRSS seen by polling, kB. */
  maxRssKb: number;
  /** Last status read. */
  last: ProcStatus | null;
  /** Reads /proc now and updates maxRssKb / last. */
  sample(): ProcStatus | null;
  /** SIGTERM (the server commits what is queued and exits), SIGKILL after the timeout. */
  stop(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; killed: boolean }>;
  /** Last lines of the server's output, for error messages. */
  logTail(lines?: number): string;
}

/** Starts the built server and waits until /healthz answers. */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const log = fs.openSync(options.logFile, 'a');
  // As `npm start` runs it: the figures are for the server users start.
  const nodeArgs = [
    ...SERVE_NODE_OPTIONS,
    ...(options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : []),
    ...(options.nodeArgs ?? []),
  ];
  // Inherit nothing that could reconfigure the server behind the benchmark's back.
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('SERVICE_') && key !== 'NODE_OPTIONS') env[key] = value;
  }
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, path.join(options.root, 'packages/cli/bin/sightline.js'), 'serve'], {
    cwd: options.root,
    env: { ...env, ...SERVE_ENV, ...options.env },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  if (child.pid === undefined) throw new Error('could not start the server process');
  const pid = child.pid;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    }),
  );
  const url = `http://127.0.0.1:${options.port}`;
  const logTail = (lines = 20) => {
    try {
      return fs.readFileSync(options.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  };

  const handle: ServerProcess = {
    pid,
    url,
    maxRssKb: 0,
    last: null,
    sample() {
      const status = readProcStatus(pid);
      if (status) {
        handle.last = status;
        if (status.rssKb > handle.maxRssKb) handle.maxRssKb = status.rssKb;
      }
      return status;
    },
    async stop(timeoutMs) {
      if (exit) return { ...(exit as { code: number | null; signal: NodeJS.Signals | null }), killed: false };
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
      const result = await Promise.race([exited, timedOut]);
      clearTimeout(timer);
      if (result) return { ...result, killed: false };
      child.kill('SIGKILL');
      return { ...(await exited), killed: true };
    },
    logTail,
  };

  const deadline = Date.now() + options.startTimeoutMs;
  while (true) {
    if (exit) throw new Error(`the server exited during start-up (${JSON.stringify(exit)}):\n${logTail()}`);
    if (await healthy(`${url}/healthz`)) break;
    if (Date.now() > deadline) {
      await handle.stop(5_000);
      throw new Error(`the server did not answer /healthz within ${options.startTimeoutMs} ms:\n${logTail()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  handle.sample();
  return handle;
}

function healthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false, timeout: 1_000 }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode === 200));
      response.on('error', () => resolve(false));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', () => resolve(false));
  });
}

/** A server on a fresh SQLite working directory and free ports, for benchmarks that need nothing else. */
export async function startSqliteServer(
  root: string,
  name: string,
  env: Record<string, string> = {},
): Promise<{ server: ServerProcess; stop(): Promise<void> }> {
  const workingDir = fs.mkdtempSync(path.join(os.tmpdir(), `sightline-bench-${name}-`));
  const port = await freePort();
  const server = await startServerProcess({
    root,
    env: {
      SERVICE_WORKING_DIR: workingDir,
      SERVICE_PORT: String(port),
      SERVICE_GRPC_PORT: String(await freePort()),
      SERVICE_LOG_LEVEL: 'warn',
      ...env,
    },
    port,
    logFile: path.join(workingDir, 'server.log'),
    cpuProfileDir: null,
    startTimeoutMs: 30_000,
  });
  return {
    server,
    async stop() {
      await server.stop(10_000);
      fs.rmSync(workingDir, { recursive: true, force: true });
    },
  };
}
