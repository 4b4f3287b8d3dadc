/** RecordWriter for SQLite: forwards batches to the writer thread at once and awaits their commit. */
import { siblingModuleUrl, startWorker, WorkerRequests } from '@sightline/common';
import { rowValues, type RecordRow } from './record-rows.js';
import type { RecordWriter } from './record-writer.js';
import type { WorkerRequest } from './sqlite-writer-worker.js';

const workerUrl = siblingModuleUrl(import.meta.url, 'sqlite-writer-worker');

export class SqliteRecordWriter implements RecordWriter {
  private readonly requests: WorkerRequests;

  constructor(file: string) {
    this.requests = new WorkerRequests(startWorker(workerUrl, { file }), 'the SQLite writer thread stopped');
  }

  write(rows: RecordRow[]): Promise<void> {
    return this.requests.request((id) => ({ type: 'write', id, rows: rows.map(rowValues) }) satisfies WorkerRequest);
  }

  close(): Promise<void> {
    return this.requests.close({ type: 'close' } satisfies WorkerRequest);
  }
}
