/**
 * A throwaway PostgreSQL cluster of a test's own, from the Debian postgresql binaries (as
 * scripts/run-tests.mjs starts one): an outage test stops and restarts it with pg_ctl, which
 * the cluster the other test files share must never see.
 */
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface PostgresCluster {
  /** Admin URL of the cluster's `postgres` database. */
  adminUrl: string;
  /** URL of an empty database created for the test, over TCP. */
  url: string;
  /** The same database over the cluster's Unix socket (a stopped server's socket file is gone). */
  socketUrl: string;
  /** Stops the server as an operator would (`pg_ctl stop -m fast`: every connection is cut). */
  stop(): Promise<void>;
  /** Starts it again on the same port and waits until it accepts connections. */
  start(): Promise<void>;
  /** Stops it for good and removes its files. */
  destroy(): void;
}

function postgresBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base)
    ? fs.readdirSync(base).filter((version) => fs.existsSync(path.join(base, version, 'bin', 'initdb')))
    : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error('PostgreSQL binaries not found under /usr/lib/postgresql: install the postgresql package');
  return path.join(base, versions[0]!, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** initdb's a new cluster in a temp directory, starts it on a free port and creates database `name`. */
export async function startPostgresCluster(name = 'sightline'): Promise<PostgresCluster> {
  const bin = postgresBin();
  // PostgreSQL refuses to run as root: run its tools as the postgres user then.
  const asRoot = process.getuid?.() === 0;
  const command = (tool: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]] : [path.join(bin, tool), args];
  const run = (tool: string, args: string[]) => {
    const result = spawnSync(...command(tool, args), { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${tool} ${args[0] ?? ''} failed: ${result.stderr}${result.stdout}`);
  };
  // Asynchronous during the test, so the server under test (often in the same process) keeps serving meanwhile.
  const runAsync = (tool: string, args: string[]) =>
    new Promise<void>((resolve, reject) =>
      execFile(...command(tool, args), (error, stdout, stderr) =>
        error ? reject(new Error(`${tool} ${args[0] ?? ''} failed: ${stderr}${stdout}`)) : resolve(),
      ),
    );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-pg-cluster-'));
  if (asRoot) spawnSync('chown', ['postgres:postgres', dir]);
  const data = path.join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -h 127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100`;
  const startArgs = ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start'];
  run('pg_ctl', startArgs);
  run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name]);
  let stopped = false;
  return {
    adminUrl: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    url: `postgresql://postgres@127.0.0.1:${port}/${name}`,
    socketUrl: `postgresql://postgres@localhost/${name}?host=${encodeURIComponent(dir)}&port=${port}`,
    stop: async () => {
      await runAsync('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      stopped = true;
    },
    start: async () => {
      await runAsync('pg_ctl', startArgs);
      stopped = false;
    },
    destroy: () => {
      if (!stopped) {
        try {
          run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
        } catch {
          // Already down: only the files remain.
        }
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
