/** Public entry of @sightline/common: plumbing shared by @sightline/server and @sightline/monitor. Test helpers are `@sightline/common/testing`. */
export { immediateTransaction, openSqlite, WAL_SIZE_LIMIT_BYTES } from './sqlite.js';
export { runWalCheckpoints, BACKSTOP_AUTOCHECKPOINT_PAGES, type WalCheckpoints } from './sqlite-checkpointer.js';
export { createPgPool, inPgTransaction, redactUrl } from './postgres.js';
export { TtlCache } from './ttl-cache.js';
export { HEAP_GROWING_PERCENT, SERVE_ENV, SERVE_NODE_OPTIONS, tuneHeapForService } from './heap.js';
export {
  ConfigError,
  envReader,
  expandHome,
  envBool,
  envPositiveInt,
  envNonNegativeInt,
  envPort,
  envDatabase,
  envLogLevel,
  type Env,
  type EnvReader,
  type Dialect,
  type DatabaseConfig,
} from './env.js';
export { siblingModuleUrl, startWorker, WorkerRequests, type WorkerReply } from './worker.js';
export {
  DomainError,
  InvalidInputError,
  UnauthenticatedError,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  TooLargeError,
  UnsupportedError,
  TooManyRequestsError,
  UnavailableError,
  HTTP_STATUS,
  httpAnswer,
  type DomainErrorKind,
} from './errors.js';
export {
  installErrorHandlers,
  errorAnswer,
  type ErrorHandlerOptions,
  type ErrorAnswer,
  type ErrorAnswerOptions,
  type ClientErrorAnswer,
} from './http/error-handlers.js';
export {
  securityHeaders,
  securityHeaderSetter,
  API_CONTENT_SECURITY_POLICY,
  API_SECURITY_HEADERS,
  DOCS_CONTENT_SECURITY_POLICY,
  type SecurityHeaderOptions,
} from './http/security-headers.js';
export { closeAfterUnfinishedBodies } from './http/unfinished-bodies.js';
export {
  GroupCommitQueue,
  PartialWriteError,
  QueueFullError,
  StorageError,
  ThreadBatchWriter,
  serveWriterThread,
  type BatchWriter,
  type GroupCommitOptions,
  type GroupCommitMessages,
  type ThreadBatchWriterOptions,
  type WriterThreadHandlers,
  type WriterThreadMessage,
} from './group-commit/index.js';
export { openKysely, runMigrations, type OpenDatabase, type OpenKyselyOptions, type MigrationOptions } from './db/kysely.js';
export { isDatabaseUnavailable } from './db/unavailable.js';
