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
