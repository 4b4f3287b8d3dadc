/** The group-commit write engine shared by span ingest and the log API. */
export { GroupCommitQueue, type BatchWriter, type GroupCommitOptions, type GroupCommitMessages } from './queue.js';
export { QueueFullError, StorageError } from './errors.js';
export { ThreadBatchWriter, serveWriterThread, type WriterThreadHandlers, type WriterThreadMessage } from './writer-thread.js';
