/**
 * The group-commit engine of both services (docs/architecture.md, "Write path"): requests
 * enqueue items; whatever arrived in one turn of the event loop goes to the writer as one batch,
 * up to `maxInFlight` batches at once; each request resolves only after the transaction holding
 * its item committed. The queue is bounded by weight (a span export weighs its span count, a log
 * record 1), and one bad request never fails the others: a writer either reports each item's
 * outcome itself, or a failing batch is split and every item retried alone.
 */
import { PartialWriteError, QueueFullError, StorageError } from './errors.js';

/** What the queue needs from storage: commit a batch atomically and durably. */
export interface BatchWriter<T> {
  /**
   * Commits every item in one transaction; resolves only once the commit is durable. A writer
   * that isolates a bad item itself rejects with PartialWriteError, naming the items that failed;
   * on any other rejection the queue retries each item alone.
   */
  write(items: T[]): Promise<void>;
}

/** The texts of the queue's refusals (each service speaks of its own items). */
export interface GroupCommitMessages {
  /** The queue is full. */
  full: string;
  /** The write failed. */
  failed: string;
  /** The queue is closing. */
  closing: string;
}

export interface GroupCommitOptions<T> {
  /** Weight accepted and not yet committed beyond which enqueue refuses. */
  maxQueuedWeight: number;
  /** Most weight handed to the writer in one batch (a single heavier item still goes alone). */
  maxBatchWeight: number;
  /** Most batches at the writer at once (default 1). */
  maxInFlight?: number;
  /** An item's weight (default 1); weight 0 resolves at once without a write. */
  weigh?: (item: T) => number;
  messages: GroupCommitMessages;
  /** Retry-After of a refusal for a full queue (default 1 s) and for a failed write (default 5 s). */
  retryAfterSeconds?: { full?: number; failed?: number };
  /** Called with every write failure that fails a request. */
  onError?: (error: unknown) => void;
  /** Called before the items of a failed batch are retried alone (e.g. to drop cached ids). */
  beforeRetry?: () => void;
}

/** What a writer that threw nothing at all failed with. */
const WRITE_FAILED = new Error('the write failed');

/** Why item `index` of a rejected write failed: its own failure (null: committed) if the writer named one, else the whole write's. */
function failureOf(error: unknown, index: number): unknown {
  if (error instanceof PartialWriteError) {
    const failure = error.failures[index];
    return failure === undefined ? error : failure;
  }
  return error ?? WRITE_FAILED;
}

/** A request waiting in line for room in the queue. */
interface RoomWaiter {
  weight: number;
  admit: () => void;
  /** Turns the waiter away (the queue is closing). */
  refuse: () => void;
  timer: NodeJS.Timeout;
}

interface Pending<T> {
  item: T;
  weight: number;
  /** Called once: with null after the commit, with the refusal otherwise. */
  done: (error: Error | null) => void;
}

/** A bounded group-commit queue in front of one BatchWriter. */
export class GroupCommitQueue<T> {
  private pending: Pending<T>[] = [];
  /** Weight accepted and not yet settled (pending and at the writer). */
  private open = 0;
  private inFlight = 0;
  private scheduled = false;
  private closed = false;
  private readonly drained: (() => void)[] = [];
  private idle: Promise<void> | null = null;
  /** Requests waiting for room, first come first served. */
  private readonly waiting: RoomWaiter[] = [];
  private readonly maxInFlight: number;
  private readonly weigh: (item: T) => number;

  constructor(
    private readonly writer: BatchWriter<T>,
    private readonly options: GroupCommitOptions<T>,
  ) {
    this.maxInFlight = options.maxInFlight ?? 1;
    this.weigh = options.weigh ?? (() => 1);
  }

  /** Weight accepted but not yet committed. */
  get depth(): number {
    return this.open;
  }

  /** True when not even an item of weight 1 would be accepted now. */
  get full(): boolean {
    return this.open >= this.options.maxQueuedWeight;
  }

  /** Queues an item for the next commit; throws QueueFullError at once when there is no room. */
  enqueue(item: T): Promise<void> {
    let settle!: (error: Error | null) => void;
    const committed = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === null ? resolve() : reject(error));
    });
    this.submit(item, settle);
    return committed;
  }

  /**
   * enqueue with a callback instead of a promise, for paths that answer many small requests (the
   * log API): `done` gets null once the item is committed, or the refusal (a closing queue
   * included). Throws QueueFullError at once when there is no room.
   */
  submit(item: T, done: (error: Error | null) => void): void {
    if (this.closed) {
      done(this.closingError());
      return;
    }
    const weight = this.weigh(item);
    if (weight === 0) {
      done(null);
      return;
    }
    if (!this.fits(weight) || this.waiting.length > 0) throw this.fullError();
    this.push(item, weight, done);
  }

  /**
   * Queues an item like `enqueue`, but when there is no room it waits, up to `waitMs`, in a
   * first-come first-served line for room to be freed by commits; only then does it reject with
   * QueueFullError. Under a burst, clients then see slower answers rather than refusals, and no
   * client is refused again and again while others get in (docs/ingest.md, "Overload").
   */
  enqueueWhenRoom(item: T, waitMs: number): Promise<void> {
    if (this.closed) return Promise.reject(this.closingError());
    const weight = this.weigh(item);
    if (weight === 0) return Promise.resolve();
    if (this.fits(weight) && this.waiting.length === 0) return this.admit(item, weight);
    if (waitMs <= 0) return Promise.reject(this.fullError());
    return new Promise<void>((resolve, reject) =>
      this.waitInLine(weight, waitMs, {
        admit: () => this.admit(item, weight).then(resolve, reject),
        refuse: () => reject(this.closingError()),
        timeout: () => reject(this.fullError()),
      }),
    );
  }

  /**
   * Resolves to true once an item of `weight` would be let in (at once if so now), false after
   * `waitMs`. It reserves nothing: a request whose size is not known yet (an HTTP body not read)
   * waits here, then joins the line with `enqueueWhenRoom`.
   */
  whenRoom(weight: number, waitMs: number): Promise<boolean> {
    if (this.fits(weight) && this.waiting.length === 0) return Promise.resolve(true);
    if (waitMs <= 0 || this.closed) return Promise.resolve(false);
    return new Promise<boolean>((resolve) =>
      this.waitInLine(weight, waitMs, { admit: () => resolve(true), refuse: () => resolve(false), timeout: () => resolve(false) }),
    );
  }

  /** Joins the line for room; `timeout` runs (and the waiter leaves the line) after `waitMs`. */
  private waitInLine(weight: number, waitMs: number, on: { admit: () => void; refuse: () => void; timeout: () => void }): void {
    const waiter: RoomWaiter = {
      weight,
      admit: on.admit,
      refuse: on.refuse,
      timer: setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        on.timeout();
      }, waitMs),
    };
    this.waiting.push(waiter);
  }

  private fullError(): QueueFullError {
    return new QueueFullError(this.options.messages.full, this.options.retryAfterSeconds?.full ?? 1);
  }

  private closingError(): StorageError {
    return this.storageError(this.options.messages.closing);
  }

  /** True when an item of `weight` fits now (a single item heavier than the whole queue fits an empty queue). */
  private fits(weight: number): boolean {
    return this.open === 0 || this.open + weight <= this.options.maxQueuedWeight;
  }

  private admit(item: T, weight: number): Promise<void> {
    return new Promise<void>((resolve, reject) => this.push(item, weight, (error) => (error === null ? resolve() : reject(error))));
  }

  private push(item: T, weight: number, done: (error: Error | null) => void): void {
    this.open += weight;
    this.pending.push({ item, weight, done });
    this.schedule();
  }

  /** Lets waiters in, in arrival order, while they fit. */
  private letWaitersIn(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.weight)) {
      const waiter = this.waiting.shift()!;
      clearTimeout(waiter.timer);
      // A whenRoom waiter reserves nothing, so the next one is judged against the same room.
      waiter.admit();
    }
  }

  /**
   * Resolves when nothing is waiting or being written (at once if so now). Background work that
   * shares the writer (the retention job) starts its batches then, so it takes only the time the
   * requests leave idle.
   */
  whenIdle(): Promise<void> {
    if (this.open === 0) return Promise.resolve();
    // One promise per busy spell, however many callers gave up waiting on it and asked again.
    this.idle ??= new Promise<void>((resolve) =>
      this.drained.push(() => {
        this.idle = null;
        resolve();
      }),
    );
    return this.idle;
  }

  /** Stops accepting items and waits until everything accepted is committed (or failed). */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.refuse();
    }
    if (this.open === 0) return;
    await new Promise<void>((resolve) => this.drained.push(resolve));
  }

  private storageError(message: string): StorageError {
    return new StorageError(message, this.options.retryAfterSeconds?.failed ?? 5);
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
      const batch = this.takeBatch();
      this.inFlight++;
      void this.commit(batch);
    }
  }

  /** The oldest items up to maxBatchWeight; an item is never split, and the first is always taken. */
  private takeBatch(): Pending<T>[] {
    let weight = this.pending[0]!.weight;
    let count = 1;
    while (count < this.pending.length && weight + this.pending[count]!.weight <= this.options.maxBatchWeight) {
      weight += this.pending[count]!.weight;
      count++;
    }
    return this.pending.splice(0, count);
  }

  private settle(entry: Pending<T>, error?: Error): void {
    this.open -= entry.weight;
    try {
      entry.done(error ?? null);
    } catch (thrown) {
      // A callback's bug must not keep the batch's other items from settling: it surfaces as an uncaught exception.
      queueMicrotask(() => {
        throw thrown;
      });
    }
    this.letWaitersIn();
    if (this.open === 0) for (const resolve of this.drained.splice(0)) resolve();
  }

  /** Settles an item with the outcome of its write: committed (null), or failed with `error`. */
  private conclude(entry: Pending<T>, error: unknown): void {
    if (error === null) {
      this.settle(entry);
      return;
    }
    this.options.onError?.(error);
    this.settle(entry, this.storageError(this.options.messages.failed));
  }

  /** Writes a batch in its in-flight slot, then frees the slot and settles the batch's items. */
  private async commit(batch: Pending<T>[]): Promise<void> {
    let released = false;
    // The items that queued up while this batch was at the writer leave at once, before this
    // batch's requests are answered: the writer starts on them while the answers go out.
    const release = () => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.flush();
    };
    try {
      await this.writer.write(batch.map((entry) => entry.item));
      release();
      for (const entry of batch) this.settle(entry);
      return;
    } catch (error) {
      if (error instanceof PartialWriteError || batch.length === 1) {
        release();
        for (const [index, entry] of batch.entries()) this.conclude(entry, failureOf(error, index));
        return;
      }
    }
    this.options.beforeRetry?.();
    for (const entry of batch) {
      let error: unknown = null;
      try {
        await this.writer.write([entry.item]);
      } catch (thrown) {
        error = failureOf(thrown, 0);
      }
      this.conclude(entry, error);
    }
    release();
  }
}
