/**
 * Bounded ingest queue with group commit: requests enqueue their rows, one writer loop commits
 * everything waiting in large transactions, and each request resolves only after its commit.
 */
import type { SpanRow } from './span-rows.js';
import type { SpanWriter } from './span-writer.js';

/** The queue is full; the caller should answer 503 (HTTP) or RESOURCE_EXHAUSTED (gRPC) and retry later. */
export class QueueFullError extends Error {
  override readonly name = 'QueueFullError';
  constructor(readonly retryAfterSeconds: number) {
    super('the server is busy writing earlier spans; retry later');
  }
}

/** Storage failed; the spans were not stored and the client should retry. */
export class StorageError extends Error {
  override readonly name = 'StorageError';
}

interface Pending {
  rows: SpanRow[];
  resolve: () => void;
  reject: (error: Error) => void;
}

export interface WriteQueueOptions {
  maxQueuedSpans: number;
  maxBatchSpans: number;
  onError?: (error: unknown) => void;
}

export class WriteQueue {
  private pending: Pending[] = [];
  private queuedSpans = 0;
  private writing = false;
  private closed = false;
  private idle: Promise<void> = Promise.resolve();
  private markIdle: () => void = () => {};

  constructor(
    private readonly writer: SpanWriter,
    private readonly options: WriteQueueOptions,
  ) {}

  /** Spans accepted but not yet committed. */
  get depth(): number {
    return this.queuedSpans;
  }

  /** Queues rows for the next commit; throws QueueFullError at once when there is no room. */
  enqueue(rows: SpanRow[]): Promise<void> {
    if (this.closed) return Promise.reject(new StorageError('the server is shutting down'));
    if (rows.length === 0) return Promise.resolve();
    // A single request larger than the whole queue is still admitted when the queue is empty.
    if (this.queuedSpans > 0 && this.queuedSpans + rows.length > this.options.maxQueuedSpans) {
      throw new QueueFullError(1);
    }
    this.queuedSpans += rows.length;
    const promise = new Promise<void>((resolve, reject) => this.pending.push({ rows, resolve, reject }));
    if (!this.writing) void this.pump();
    return promise;
  }

  /** Stops accepting rows and waits until everything queued is committed. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle;
  }

  private async pump(): Promise<void> {
    this.writing = true;
    this.idle = new Promise((resolve) => (this.markIdle = resolve));
    try {
      while (this.pending.length > 0) {
        const batch = this.takeBatch();
        await this.commit(batch);
      }
    } finally {
      this.writing = false;
      this.markIdle();
    }
  }

  private takeBatch(): Pending[] {
    const batch: Pending[] = [];
    let spans = 0;
    while (this.pending.length > 0) {
      const next = this.pending[0]!;
      if (batch.length > 0 && spans + next.rows.length > this.options.maxBatchSpans) break;
      batch.push(this.pending.shift()!);
      spans += next.rows.length;
    }
    return batch;
  }

  private async commit(batch: Pending[]): Promise<void> {
    const settle = (items: Pending[], error?: Error) => {
      for (const item of items) {
        this.queuedSpans -= item.rows.length;
        if (error) item.reject(error);
        else item.resolve();
      }
    };
    try {
      await this.writer.write(batch.length === 1 ? batch[0]!.rows : batch.flatMap((item) => item.rows));
      settle(batch);
      return;
    } catch (error) {
      if (batch.length === 1) {
        this.options.onError?.(error);
        settle(batch, new StorageError('the spans could not be stored; retry later'));
        return;
      }
    }
    // One request's rows must not fail the others' commit: retry them one by one.
    this.writer.forgetProjects();
    for (const item of batch) {
      try {
        await this.writer.write(item.rows);
        settle([item]);
      } catch (error) {
        this.options.onError?.(error);
        settle([item], new StorageError('the spans could not be stored; retry later'));
      }
    }
  }
}
