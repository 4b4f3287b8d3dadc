/** The one mapping from domain errors to gRPC status codes (docs/architecture.md, "Errors"). */
import { status } from '@grpc/grpc-js';
import type { DomainError, DomainErrorKind } from '@sightline/common';

const GRPC_STATUS: Readonly<Record<DomainErrorKind, status>> = {
  invalid: status.INVALID_ARGUMENT,
  unsupported: status.INVALID_ARGUMENT,
  unauthenticated: status.UNAUTHENTICATED,
  forbidden: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  conflict: status.ALREADY_EXISTS,
  too_large: status.RESOURCE_EXHAUSTED,
  too_many: status.RESOURCE_EXHAUSTED,
  unavailable: status.UNAVAILABLE,
};

/**
 * The gRPC status of a domain error. A full write queue answers RESOURCE_EXHAUSTED rather than
 * UNAVAILABLE: both are retried by OTLP exporters, and the former tells the operator it is load.
 */
export function grpcStatusOf(error: DomainError): status {
  return error.name === 'QueueFullError' ? status.RESOURCE_EXHAUSTED : GRPC_STATUS[error.kind];
}
