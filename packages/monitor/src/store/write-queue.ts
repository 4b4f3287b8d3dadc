/**
 * Bounded write queue with group commit: each request enqueues its row; the rows that arrived
 * in one turn of the event loop go to the writer together, and each request resolves only
 * after the transaction holding its row has committed. Up to `maxInFlight` batches may be at the
 * writer at once (the SQLite writer thread folds everything waiting into one transaction; the
 * PostgreSQL writer commits on several connections), so a slow commit never idles the intake.
 */
import type { RecordRow } from './record-rows.js';
import type { RecordWriter } from './record-writer.js';

/** The queue is full; the caller answers 503 with Retry-After. */
export class QueueFullError extends Error {
  override readonly name = 'QueueFullError';
  constructor(readonly retryAfterSeconds: number) {
    super('the service is busy writing earlier records; retry later');
  }
}

/** Storage failed; the record was not stored. */
export class StorageError extends Error {
  override readonly name = 'StorageError';
}

interface Pending {
  row: RecordRow;
  resolve: () => void;
  reject: (error: Error) => void;
}

export interface WriteQueueOptions {
  /** Rows accepted but not committed beyond which enqueue refuses (503). */
  maxQueuedRecords: number;
  /** Most rows handed to the writer in one call. */
  maxBatchRecords: number;
  /** Most writer calls in progress at once. */
  maxInFlight?: number;
  onError?: (error: unknown) => void;
}

export class WriteQueue {
  private pending: Pending[] = [];
  /** Rows accepted and not yet settled (pending and at the writer). */
  private open = 0;
  private inFlight = 0;
  private scheduled = false;
  private closed = false;
  private readonly drained: (() => void)[] = [];
  private readonly maxInFlight: number;

  constructor(
    private readonly writer: RecordWriter,
    private readonly options: WriteQueueOptions,
  ) {
    this.maxInFlight = options.maxInFlight ?? 1;
  }

  /** Rows accepted but not yet committed. */
  get depth(): number {
    return this.open;
  }

  /** Queues a row for the next commit; throws QueueFullError at once when there is no room. */
  enqueue(row: RecordRow): Promise<void> {
    if (this.closed) return Promise.reject(new StorageError('the service is shutting down'));
    if (this.open >= this.options.maxQueuedRecords) throw new QueueFullError(1);
    this.open++;
    const promise = new Promise<void>((resolve, reject) => this.pending.push({ row, resolve, reject }));
    this.schedule();
    return promise;
  }

  /** Stops accepting rows and waits until everything accepted is committed (or failed). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.open === 0) return;
    await new Promise<void>((resolve) => this.drained.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight) return;
    this.scheduled = true;
    // Let every request that arrives in this turn of the event loop join the batch.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.pending.length > 0 && this.inFlight < this.maxInFlight) {
      const max = this.options.maxBatchRecords;
      const batch = this.pending.length <= max ? this.pending : this.pending.slice(0, max);
      this.pending = batch === this.pending ? [] : this.pending.slice(max);
      this.inFlight++;
      void this.commit(batch).finally(() => {
        this.inFlight--;
        if (this.pending.length > 0) this.schedule();
      });
    }
  }

  private settle(item: Pending, error?: Error): void {
    this.open--;
    if (error) item.reject(error);
    else item.resolve();
    if (this.open === 0) for (const resolve of this.drained.splice(0)) resolve();
  }

  private async commit(batch: Pending[]): Promise<void> {
    try {
      await this.writer.write(batch.map((item) => item.row));
      for (const item of batch) this.settle(item);
      return;
    } catch (error) {
      if (batch.length === 1) {
        this.options.onError?.(error);
        this.settle(batch[0]!, new StorageError('the record could not be stored'));
        return;
      }
    }
    // One record must not fail the others' commit: retry them one by one.
    for (const item of batch) {
      try {
        await this.writer.write([item.row]);
        this.settle(item);
      } catch (error) {
        this.options.onError?.(error);
        this.settle(item, new StorageError('the record could not be stored'));
      }
    }
  }
}
