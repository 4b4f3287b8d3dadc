/**
 * Domain errors: what services throw when a request cannot be served. They know nothing of
 * HTTP or gRPC; each transport maps them to its own codes in one place (the server's and the
 * monitor's error handlers, the gRPC export handler). docs/architecture.md lists the mapping.
 */

/** Base of every domain error; `kind` selects the status a transport answers with. */
export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
}

export type DomainErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'unsupported'
  | 'too_many'
  | 'unavailable';

/** The input breaks a rule (HTTP 422, or 400 where a protocol says so; gRPC INVALID_ARGUMENT). */
export class InvalidInputError extends DomainError {
  override readonly name: string = 'InvalidInputError';
  readonly kind = 'invalid';
  /** `malformed`: the input could not be read at all (HTTP 400) rather than broke a rule (422). */
  constructor(
    message: string,
    readonly malformed = false,
  ) {
    super(message);
  }
}

/** No valid credential (HTTP 401 with WWW-Authenticate, gRPC UNAUTHENTICATED). */
export class UnauthenticatedError extends DomainError {
  override readonly name: string = 'UnauthenticatedError';
  readonly kind = 'unauthenticated';
  /** `scheme`: the credential the caller should present (RFC 9110 WWW-Authenticate). */
  constructor(
    message: string,
    readonly scheme = 'Bearer',
  ) {
    super(message);
  }
}

/** A valid credential that may not do this (HTTP 403, gRPC PERMISSION_DENIED). */
export class ForbiddenError extends DomainError {
  override readonly name: string = 'ForbiddenError';
  readonly kind = 'forbidden';
}

/** The thing does not exist, or is not the caller's to see (HTTP 404, gRPC NOT_FOUND). */
export class NotFoundError extends DomainError {
  override readonly name: string = 'NotFoundError';
  readonly kind = 'not_found';
}

/** A uniqueness or state conflict (HTTP 409, gRPC ALREADY_EXISTS / FAILED_PRECONDITION). */
export class ConflictError extends DomainError {
  override readonly name: string = 'ConflictError';
  readonly kind = 'conflict';
}

/** The input is larger than allowed (HTTP 413, gRPC RESOURCE_EXHAUSTED). */
export class TooLargeError extends DomainError {
  override readonly name: string = 'TooLargeError';
  readonly kind = 'too_large';
}

/** A format the service does not read (HTTP 415, gRPC INVALID_ARGUMENT). */
export class UnsupportedError extends DomainError {
  override readonly name: string = 'UnsupportedError';
  readonly kind = 'unsupported';
}

/** The caller must slow down (HTTP 429 + Retry-After, gRPC RESOURCE_EXHAUSTED). */
export class TooManyRequestsError extends DomainError {
  override readonly name: string = 'TooManyRequestsError';
  readonly kind = 'too_many';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * The service cannot take the request now (HTTP 503, gRPC UNAVAILABLE or RESOURCE_EXHAUSTED).
 * `retryAfterSeconds` is set for transient causes (a full queue, storage away); a missing
 * feature (no SMTP) has none, so clients do not retry in vain.
 */
export class UnavailableError extends DomainError {
  override readonly name: string = 'UnavailableError';
  readonly kind = 'unavailable';
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** HTTP status of each kind (InvalidInputError with `malformed` answers 400 instead). */
export const HTTP_STATUS: Readonly<Record<DomainErrorKind, number>> = {
  invalid: 422,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported: 415,
  too_many: 429,
  unavailable: 503,
};

/** The HTTP status and headers a domain error answers with. */
export function httpAnswer(error: DomainError): { status: number; headers: Record<string, string> } {
  const status = error instanceof InvalidInputError && error.malformed ? 400 : HTTP_STATUS[error.kind];
  const headers: Record<string, string> = {};
  const retryAfter = error instanceof TooManyRequestsError || error instanceof UnavailableError ? error.retryAfterSeconds : undefined;
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  if (error instanceof UnauthenticatedError) headers['www-authenticate'] = error.scheme;
  return { status, headers };
}
