/**
 * The WAL checkpoints (docs/ingest.md): with the writer's automatic checkpoint out of the way,
 * committed pages still reach the database file, from the compression thread that runs them,
 * and closing it leaves a whole database.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { openSqlite, runWalCheckpoints, WAL_SIZE_LIMIT_BYTES } from '@sightline/common';
import { startLongAttributesCompressor } from '../../src/span-model/long-attributes-compressor.js';
import { utf8ValueList } from '../../src/span-model/span-row-codec.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-checkpointer-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const eventually = async (check: () => boolean, what: string) => {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** A database whose writer never checkpoints, with `rows` rows committed to its WAL only. */
function databaseWithWal(name: string, rows: number) {
  const file = path.join(dir, name);
  const writer = openSqlite(file);
  writer.pragma('wal_autocheckpoint = 0');
  writer.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = writer.prepare('INSERT INTO rows (body) VALUES (?)');
  writer.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run('x'.repeat(200));
  })();
  assert.ok(fs.statSync(`${file}-wal`).size > rows * 200, 'the rows are in the WAL');
  return { file, writer, before: fs.statSync(file).size };
}

/** Opens the file read-only and checks it holds `rows` rows and is whole. */
function assertWhole(file: string, rows: number) {
  const reader = openSqlite(file, { readonly: true });
  assert.equal(reader.prepare('SELECT count(*) FROM rows').pluck().get(), rows);
  assert.equal(reader.pragma('integrity_check', { simple: true }), 'ok');
  reader.close();
}

test('committed pages reach the database file while the writer never checkpoints', async () => {
  const { file, writer, before } = databaseWithWal('wal.db', 2000);
  const errors: string[] = [];
  const checkpoints = runWalCheckpoints(file, { intervalMs: 20, onError: (message) => errors.push(message) });
  await eventually(() => fs.statSync(file).size > before + 400_000, 'the database file holds the rows');
  checkpoints.close();
  writer.close();
  assert.deepEqual(errors, []);
  assertWhole(file, 2000);
});

test('the compression thread checkpoints the WAL between its compressions', async () => {
  const { file, writer, before } = databaseWithWal('compressor.db', 2000);
  const errors: string[] = [];
  const compressor = startLongAttributesCompressor({ walCheckpoints: { file, onError: (message) => errors.push(message) } });
  try {
    const texts = utf8ValueList([JSON.stringify({ 'input.value': 'words '.repeat(50) })]);
    assert.equal((await compressor.compressTexts(texts)).ends.length, 1, 'it still compresses');
    await eventually(() => fs.statSync(file).size > before + 400_000, 'the database file holds the rows');
  } finally {
    await compressor.close();
  }
  writer.close();
  assert.deepEqual(errors, []);
  assertWhole(file, 2000);
});

test('checkpoints of a file that is not a database report the failure, and closing them is harmless', () => {
  const file = path.join(dir, 'not-a-database.db');
  fs.writeFileSync(file, 'this is not a SQLite file, but long enough to have a header'.repeat(10));
  const errors: string[] = [];
  const checkpoints = runWalCheckpoints(file, { intervalMs: 20, onError: (message) => errors.push(message) });
  assert.equal(errors.length, 1);
  assert.match(errors[0]!, /NOTADB|not a database/i);
  checkpoints.close();
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
