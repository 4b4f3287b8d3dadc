/**
 * Transactions on the server's SQLite connection wait for another connection's write lock: a
 * deferred transaction that read first used to fail at once with SQLITE_BUSY (a 503 in CI while
 * the writer thread committed), busy timeout or not. The writer threads' own transactions
 * (better-sqlite3) had the same flaw the other way round.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { immediateTransaction, openKysely, openSqlite } from '@sightline/common';
import { sql } from 'kysely';

/** Another thread's connection that takes the write lock, writes, says so, and commits after `holdMs`. */
const LOCK_HOLDER = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require('better-sqlite3');
const connection = new SQLite(workerData.file);
connection.exec('begin immediate');
connection.exec('insert into events (source) values (\\'holder\\')');
parentPort.postMessage('locked');
setTimeout(() => { connection.exec('commit'); connection.close(); parentPort.postMessage('committed'); }, workerData.holdMs);
`;

/** Starts the lock holder and resolves once it holds the lock, with a promise of its commit. */
async function holdWriteLock(file: string, holdMs: number): Promise<{ committed: Promise<void> }> {
  const holder = new Worker(LOCK_HOLDER, { eval: true, workerData: { file, holdMs } });
  const committed = new Promise<void>((resolve, reject) => {
    holder.on('error', reject);
    holder.on('message', (message: string) => {
      if (message === 'committed') void holder.terminate().then(() => resolve());
    });
  });
  await new Promise<void>((resolve, reject) => {
    holder.once('error', reject);
    holder.once('message', (message: string) => (message === 'locked' ? resolve() : reject(new Error(message))));
  });
  return { committed };
}

describe('SQLite transactions of the server connection', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-trx-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('wait for a write lock held by another connection when they read before they write', async () => {
    const file = path.join(dir, 'lock.db');
    const database = openKysely<{ events: { source: string } }>({ dialect: 'sqlite', url: file });
    try {
      await sql`create table events (source text not null)`.execute(database.db);
      const { committed } = await holdWriteLock(file, 300);

      const counted = await database.db.transaction().execute(async (trx) => {
        const { count } = await trx
          .selectFrom('events')
          .select((eb) => eb.fn.countAll<number>().as('count'))
          .executeTakeFirstOrThrow();
        await trx.insertInto('events').values({ source: 'server' }).execute();
        return count;
      });
      await committed;

      // It began after the holder committed: it saw the holder's row, and both rows are there.
      assert.equal(Number(counted), 1);
      const rows = await database.db.selectFrom('events').select('source').orderBy('source').execute();
      assert.deepEqual(
        rows.map((row) => row.source),
        ['holder', 'server'],
      );
    } finally {
      await database.close();
    }
  });

  it('of a writer thread wait for the lock too (immediateTransaction)', async () => {
    const file = path.join(dir, 'thread.db');
    const connection = openSqlite(file);
    try {
      connection.exec('create table events (source text not null)');
      const { committed } = await holdWriteLock(file, 300);
      const readThenWrite = immediateTransaction(connection, (source: string) => {
        const { count } = connection.prepare('select count(*) as count from events').get() as { count: number };
        connection.prepare('insert into events (source) values (?)').run(source);
        return count;
      });
      assert.equal(readThenWrite('thread'), 1);
      await committed;
      assert.deepEqual(connection.prepare('select source from events order by source').pluck().all(), ['holder', 'thread']);
    } finally {
      connection.close();
    }
  });
});
