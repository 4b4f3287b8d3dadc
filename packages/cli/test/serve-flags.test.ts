/**
 * `sightline serve` flags and its start-up refusals (the built bin, in a child process): --host,
 * --port, --grpc-port and --working-dir stand for their variables, `serve --help` lists the
 * variables it reads, and a port already in use is a sentence naming the setting to change.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

const bin = path.resolve(import.meta.dirname, '../bin/sightline.js');

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A port held by another listener until `release` is called. */
async function takenPort(): Promise<{ port: number; release: () => Promise<void> }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, release: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Runs the bin to its end (asynchronously, so a listener of this process can answer meanwhile). */
function run(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH, HOME: os.tmpdir(), ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe('sightline serve: flags and start-up refusals', () => {
  it('serve --help lists the flags and the variables it reads', () => {
    const help = spawnSync(process.execPath, [bin, 'serve', '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    for (const text of [
      '--host <address>',
      '--port <port>',
      '--grpc-port <port>',
      '--working-dir <dir>',
      'SERVICE_SQL_DATABASE_URL',
      'SERVICE_SECRET',
    ]) {
      assert.ok(help.stdout.includes(text), `the help names ${text}`);
    }
  });

  it('--port, --grpc-port and --working-dir win over their variables', async () => {
    const workingDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-flags-'));
    const [port, grpcPort] = [await freePort(), await freePort()];
    const child = spawn(
      process.execPath,
      [bin, 'serve', '--port', String(port), '--grpc-port', String(grpcPort), '--working-dir', workingDir, '--host', '127.0.0.1'],
      // The variables point elsewhere: the flags must win.
      { env: { PATH: process.env.PATH, HOME: os.tmpdir(), SERVICE_PORT: '1', SERVICE_GRPC_PORT: '2', SERVICE_LOG_LEVEL: 'warn' } },
    );
    try {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${output}`)), 20_000);
        child.stdout.on('data', () => {
          if (output.includes('Authentication')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      assert.match(output, new RegExp(`UI and REST API\\s+http://127\\.0\\.0\\.1:${port}/`));
      assert.match(output, new RegExp(`OTLP/gRPC traces\\s+127\\.0\\.0\\.1:${grpcPort}`));
      assert.match(output, new RegExp(`SQLite ${workingDir}/sightline\\.db`));
      assert.equal(await (await fetch(`http://127.0.0.1:${port}/healthz`)).text(), 'OK');
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(workingDir, { recursive: true, force: true });
    }
  });

  it('a port in use is refused in one line naming the setting to change, HTTP or gRPC', async () => {
    const workingDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-taken-'));
    const taken = await takenPort();
    try {
      const http = await run(['serve', '--port', String(taken.port), '--grpc-port', String(await freePort()), '--working-dir', workingDir]);
      assert.notEqual(http.status, 0);
      assert.equal(
        http.stderr.trim(),
        `sightline: port ${taken.port} on 127.0.0.1 is already in use by another process: choose another with SERVICE_PORT or --port`,
      );
      const grpc = await run(['serve', '--working-dir', workingDir], {
        SERVICE_PORT: String(await freePort()),
        SERVICE_GRPC_PORT: String(taken.port),
      });
      assert.notEqual(grpc.status, 0);
      // Its last line (the gRPC library logs its own bind error before it: see docs/deployment.md).
      assert.equal(
        grpc.stderr.trim().split('\n').at(-1),
        `sightline: port ${taken.port} on 127.0.0.1 is already in use by another process: choose another with SERVICE_GRPC_PORT or --grpc-port`,
      );
    } finally {
      await taken.release();
      fs.rmSync(workingDir, { recursive: true, force: true });
    }
  });

  it('a bad --port is refused as its variable is', async () => {
    const result = await run(['serve', '--port', 'eighty']);
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /^sightline: SERVICE_PORT: /);
  });
});
