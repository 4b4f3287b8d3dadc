/**
 * A 200 from POST /v1/log means stored: a SQLite monitor killed with SIGKILL in the middle of
 * sustained logging keeps every record it acknowledged (the writer commits without waiting for
 * the disk and acknowledges after its own WAL sync, docs/performance.md). Runs the built bin in
 * a child process (run `npm run build` first), once: the PostgreSQL path is not involved. The
 * WAL synced is the one SQLite writes, also behind a symbolic link.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openSqlite } from '@sightline/common';
import { loadMonitorConfig } from '../src/config.js';
import { startMonitorServer, withSpaces } from '../src/server.js';
import { fullRecord } from './helpers/bodies.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import { request } from './helpers/server.js';

const bin = path.resolve(import.meta.dirname, '../../cli/bin/sightline.js');
const CLIENTS = 16;
/** The kill comes once this many records were acknowledged, or at the deadline on a slow machine. */
const KILL_AFTER = 300;
const DEADLINE_MS = 5_000;

for (const _ of DIALECTS.filter((dialect) => dialect === 'sqlite')) {
  describe('log API durability under SIGKILL [sqlite]', () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase('sqlite');
    });
    after(async () => database?.drop());

    // One WAL sync at a time runs on the writer thread; more run on the thread pool (wal-sync.ts).
    for (const syncs of ['1', '4'])
      it(`every acknowledged record is in the database after the process is killed mid-load (MONITOR_SQLITE_SYNCS=${syncs})`, async () => {
        const config = loadMonitorConfig(database.env);
        const space = await withSpaces(config, (spaces) => spaces.createSpace('crash'));
        const model = `crash-model-${syncs}`;
        const child = spawn(process.execPath, [bin, 'monitor', 'serve'], {
          env: {
            PATH: process.env.PATH,
            HOME: os.tmpdir(),
            ...database.env,
            MONITOR_PORT: '0',
            MONITOR_LOG_LEVEL: 'warn',
            MONITOR_SQLITE_SYNCS: syncs,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
        const acknowledged: string[] = [];
        let killed = false;
        try {
          let base: string | undefined;
          for (let i = 0; i < 150 && base === undefined; i++) {
            base = /Log API +POST (http:\/\/\S+)\/v1\/log/.exec(output)?.[1];
            if (base === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
          }
          assert.ok(base, `the service did not start:\n${output}`);
          const kill = () => {
            killed = true;
            child.kill('SIGKILL');
          };
          const deadline = setTimeout(kill, DEADLINE_MS);
          const clients = Array.from({ length: CLIENTS }, async () => {
            while (!killed) {
              const body = fullRecord(space.space_key, { model_id: model });
              try {
                const response = await fetch(`${base}/v1/log`, {
                  method: 'POST',
                  headers: { authorization: space.api_key },
                  body: JSON.stringify(body),
                });
                if (response.status !== 200) assert.fail(`unexpected ${response.status}: ${await response.text()}`);
                acknowledged.push(body.prediction_id);
                // Killed while the other clients still have requests in flight.
                if (acknowledged.length === KILL_AFTER) kill();
              } catch (error) {
                if (!killed) throw error;
                return; // killed while this request was in flight: its fate is unknown
              }
            }
          });
          await Promise.all(clients);
          clearTimeout(deadline);
        } finally {
          child.kill('SIGKILL');
        }
        assert.equal(await exited, 'SIGKILL');
        assert.ok(acknowledged.length >= CLIENTS, `only ${acknowledged.length} records were acknowledged before the kill`);
        const connection = openSqlite(config.database.url);
        try {
          const stored = new Set(
            connection.prepare('SELECT prediction_id FROM monitor_records WHERE model_id = ?').pluck().all(model) as string[],
          );
          const missing = acknowledged.filter((id) => !stored.has(id));
          assert.deepEqual(missing, [], `${missing.length} of ${acknowledged.length} acknowledged records are missing`);
        } finally {
          connection.close();
        }
      });

    it('syncs the real WAL when the database is reached through a symbolic link', async () => {
      const target = path.join(database.workingDir, 'real', 'linked.db');
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const link = path.join(database.workingDir, 'link.db');
      fs.writeFileSync(target, '');
      fs.symlinkSync(target, link);
      const config = loadMonitorConfig({
        ...database.env,
        MONITOR_DATABASE_URL: `sqlite:${link}`,
        MONITOR_PORT: '0',
        MONITOR_LOG_LEVEL: 'silent',
      });
      const monitor = await startMonitorServer(config);
      try {
        const space = await monitor.spaces.createSpace('linked');
        const body = fullRecord(space.space_key);
        const response = await request(`${monitor.url}/v1/log`, {
          method: 'POST',
          headers: { authorization: space.api_key },
          body: JSON.stringify(body),
        });
        assert.equal(response.status, 200, response.text);
        assert.ok(fs.existsSync(`${target}-wal`) && !fs.existsSync(`${link}-wal`), 'SQLite keeps the WAL next to the real file');
      } finally {
        await monitor.close();
      }
    });
  });
}
