/** RecordWriter for SQLite: forwards batches to the writer thread at once and awaits their commit. */
import { Worker } from 'node:worker_threads';
import { rowValues, type RecordRow } from './record-rows.js';
import type { RecordWriter } from './record-writer.js';
import type { WorkerReply, WorkerRequest } from './sqlite-writer-worker.js';

const fromSources = import.meta.url.endsWith('.ts');
const workerUrl = new URL(`./sqlite-writer-worker${fromSources ? '.ts' : '.js'}`, import.meta.url);

/** The writer thread; from TypeScript sources (tests) it registers tsx first, as Node 20 workers do not inherit loader hooks. */
function startWorker(file: string): Worker {
  if (!fromSources) return new Worker(workerUrl, { workerData: { file } });
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(workerUrl.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData: { file } });
}

export class SqliteRecordWriter implements RecordWriter {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private failure: Error | null = null;

  constructor(file: string) {
    this.worker = startWorker(file);
    this.worker.on('message', (replies: WorkerReply[]) => {
      for (const reply of replies) {
        const waiter = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        if (reply.error === undefined) waiter?.resolve();
        else waiter?.reject(new Error(reply.error));
      }
    });
    const fail = (error: Error) => {
      this.failure = error;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', () => fail(new Error('the SQLite writer thread stopped')));
  }

  write(rows: RecordRow[]): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'write', id, rows: rows.map(rowValues) } satisfies WorkerRequest);
    });
  }

  async close(): Promise<void> {
    if (this.failure) return;
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    this.worker.postMessage({ type: 'close' } satisfies WorkerRequest);
    await exited;
  }
}
