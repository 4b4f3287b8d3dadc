/**
 * WAL checkpoints off the writer thread. SQLite's automatic checkpoint runs in whichever
 * connection commits past the threshold — the writer thread — so every few commits the writer
 * stopped to copy pages into the database file and fsync it while ingest waited. Another thread
 * with its own connection runs PASSIVE checkpoints instead (they never block the writer or
 * readers); the writer keeps a high automatic threshold only as a backstop (docs/ingest.md).
 * They run on a thread that has other work (the server's compression thread), not one of their
 * own: a thread's V8 heap and malloc arena cost about 9 MB of RSS (docs/performance.md, "Memory").
 */
import { openSqlite } from './sqlite.js';

/** Automatic-checkpoint threshold of a writer connection whose checkpoints run elsewhere (pages; 64 MiB of 4 KiB pages). */
export const BACKSTOP_AUTOCHECKPOINT_PAGES = 16_384;

/** Checkpoints running on the calling thread's event loop. */
export interface WalCheckpoints {
  /** Stops them after a last checkpoint and closes their connection. */
  close(): void;
}

/** An error's message; better-sqlite3's SqliteError thrown on open may carry only its code. */
function messageOf(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  if (typeof error === 'object' && error !== null && 'code' in error) return `SQLite error ${String(error.code)}`;
  return String(error);
}

/**
 * Checkpoints `file`'s WAL every `intervalMs` on a connection of its own, on this thread; failures
 * go to `onError` and the next tick retries. A file that cannot be opened is reported once, and
 * nothing runs: the writer's backstop checkpoints remain.
 */
export function runWalCheckpoints(
  file: string,
  { intervalMs = 200, onError }: { intervalMs?: number; onError: (message: string) => void },
): WalCheckpoints {
  let connection: ReturnType<typeof openSqlite>;
  try {
    connection = openSqlite(file);
  } catch (error) {
    onError(messageOf(error));
    return { close: () => {} };
  }
  /** One PASSIVE checkpoint: copies what no reader still needs, never waits for a lock. */
  const checkpoint = () => {
    try {
      connection.pragma('wal_checkpoint(PASSIVE)');
    } catch (error) {
      onError(messageOf(error));
    }
  };
  const timer = setInterval(checkpoint, intervalMs);
  // The checkpoints never keep their thread alive on their own.
  timer.unref();
  return {
    close() {
      clearInterval(timer);
      checkpoint();
      connection.close();
    },
  };
}
