/** The group-commit write engine shared by span ingest and the log API. */
export { GroupCommitQueue, type BatchWriter, type GroupCommitOptions, type GroupCommitMessages } from './queue.js';
export { PartialWriteError, QueueFullError, StorageError } from './errors.js';
export {
  ThreadBatchWriter,
  serveWriterThread,
  type ThreadBatchWriterOptions,
  type WriterThreadHandlers,
  type WriterThreadMessage,
} from './writer-thread.js';
