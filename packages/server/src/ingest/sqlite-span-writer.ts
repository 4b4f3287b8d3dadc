/** SpanWriter for SQLite: forwards batches to the writer worker thread and awaits its commit. */
import { Worker } from 'node:worker_threads';
import type { SpanRow } from './span-rows.js';
import type { SpanWriter } from './span-writer.js';
import type { WorkerReply, WorkerRequest } from './sqlite-writer-worker.js';

// Under tsx (tests) the sources are .ts; the build runs the compiled .js.
const workerUrl = new URL(`./sqlite-writer-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

export class SqliteSpanWriter implements SpanWriter {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private failure: Error | null = null;

  constructor(file: string) {
    this.worker = new Worker(workerUrl, { workerData: { file } });
    this.worker.on('message', (reply: WorkerReply) => {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (reply.error === undefined) waiter?.resolve();
      else waiter?.reject(new Error(reply.error));
    });
    const fail = (error: Error) => {
      this.failure = error;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', () => fail(new Error('the SQLite writer thread stopped')));
  }

  write(rows: SpanRow[]): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'write', id, rows } satisfies WorkerRequest);
    });
  }

  forgetProjects(): void {
    if (!this.failure) this.worker.postMessage({ type: 'forget' } satisfies WorkerRequest);
  }

  async close(): Promise<void> {
    if (this.failure) return;
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    this.worker.postMessage({ type: 'close' } satisfies WorkerRequest);
    await exited;
  }
}
