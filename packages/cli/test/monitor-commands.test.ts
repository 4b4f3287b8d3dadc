/** `sightline monitor ...` as an operator runs it: the built bin in a child process (run `npm run build` first). */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fullRecord } from '../../monitor/test/helpers/bodies.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../../monitor/test/helpers/databases.js';

const bin = path.resolve(import.meta.dirname, '../bin/sightline.js');

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: os.tmpdir(), ...env },
    timeout: 30_000,
  });
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

describe('sightline monitor: help and refusals', () => {
  it('prints --help for the group and every command', () => {
    const group = run(['monitor', '--help']);
    assert.equal(group.status, 0);
    for (const command of ['serve', 'create-space', 'rotate-key', 'list-spaces']) {
      assert.match(group.stdout, new RegExp(command));
      const help = run(['monitor', command, '--help']);
      assert.equal(help.status, 0, command);
      assert.match(help.stdout, new RegExp(`Usage: sightline monitor ${command}`));
    }
    assert.match(run(['monitor', 'create-space', '--help']).stdout, /--json/);
    assert.match(run(['--help']).stdout, /monitor/);
  });

  it('stops with a one-line reason naming the bad variable or option', () => {
    const badPort = run(['monitor', 'serve'], { MONITOR_PORT: 'http' });
    assert.notEqual(badPort.status, 0);
    assert.equal(badPort.stderr.trim(), 'sightline: MONITOR_PORT: expected a port number from 0 to 65535, got "http"');
    const badUrl = run(['monitor', 'list-spaces'], { MONITOR_DATABASE_URL: 'mysql://db/monitor' });
    assert.notEqual(badUrl.status, 0);
    assert.equal(badUrl.stderr.trim(), 'sightline: MONITOR_DATABASE_URL: expected a postgresql://… or sqlite:… URL');
    const noName = run(['monitor', 'create-space']);
    assert.notEqual(noName.status, 0);
    assert.match(noName.stderr, /required option '--name <name>' not specified/);
    const badToken = run(['monitor', 'serve'], { MONITOR_ADMIN_TOKEN: 'abc' });
    assert.notEqual(badToken.status, 0);
    assert.match(badToken.stderr, /^sightline: MONITOR_ADMIN_TOKEN: /);
  });
});

for (const dialect of DIALECTS) {
  describe(`sightline monitor on ${dialect}`, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(dialect);
    });
    after(async () => database.drop());

    it('creates spaces (--json prints exactly one object), lists them, rotates keys', () => {
      const created = run(['monitor', 'create-space', '--name', 'fraud', '--json'], database.env);
      assert.equal(created.status, 0, created.stderr);
      const lines = created.stdout.trim().split('\n');
      assert.equal(lines.length, 1);
      const issued = JSON.parse(lines[0]!);
      assert.deepEqual(Object.keys(issued), ['space_id', 'space_key', 'api_key']);
      assert.match(issued.api_key, /^slm-ak-/);
      assert.match(issued.space_key, /^slm-sk-/);

      const listed = run(['monitor', 'list-spaces', '--json'], database.env);
      assert.equal(listed.status, 0, listed.stderr);
      const spaces = JSON.parse(listed.stdout);
      assert.deepEqual(
        spaces.map((space: any) => [space.name, space.active_api_keys]),
        [['fraud', 1]],
      );
      assert.ok(!listed.stdout.includes(issued.api_key));

      const rotated = run(['monitor', 'rotate-key', '--space', 'fraud', '--json'], database.env);
      assert.equal(rotated.status, 0, rotated.stderr);
      const keys = JSON.parse(rotated.stdout);
      assert.deepEqual(Object.keys(keys), ['space_id', 'api_key']);
      assert.equal(keys.space_id, issued.space_id);
      assert.notEqual(keys.api_key, issued.api_key);
      if (dialect === 'postgres') return; // the rest is the same code on either database; each spawn costs ~1 s
      const both = run(['monitor', 'rotate-key', '--space', issued.space_id, '--space-key'], database.env);
      assert.equal(both.status, 0, both.stderr);
      assert.match(both.stdout, /API key: {3}slm-ak-\S+\nspace key: slm-sk-\S+/);
      const text = run(['monitor', 'create-space', '--name', 'churn'], database.env);
      assert.equal(text.status, 0, text.stderr);
      assert.match(text.stdout, /^created space \d+ "churn"\nspace key: slm-sk-\S+\nAPI key: {3}slm-ak-\S+\n/);
      assert.match(run(['monitor', 'list-spaces'], database.env).stdout, /^\d+\tfraud\tcreated \S+\t1 active API key\n\d+\tchurn\t/);
      const unknown = run(['monitor', 'rotate-key', '--space', 'nope'], database.env);
      assert.notEqual(unknown.status, 0);
      assert.equal(unknown.stderr.trim(), 'sightline: no space is named "nope"');
      assert.equal(run(['monitor', 'create-space', '--name', 'churn'], database.env).status, 0);
      const ambiguous = run(['monitor', 'rotate-key', '--space', 'churn'], database.env);
      assert.equal(ambiguous.stderr.trim(), 'sightline: several spaces are named "churn"; give the space id instead');
      const blank = run(['monitor', 'create-space', '--name', '  '], database.env);
      assert.notEqual(blank.status, 0);
      assert.equal(blank.stderr.trim(), 'sightline: the space name must be a non-empty string');
    });

    it('serves /v1/log with keys made by the CLI, and stops cleanly on SIGTERM', async () => {
      const issued = JSON.parse(run(['monitor', 'create-space', '--name', 'served', '--json'], database.env).stdout);
      const port = await freePort();
      const child = spawn(process.execPath, [bin, 'monitor', 'serve'], {
        env: { PATH: process.env.PATH, HOME: os.tmpdir(), ...database.env, MONITOR_PORT: String(port), MONITOR_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        const base = `http://127.0.0.1:${port}`;
        for (let i = 0; i < 100 && !output.includes('Log API'); i++) await new Promise((resolve) => setTimeout(resolve, 100));
        assert.match(output, new RegExp(`Log API {6}POST ${base}/v1/log`));
        assert.equal(await (await fetch(`${base}/healthz`)).text(), 'OK');
        const body = fullRecord(issued.space_key);
        const response = await fetch(`${base}/v1/log`, {
          method: 'POST',
          headers: { authorization: issued.api_key },
          body: JSON.stringify(body),
        });
        assert.deepEqual([response.status, await response.json()], [200, { message: 'OK' }]);
        const read = await fetch(`${base}/v1/models/${body.model_id}/records/${body.prediction_id}`, {
          headers: { authorization: issued.api_key, 'space-key': issued.space_key },
        });
        assert.equal(read.status, 200);
      } finally {
        child.kill('SIGTERM');
      }
      assert.equal(await exited, 0, output);
    });
  });
}
