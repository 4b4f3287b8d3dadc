/** The checkpointer thread (sqlite-checkpointer.ts): PASSIVE WAL checkpoints on its own connection. */
import { parentPort, workerData } from 'node:worker_threads';
import type { CheckpointerMessage } from './sqlite-checkpointer.js';
import { openSqlite } from './sqlite.js';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const port = parentPort!;
const connection = openSqlite(file);

/** One PASSIVE checkpoint: copies what no reader still needs, never waits for a lock. */
function checkpoint(): void {
  try {
    connection.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    port.postMessage({ type: 'error', message: (error as Error).message } satisfies CheckpointerMessage);
  }
}

const timer = setInterval(checkpoint, intervalMs);
port.on('message', (message: CheckpointerMessage) => {
  if (message.type !== 'close') return;
  clearInterval(timer);
  checkpoint();
  connection.close();
  port.close();
});
