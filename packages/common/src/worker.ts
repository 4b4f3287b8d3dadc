/** Worker threads: starting them whether the code runs built (.js) or from TypeScript sources under tsx (.ts), and awaiting their replies. */
import { type ResourceLimits, type TransferListItem, Worker } from 'node:worker_threads';

/** URL of the module `name` next to `base` (an import.meta.url), with the extension `base` has (.ts from sources, else .js). */
export function siblingModuleUrl(base: string, name: string): URL {
  return new URL(`./${name}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);
}

/**
 * Starts a worker on `url`, with V8 heap limits when given; a .ts module gets tsx registered
 * first, as Node 20 workers do not inherit loader hooks.
 */
export function startWorker(url: URL, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, { workerData, resourceLimits });
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData, resourceLimits });
}

/** A worker's answer to the request with the same id; `error` is the failure message. */
export interface WorkerReply {
  id: number;
  error?: string;
  /** What the request produced, when it produces something (structured-cloned). */
  result?: unknown;
}

/**
 * Requests to a worker thread, each settled by the WorkerReply with its id (the worker may post
 * replies alone or in arrays). Once the thread errors or exits, waiting and later requests reject.
 */
export class WorkerRequests {
  private readonly waiting = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private failure: Error | null = null;
  private closing = false;

  /**
   * Takes over `worker`'s replies; `exitMessage` is the error requests get once the thread has
   * stopped. `onStop` hears, once, of a thread that stopped without being closed.
   */
  constructor(
    private readonly worker: Worker,
    exitMessage: string,
    onStop?: (error: Error) => void,
  ) {
    worker.on('message', (message: WorkerReply | WorkerReply[]) => {
      for (const reply of Array.isArray(message) ? message : [message]) {
        const waiter = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        if (reply.error === undefined) waiter?.resolve(reply.result);
        else waiter?.reject(new Error(reply.error));
      }
    });
    const fail = (error: Error) => {
      // A thread that errors exits too: the first of the two is the reason.
      if (this.failure !== null) return;
      this.failure = error;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
      if (!this.closing) onStop?.(error);
    };
    worker.on('error', (error: Error) => fail(new Error(`${exitMessage}: ${error.message}`)));
    worker.on('exit', (code: number) => fail(new Error(`${exitMessage} (exit code ${code})`)));
  }

  /**
   * Posts the request `message(id)` builds and resolves to the reply's result when the worker
   * replies to that id. Buffers in `transfer` move to the worker instead of being copied; the
   * caller must not use them afterwards.
   */
  request(message: (id: number) => unknown, transfer?: readonly TransferListItem[]): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      try {
        this.worker.postMessage(message(id), transfer);
      } catch (error) {
        // Nothing was posted (e.g. a value that cannot be cloned): no reply will come.
        this.waiting.delete(id);
        reject(error as Error);
      }
    });
  }

  /** Posts a message that gets no reply; dropped once the thread has failed. */
  post(message: unknown): void {
    if (!this.failure) this.worker.postMessage(message);
  }

  /** Posts `message`, which must make the worker finish, and resolves when the thread exits (at once if it already failed). */
  async close(message: unknown): Promise<void> {
    if (this.failure) return;
    this.closing = true;
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    this.worker.postMessage(message);
    await exited;
  }
}
