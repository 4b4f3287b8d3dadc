/**
 * The folding writer thread: a worker owns the SQLite write connection, so commits never block
 * request handling, and every batch that queued up while the previous commit ran is folded into
 * the next transaction (one fsync for all of them). `ThreadBatchWriter` is the main thread's
 * side, `serveWriterThread` the worker's.
 */
import { parentPort, receiveMessageOnPort, type ResourceLimits } from 'node:worker_threads';
import { startWorker, WorkerRequests, type WorkerReply } from '../worker.js';
import type { BatchWriter } from './queue.js';

/** Messages from the main thread to the writer thread. */
export type WriterThreadMessage<W> =
  | { type: 'write'; id: number; batch: W }
  | { type: 'task'; id: number; task: unknown }
  | { type: 'reset' }
  | { type: 'close' };

/** What the worker module does with the batches it receives. */
export interface WriterThreadHandlers<W> {
  /** Commits every batch in one transaction (throws to roll them all back). */
  commit(batches: W[]): void;
  /** Drops cached state (e.g. project ids) after a failure or on request. */
  reset?(): void;
  /**
   * Runs other write work on the same connection, between commits (e.g. the retention job's
   * deletions), so it never contends with the commits for SQLite's write lock; returns its result.
   */
  task?(task: unknown): unknown;
  /**
   * Makes what `commit` wrote durable before it is acknowledged, for connections that commit
   * without syncing (e.g. an fdatasync of the WAL after synchronous=NORMAL commits); the commit's
   * replies are posted when `done` is called, as failures when it gets an error. Without it a
   * write is acknowledged as soon as its commit returns.
   */
  durable?(done: (error: Error | null) => void): void;
  /** Closes the connection before the thread ends. */
  close(): void;
}

/** Commits the writes together; if that fails, each alone, so one bad batch fails only itself. */
function commitFolded<W>(handlers: WriterThreadHandlers<W>, writes: { id: number; batch: W }[]): WorkerReply[] {
  try {
    handlers.commit(writes.map((write) => write.batch));
    return writes.map((write) => ({ id: write.id }));
  } catch (error) {
    handlers.reset?.();
    if (writes.length === 1) return [{ id: writes[0]!.id, error: (error as Error).message }];
  }
  return writes.flatMap((write) => commitFolded(handlers, [write]));
}

/** Runs in the worker: answers every write message once its transaction committed. */
export function serveWriterThread<W>(handlers: WriterThreadHandlers<W>): void {
  const port = parentPort;
  if (!port) throw new Error('serveWriterThread must run in a worker thread');
  port.on('message', (first: WriterThreadMessage<W>) => {
    const writes: { id: number; batch: W }[] = [];
    const tasks: { id: number; task: unknown }[] = [];
    let close = false;
    for (
      let message: WriterThreadMessage<W> | undefined = first;
      message !== undefined;
      message = receiveMessageOnPort(port)?.message as WriterThreadMessage<W> | undefined
    ) {
      if (message.type === 'write') writes.push(message);
      else if (message.type === 'task') tasks.push(message);
      else if (message.type === 'reset') handlers.reset?.();
      else close = true;
    }
    if (writes.length > 0) {
      const replies = commitFolded(handlers, writes);
      if (handlers.durable === undefined || replies.every((reply) => reply.error !== undefined)) port.postMessage(replies);
      else {
        handlers.durable((error) =>
          port.postMessage(error === null ? replies : replies.map((reply) => ({ id: reply.id, error: reply.error ?? error.message }))),
        );
      }
    }
    for (const { id, task } of tasks) {
      try {
        if (!handlers.task) throw new Error('this writer thread runs no tasks');
        port.postMessage({ id, result: handlers.task(task) } satisfies WorkerReply);
      } catch (error) {
        port.postMessage({ id, error: (error as Error).message } satisfies WorkerReply);
      }
    }
    if (close) {
      handlers.close();
      port.close();
    }
  });
}

/**
 * The main thread's BatchWriter over a writer thread. `encode` turns a batch into what crosses
 * to the thread (arrays clone faster than objects).
 */
export class ThreadBatchWriter<T, W = T[]> implements BatchWriter<T> {
  private readonly requests: WorkerRequests;

  constructor(
    workerUrl: URL,
    workerData: unknown,
    private readonly encode: (items: T[]) => W,
    resourceLimits?: ResourceLimits,
  ) {
    this.requests = new WorkerRequests(startWorker(workerUrl, workerData, resourceLimits), 'the SQLite writer thread stopped');
  }

  async write(items: T[]): Promise<void> {
    await this.requests.request((id) => ({ type: 'write', id, batch: this.encode(items) }) satisfies WriterThreadMessage<W>);
  }

  /** Runs a task on the thread's connection between commits; resolves to what the thread's `task` handler returned. */
  task(task: unknown): Promise<unknown> {
    return this.requests.request((id) => ({ type: 'task', id, task }) satisfies WriterThreadMessage<W>);
  }

  /** Asks the thread to drop its cached state. */
  reset(): void {
    this.requests.post({ type: 'reset' } satisfies WriterThreadMessage<W>);
  }

  close(): Promise<void> {
    return this.requests.close({ type: 'close' } satisfies WriterThreadMessage<W>);
  }
}
