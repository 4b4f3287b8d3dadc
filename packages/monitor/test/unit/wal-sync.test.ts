/** WalSync: the WAL sync of the log API's SQLite writer thread, inline and on the thread pool. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type WalFileCalls, WalSync } from '../../src/store/wal-sync.js';

/** File calls that record what WalSync does; asynchronous syncs finish when the test says so. */
class FakeFiles implements WalFileCalls {
  opened: string[] = [];
  closed: number[] = [];
  inlineSyncs = 0;
  /** Callbacks of the syncs running on the "thread pool", oldest first. */
  running: ((error: NodeJS.ErrnoException | null) => void)[] = [];
  mostRunning = 0;
  failOpen = false;

  realpathSync(path: string): string {
    return `/real${path}`;
  }
  openSync(path: string): number {
    if (this.failOpen) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    this.opened.push(path);
    return 42;
  }
  closeSync(fd: number): void {
    this.closed.push(fd);
  }
  fdatasyncSync(fd: number): void {
    assert.equal(fd, 42);
    this.inlineSyncs++;
  }
  fdatasync(fd: number, callback: (error: NodeJS.ErrnoException | null) => void): void {
    assert.equal(fd, 42);
    this.running.push(callback);
    this.mostRunning = Math.max(this.mostRunning, this.running.length);
  }
  /** Finishes the oldest running sync. */
  finishOne(error: NodeJS.ErrnoException | null = null): void {
    const callback = this.running.shift();
    assert.ok(callback, 'a sync is running');
    callback(error);
  }
}

describe('WalSync', () => {
  it('inline: syncs the WAL of the real file before it calls back, once per sync', () => {
    const files = new FakeFiles();
    const wal = new WalSync('/data/monitor.db', 1, files);
    const results: (Error | null)[] = [];
    wal.sync((error) => results.push(error));
    wal.sync((error) => results.push(error));
    assert.deepEqual(results, [null, null], 'called back before sync returned');
    assert.equal(files.inlineSyncs, 2);
    assert.deepEqual(files.opened, ['/real/data/monitor.db-wal'], 'the WAL is opened once, next to the real file');
    wal.close();
    assert.deepEqual(files.closed, [42]);
  });

  it('inline: a WAL that cannot be opened fails the sync', () => {
    const files = new FakeFiles();
    files.failOpen = true;
    let result: Error | null | undefined;
    new WalSync('/data/monitor.db', 1, files).sync((error) => (result = error));
    assert.match(String(result), /ENOENT/);
  });

  it('thread pool: at most maxRunning syncs at once; each caller waits for a sync that started after it asked', () => {
    const files = new FakeFiles();
    const wal = new WalSync('/data/monitor.db', 2, files);
    const done: string[] = [];
    wal.sync(() => done.push('a'));
    wal.sync(() => done.push('b'));
    wal.sync(() => done.push('c'));
    wal.sync(() => done.push('d'));
    assert.equal(files.running.length, 2, 'a and b each started a sync; c and d wait');
    files.finishOne();
    assert.deepEqual(done, ['a']);
    assert.equal(files.running.length, 2, 'one sync started for c and d together');
    files.finishOne();
    assert.deepEqual(done, ['a', 'b'], 'c and d asked after the second sync started: it does not cover them');
    files.finishOne();
    assert.deepEqual(done, ['a', 'b', 'c', 'd']);
    assert.equal(files.mostRunning, 2);
    assert.equal(files.inlineSyncs, 0);
  });

  it('thread pool: a failed sync fails the callers it covers, and close waits for the running syncs', () => {
    const files = new FakeFiles();
    const wal = new WalSync('/data/monitor.db', 4, files);
    const results: (string | null)[] = [];
    wal.sync((error) => results.push(error?.message ?? null));
    wal.close();
    assert.deepEqual(files.closed, [], 'the descriptor stays open while its sync runs');
    files.finishOne(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }));
    assert.deepEqual(results, ['EIO: i/o error']);
    assert.deepEqual(files.closed, [42], 'closed once the last sync returned');
  });
});
