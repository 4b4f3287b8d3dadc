/** The two ways a group-commit write is refused; both are transient, so both carry Retry-After. */
import { UnavailableError } from '../errors.js';

/** The queue holds as much as it may; the caller answers 503 (HTTP) or RESOURCE_EXHAUSTED (gRPC). */
export class QueueFullError extends UnavailableError {
  override readonly name: string = 'QueueFullError';
}

/** The storage failed or is away; nothing of the request was stored and the client should retry. */
export class StorageError extends UnavailableError {
  override readonly name: string = 'StorageError';
}

/**
 * A write of which only some items failed; the others are committed. A writer that isolates a bad
 * item itself rejects with it, and the queue settles each item by it instead of retrying them.
 */
export class PartialWriteError extends Error {
  override readonly name: string = 'PartialWriteError';

  /** `failures[i]`: why item i was not stored, or null when it was committed. */
  constructor(readonly failures: readonly (Error | null)[]) {
    super(`${failures.filter((failure) => failure !== null).length} of ${failures.length} items could not be stored`);
  }
}
