/**
 * The folding writer thread: a worker owns the SQLite write connection, so commits never block
 * request handling, and every batch that queued up while the previous commit ran is folded into
 * the next transaction (one fsync for all of them). `ThreadBatchWriter` is the main thread's
 * side, `serveWriterThread` the worker's.
 */
import { parentPort, receiveMessageOnPort, type ResourceLimits, type TransferListItem } from 'node:worker_threads';
import { startWorker, WorkerRequests, type WorkerReply } from '../worker.js';
import { PartialWriteError } from './errors.js';
import type { BatchWriter } from './queue.js';

/** Messages from the main thread to the writer thread. */
export type WriterThreadMessage<I> =
  | { type: 'write'; id: number; items: I[] }
  | { type: 'task'; id: number; task: unknown }
  | { type: 'reset' }
  | { type: 'close' };

/**
 * The thread's answer to a write: nothing when every item committed, else each item's failure
 * message in order (null for an item that committed).
 */
export type WriteFailures = (string | null)[] | undefined;

/** What the worker module does with the items it receives. */
export interface WriterThreadHandlers<I> {
  /** Commits every item in one transaction (throws to roll them all back). */
  commit(items: I[]): void;
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

/**
 * Commits the items together; if that fails, each alone, so one bad item fails only itself.
 * Returns null when every item committed (the usual case, with nothing to allocate), else each
 * item's failure message, null for those committed. The thread holds the items, so it isolates a
 * bad one itself: the main thread may have moved them here rather than copied them.
 */
function commitItems<I>(handlers: WriterThreadHandlers<I>, items: I[]): (string | null)[] | null {
  try {
    handlers.commit(items);
    return null;
  } catch (error) {
    handlers.reset?.();
    if (items.length === 1) return [(error as Error).message];
  }
  return items.map((item) => commitItems(handlers, [item])?.[0] ?? null);
}

/** The replies to `writes`, whose items' failures are `failures` end to end (null: none failed). */
function writeReplies(writes: { id: number; items: unknown[] }[], failures: (string | null)[] | null): WorkerReply[] {
  if (failures === null) return writes.map(({ id }) => ({ id }));
  let start = 0;
  return writes.map(({ id, items }) => {
    const own = failures.slice(start, start + items.length);
    start += items.length;
    return own.every((failure) => failure === null) ? { id } : { id, result: own satisfies WriteFailures };
  });
}

/** Runs in the worker: answers every write message once its transaction committed. */
export function serveWriterThread<I>(handlers: WriterThreadHandlers<I>): void {
  const port = parentPort;
  if (!port) throw new Error('serveWriterThread must run in a worker thread');
  port.on('message', (first: WriterThreadMessage<I>) => {
    const writes: { id: number; items: I[] }[] = [];
    const tasks: { id: number; task: unknown }[] = [];
    let close = false;
    for (
      let message: WriterThreadMessage<I> | undefined = first;
      message !== undefined;
      message = receiveMessageOnPort(port)?.message as WriterThreadMessage<I> | undefined
    ) {
      if (message.type === 'write') writes.push(message);
      else if (message.type === 'task') tasks.push(message);
      else if (message.type === 'reset') handlers.reset?.();
      else close = true;
    }
    if (writes.length > 0) {
      const items = writes.length === 1 ? writes[0]!.items : writes.flatMap((write) => write.items);
      const failures = commitItems(handlers, items);
      const allFailed = failures?.every((failure) => failure !== null) ?? false;
      if (handlers.durable === undefined || allFailed) port.postMessage(writeReplies(writes, failures));
      else {
        // A failed sync fails every item that had committed.
        handlers.durable((error) =>
          port.postMessage(writeReplies(writes, error === null ? failures : items.map((_, index) => failures?.[index] ?? error.message))),
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

export interface ThreadBatchWriterOptions<I> {
  /** V8 heap limits of the thread. */
  resourceLimits?: ResourceLimits;
  /** The buffers of an encoded item that move to the thread instead of being copied (the item must not be used after). */
  transfer?: (item: I) => readonly TransferListItem[];
  /** Hears of a thread that stopped without being closed: nothing can be written any more. */
  onStopped?: (error: Error) => void;
}

/**
 * The main thread's BatchWriter over a writer thread. `encode` turns an item into what crosses
 * to the thread (arrays clone faster than objects). The thread isolates a bad item itself and
 * names it (PartialWriteError); any other rejection means the thread has stopped.
 */
export class ThreadBatchWriter<T, I = T> implements BatchWriter<T> {
  private readonly requests: WorkerRequests;
  private readonly transfer: ((item: I) => readonly TransferListItem[]) | undefined;

  constructor(
    workerUrl: URL,
    workerData: unknown,
    private readonly encode: (item: T) => I,
    options: ThreadBatchWriterOptions<I> = {},
  ) {
    this.requests = new WorkerRequests(
      startWorker(workerUrl, workerData, options.resourceLimits),
      'the SQLite writer thread stopped',
      options.onStopped,
    );
    this.transfer = options.transfer;
  }

  /** Commits the items; rejects with PartialWriteError when the thread stored only some of them. */
  async write(items: T[]): Promise<void> {
    const encoded = items.map(this.encode);
    const transfer = this.transfer === undefined ? undefined : encoded.flatMap(this.transfer);
    const failures = (await this.requests.request(
      (id) => ({ type: 'write', id, items: encoded }) satisfies WriterThreadMessage<I>,
      transfer,
    )) as WriteFailures;
    if (failures !== undefined) throw new PartialWriteError(failures.map((failure) => (failure === null ? null : new Error(failure))));
  }

  /** Runs a task on the thread's connection between commits; resolves to what the thread's `task` handler returned. */
  task(task: unknown): Promise<unknown> {
    return this.requests.request((id) => ({ type: 'task', id, task }) satisfies WriterThreadMessage<I>);
  }

  /** Asks the thread to drop its cached state. */
  reset(): void {
    this.requests.post({ type: 'reset' } satisfies WriterThreadMessage<I>);
  }

  close(): Promise<void> {
    return this.requests.close({ type: 'close' } satisfies WriterThreadMessage<I>);
  }
}
