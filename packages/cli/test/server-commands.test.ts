/** The `sightline` command as an operator runs it (the built bin, in a child process). */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '@sightline/server';
import { startServer } from '@sightline/server';

const bin = path.resolve(import.meta.dirname, '../bin/sightline.js');

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: os.tmpdir(), ...env },
    timeout: 30_000,
  });
}

describe('sightline CLI', () => {
  it('prints help for the program and for serve', () => {
    const help = run(['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /serve/);
    const serveHelp = run(['serve', '--help']);
    assert.equal(serveHelp.status, 0);
    assert.match(serveHelp.stdout, /OTLP\/gRPC/);
  });

  it('refuses to start with a one-line reason naming the bad variable', () => {
    const badBool = run(['serve'], { SERVICE_ENABLE_AUTH: 'maybe' });
    assert.notEqual(badBool.status, 0);
    assert.equal(badBool.stderr.trim(), 'sightline: SERVICE_ENABLE_AUTH: expected True/False (or true, false, 1, 0, yes, no), got "maybe"');
    const noSecret = run(['serve'], { SERVICE_ENABLE_AUTH: 'True' });
    assert.notEqual(noSecret.status, 0);
    assert.match(noSecret.stderr, /^sightline: SERVICE_SECRET: required/);
    const badUrl = run(['serve'], { SERVICE_SQL_DATABASE_URL: 'mysql://x' });
    assert.notEqual(badUrl.status, 0);
    assert.match(badUrl.stderr, /SERVICE_SQL_DATABASE_URL/);
  });

  it('rejects an unknown command', () => {
    const result = run(['frobnicate']);
    assert.notEqual(result.status, 0);
    assert.match(result.stderr, /unknown command/);
  });

  it('creates users and resets passwords on the host, with one-line refusals', async () => {
    const workingDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-cli-'));
    const env = { SERVICE_WORKING_DIR: workingDir };
    const created = run(['admin', 'create-user', '--email', ' Ops@Example.COM ', '--username', 'ops', '--role', 'ADMIN'], env);
    assert.equal(created.status, 0, created.stderr);
    const generated = /initial password: (\S+)/.exec(created.stdout)?.[1];
    assert.ok(generated && generated.length >= 20, 'a strong password is generated and printed');
    assert.match(created.stdout, /^created ops@example\.com/);

    const duplicate = run(['admin', 'create-user', '--email', 'ops@example.com', '--username', 'other', '--role', 'member'], env);
    assert.notEqual(duplicate.status, 0);
    assert.equal(duplicate.stderr.trim(), 'sightline: the email ops@example.com is already in use (or belonged to a deleted user)');
    const weak = run(['admin', 'create-user', '--email', 'a@b.c', '--username', 'a', '--role', 'member', '--password', 'short'], env);
    assert.equal(weak.stderr.trim(), 'sightline: password must be at least 8 characters long');
    const badRole = run(['admin', 'create-user', '--email', 'a@b.c', '--username', 'a', '--role', 'owner'], env);
    assert.equal(badRole.stderr.trim(), 'sightline: role must be "admin" or "member"');
    const missing = run(['admin', 'create-user', '--email', 'a@b.c'], env);
    assert.notEqual(missing.status, 0);
    assert.match(missing.stderr, /required option '--username <username>' not specified/);

    const reset = run(['admin', 'reset-password', '--email', 'OPS@example.com', '--password', 'brand-new-password'], env);
    assert.equal(reset.status, 0, reset.stderr);
    assert.equal(reset.stdout.trim(), 'password reset for ops@example.com');
    const unknown = run(['admin', 'reset-password', '--email', 'nobody@example.com'], env);
    assert.notEqual(unknown.status, 0);
    assert.equal(unknown.stderr.trim(), 'sightline: no active user has the email nobody@example.com');

    // The operator's password works, and the user must change it first.
    const server = await startServer(
      loadConfig({
        ...env,
        SERVICE_PORT: '0',
        SERVICE_GRPC_PORT: '0',
        SERVICE_LOG_LEVEL: 'warn',
        SERVICE_ENABLE_AUTH: 'true',
        SERVICE_SECRET: 'x'.repeat(40),
      }),
    );
    try {
      const login = await fetch(`${server.url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ops@example.com', password: 'brand-new-password' }),
      });
      assert.equal(login.status, 204);
      const cookie = login.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const viewer = (await (await fetch(`${server.url}/v1/user`, { headers: { cookie } })).json()) as {
        data: { role: string; password_needs_reset: boolean };
      };
      assert.equal(viewer.data.role, 'admin');
      assert.equal(viewer.data.password_needs_reset, true);
    } finally {
      await server.close();
      fs.rmSync(workingDir, { recursive: true, force: true });
    }
  });

  it('serves, answers health checks, and stops cleanly on SIGTERM', async () => {
    const workingDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-cli-'));
    const child = spawn(process.execPath, [bin, 'serve'], {
      env: { PATH: process.env.PATH, HOME: workingDir, SERVICE_PORT: '0', SERVICE_GRPC_PORT: '0', SERVICE_LOG_LEVEL: 'warn' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner: ${output}`)), 20_000);
      child.stdout.on('data', () => {
        const match = /UI and REST API\s+(\S+)\//.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    assert.equal(await (await fetch(`${url}/healthz`)).text(), 'OK');
    assert.match(output, new RegExp(`SQLite ${workingDir}/\\.sightline/sightline\\.db`), 'default database in ~/.sightline');
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.ok(fs.existsSync(path.join(workingDir, '.sightline', 'sightline.db')));
    fs.rmSync(workingDir, { recursive: true, force: true });
  });
});
