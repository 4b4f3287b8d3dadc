/** Syncs a SQLite database's WAL file after commits made with synchronous=NORMAL (the log API's writer thread). */
import fs from 'node:fs';

/** The file calls WalSync makes (node:fs's). */
export interface WalFileCalls {
  realpathSync(path: string): string;
  openSync(path: string, flags: string): number;
  closeSync(fd: number): void;
  fdatasyncSync(fd: number): void;
  fdatasync(fd: number, callback: (error: NodeJS.ErrnoException | null) => void): void;
}

/**
 * The fdatasync of the WAL before commits are acknowledged (docs/performance.md, "Log API").
 * With one sync at a time (the default) it runs inline on the writer thread, right after the
 * commit: batches that arrive meanwhile are folded into the next commit, and no other thread
 * wakes for it. With more, a sync runs on libuv's thread pool while the writer goes on
 * committing; a sync covers every commit that returned before it started, and up to
 * `maxRunning` run at once (for disks that overlap flushes). fdatasync, not fsync: the WAL is
 * overwritten in place, so the inode's times need no journal commit.
 */
export class WalSync {
  /** Opened at the first sync (the WAL exists once a commit returned); the open connection keeps the file in place. */
  private fd: number | null = null;
  private running = 0;
  private waiting: ((error: Error | null) => void)[] = [];
  private closing = false;

  /** `database`: the SQLite file; `maxRunning`: syncs at once (1: inline); `io`: the file calls (tests replace them). */
  constructor(
    private readonly database: string,
    private readonly maxRunning: number,
    private readonly io: WalFileCalls = fs,
  ) {}

  /** Calls `done` once everything committed so far is on disk (or with the sync's error). */
  sync(done: (error: Error | null) => void): void {
    if (this.maxRunning <= 1) {
      let failure: Error | null = null;
      try {
        this.io.fdatasyncSync(this.wal());
      } catch (error) {
        failure = error as Error;
      }
      done(failure);
      return;
    }
    this.waiting.push(done);
    if (this.running < this.maxRunning) this.start();
  }

  /** Closes the WAL's descriptor, after the syncs still running (a closed descriptor's number may be reused). */
  close(): void {
    this.closing = true;
    if (this.running === 0 && this.fd !== null) {
      this.io.closeSync(this.fd);
      this.fd = null;
    }
  }

  private wal(): number {
    // SQLite keeps the WAL next to the database file a symbolic link points to.
    this.fd ??= this.io.openSync(`${this.io.realpathSync(this.database)}-wal`, 'r');
    return this.fd;
  }

  private start(): void {
    const covered = this.waiting;
    this.waiting = [];
    this.running++;
    let fd: number;
    try {
      fd = this.wal();
    } catch (error) {
      this.finish(covered, error as Error);
      return;
    }
    this.io.fdatasync(fd, (error) => this.finish(covered, error));
  }

  private finish(covered: ((error: Error | null) => void)[], error: Error | null): void {
    this.running--;
    for (const done of covered) done(error);
    if (this.waiting.length > 0 && this.running < this.maxRunning) this.start();
    else if (this.closing) this.close();
  }
}
