/**
 * The WAL checkpointer thread (docs/ingest.md): with the writer's automatic checkpoint out of
 * the way, committed pages still reach the database file, and closing it leaves a whole database.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { openSqlite, startSqliteCheckpointer, WAL_SIZE_LIMIT_BYTES } from '@sightline/common';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-checkpointer-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const eventually = async (check: () => boolean, what: string) => {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

test('committed pages reach the database file while the writer never checkpoints', async () => {
  const file = path.join(dir, 'wal.db');
  const writer = openSqlite(file);
  writer.pragma('wal_autocheckpoint = 0');
  writer.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = writer.prepare('INSERT INTO rows (body) VALUES (?)');
  writer.transaction(() => {
    for (let i = 0; i < 2000; i++) insert.run('x'.repeat(200));
  })();
  const before = fs.statSync(file).size;
  assert.ok(fs.statSync(`${file}-wal`).size > 400_000, 'the rows are in the WAL');

  const errors: string[] = [];
  const checkpointer = startSqliteCheckpointer(file, { intervalMs: 20, onError: (message) => errors.push(message) });
  await eventually(() => fs.statSync(file).size > before + 400_000, 'the database file holds the rows');
  await checkpointer.close();
  writer.close();
  assert.deepEqual(errors, []);

  const reader = openSqlite(file, { readonly: true });
  assert.equal(reader.prepare('SELECT count(*) FROM rows').pluck().get(), 2000);
  assert.equal(reader.pragma('integrity_check', { simple: true }), 'ok');
  reader.close();
});

test('a checkpointer on a file that is not a database reports the failure and closes', async () => {
  const file = path.join(dir, 'not-a-database.db');
  fs.writeFileSync(file, 'this is not a SQLite file, but long enough to have a header'.repeat(10));
  const errors: string[] = [];
  const checkpointer = startSqliteCheckpointer(file, { intervalMs: 20, onError: (message) => errors.push(message) });
  await eventually(() => errors.length > 0, 'an error is reported');
  assert.match(errors[0]!, /NOTADB|not a database/i);
  await checkpointer.close();
});

test('a WAL that grew past the limit is cut back to it when it restarts', () => {
  const file = path.join(dir, 'limit.db');
  const writer = openSqlite(file);
  writer.pragma('wal_autocheckpoint = 0');
  writer.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = writer.prepare('INSERT INTO rows (body) VALUES (?)');
  // About 1.5 times the limit of WAL in one transaction.
  const rows = Math.ceil((WAL_SIZE_LIMIT_BYTES * 1.5) / 4000);
  writer.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run('y'.repeat(3900));
  })();
  assert.ok(fs.statSync(`${file}-wal`).size > WAL_SIZE_LIMIT_BYTES, 'the WAL grew past the limit');
  writer.pragma('wal_checkpoint(PASSIVE)');
  // The next write restarts the WAL from its start, and truncates the file to the limit.
  insert.run('z');
  assert.ok(fs.statSync(`${file}-wal`).size <= WAL_SIZE_LIMIT_BYTES, `WAL of ${fs.statSync(`${file}-wal`).size} bytes`);
  assert.equal(writer.prepare('SELECT count(*) FROM rows').pluck().get(), rows + 1);
  writer.close();
});
