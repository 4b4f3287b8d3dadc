/**
 * Worker thread that owns the SQLite write connection, so commits never block request handling.
 * Every batch that queued up while the previous commit ran is folded into the next transaction
 * (group commit): one fsync for all of them.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openSqlite } from '@sightline/common';
import type { RowValues } from './record-rows.js';
import { SqliteRecordStore } from './sqlite-record-store.js';

export type WorkerRequest = { type: 'write'; id: number; rows: RowValues[] } | { type: 'close' };
export type WorkerReply = { id: number; error?: string };

const port = parentPort!;
const connection = openSqlite((workerData as { file: string }).file);
// A larger page cache keeps the indexes' hot pages in memory (the writer touches three b-trees per row).
connection.pragma('cache_size = -65536');
const store = new SqliteRecordStore(connection);

function writeAll(writes: { id: number; rows: RowValues[] }[]): WorkerReply[] {
  try {
    store.writeBatches(writes.map((write) => write.rows));
    return writes.map((write) => ({ id: write.id }));
  } catch (error) {
    if (writes.length === 1) return [{ id: writes[0]!.id, error: (error as Error).message }];
  }
  // One batch must not fail the others: commit them one by one.
  return writes.flatMap((write) => writeAll([write]));
}

port.on('message', (first: WorkerRequest) => {
  const writes: { id: number; rows: RowValues[] }[] = [];
  let close = false;
  for (
    let message: WorkerRequest | undefined = first;
    message !== undefined;
    message = receiveMessageOnPort(port)?.message as WorkerRequest | undefined
  ) {
    if (message.type === 'close') close = true;
    else writes.push(message);
  }
  if (writes.length > 0) port.postMessage(writeAll(writes));
  if (close) {
    connection.close();
    port.close();
  }
});
