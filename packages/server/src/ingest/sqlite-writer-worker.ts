/** Worker thread that owns the SQLite write connection, so commits never block request handling. */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite } from '@sightline/common';
import { SqliteSpanStore } from './sqlite-span-store.js';
import type { SpanRow } from './span-rows.js';

export type WorkerRequest = { type: 'write'; id: number; rows: SpanRow[] } | { type: 'forget' } | { type: 'close' };
export type WorkerReply = { id: number; error?: string };

const connection = openSqlite((workerData as { file: string }).file);
const store = new SqliteSpanStore(connection);

parentPort!.on('message', (message: WorkerRequest) => {
  if (message.type === 'forget') {
    store.forgetProjects();
  } else if (message.type === 'close') {
    connection.close();
    parentPort!.close();
  } else {
    let reply: WorkerReply = { id: message.id };
    try {
      store.write(message.rows);
    } catch (error) {
      store.forgetProjects();
      reply = { id: message.id, error: (error as Error).message };
    }
    parentPort!.postMessage(reply);
  }
});
