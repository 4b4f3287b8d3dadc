/**
 * WAL checkpoints off the writer thread. SQLite's automatic checkpoint runs in whichever
 * connection commits past the threshold — the writer thread — so every few commits the writer
 * stopped to copy pages into the database file and fsync it while ingest waited. A thread of its
 * own with its own connection runs PASSIVE checkpoints instead (they never block the writer or
 * readers); the writer keeps a high automatic threshold only as a backstop (docs/ingest.md).
 */
import { siblingModuleUrl, startWorker } from './worker.js';

/** Automatic-checkpoint threshold of a writer connection whose checkpoints run on a checkpointer (pages; 64 MiB of 4 KiB pages). */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 16_384;

/** Messages of the checkpointer thread. */
export type CheckpointerMessage = { type: 'close' } | { type: 'error'; message: string } | { type: 'closed' };

export interface SqliteCheckpointer {
  /** Stops the thread after a last checkpoint. */
  close(): Promise<void>;
}

/** A thread's error arrives as a clone that may have lost its message (better-sqlite3's SqliteError keeps only its code). */
function messageOf(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  if (typeof error === 'object' && error !== null && 'code' in error) return `SQLite error ${String(error.code)}`;
  return String(error);
}

const workerUrl = siblingModuleUrl(import.meta.url, 'sqlite-checkpointer-worker');

/** Starts a thread that checkpoints `file`'s WAL every `intervalMs`; failures go to `onError` and the next tick retries. */
export function startSqliteCheckpointer(
  file: string,
  { intervalMs = 200, onError }: { intervalMs?: number; onError?: (message: string) => void } = {},
): SqliteCheckpointer {
  const worker = startWorker(workerUrl, { file, intervalMs });
  // The checkpointer must never keep the process alive on its own.
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('message', (message: CheckpointerMessage) => {
    if (message.type === 'error') onError?.(message.message);
  });
  // A thread that could not open the file stops; ingest goes on with the writer's backstop checkpoints.
  worker.on('error', (error: unknown) => onError?.(messageOf(error)));
  return {
    async close() {
      // Waiting for its exit must keep the process alive until the last checkpoint is done.
      worker.ref();
      worker.postMessage({ type: 'close' } satisfies CheckpointerMessage);
      await exited;
    },
  };
}
