/** SpanWriter for SQLite: forwards batches to the writer worker thread and awaits its commit. */
import { siblingModuleUrl, startWorker, WorkerRequests } from '@sightline/common';
import type { SpanRow } from './span-rows.js';
import type { SpanWriter } from './span-writer.js';
import type { WorkerRequest } from './sqlite-writer-worker.js';

const workerUrl = siblingModuleUrl(import.meta.url, 'sqlite-writer-worker');

export class SqliteSpanWriter implements SpanWriter {
  private readonly requests: WorkerRequests;

  constructor(file: string) {
    this.requests = new WorkerRequests(startWorker(workerUrl, { file }), 'the SQLite writer thread stopped');
  }

  write(rows: SpanRow[]): Promise<void> {
    return this.requests.request((id) => ({ type: 'write', id, rows }) satisfies WorkerRequest);
  }

  forgetProjects(): void {
    this.requests.post({ type: 'forget' } satisfies WorkerRequest);
  }

  close(): Promise<void> {
    return this.requests.close({ type: 'close' } satisfies WorkerRequest);
  }
}
