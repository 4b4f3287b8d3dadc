/**
 * The compression thread of long-attributes-compressor.ts: deflates each text of a request,
 * answers all at once; on SQLite it also checkpoints the WAL between requests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runWalCheckpoints } from '@sightline/common/writer-thread';
import { packLongJsonList } from './long-attributes.js';
import type { CheckpointFailure, CompressorThreadData } from './long-attributes-compressor.js';
import type { ValueList } from './span-row-codec.js';

const port = parentPort!;
const { walFile } = workerData as CompressorThreadData;
const checkpoints =
  walFile === undefined
    ? null
    : runWalCheckpoints(walFile, { onError: (message) => port.postMessage({ checkpointError: message } satisfies CheckpointFailure) });

port.on('message', (message: (ValueList & { id: number }) | { close: true }) => {
  if ('close' in message) {
    checkpoints?.close();
    port.close();
    return;
  }
  try {
    const result = packLongJsonList(message);
    port.postMessage({ id: message.id, result }, [result.values, result.ends.buffer as ArrayBuffer]);
  } catch (error) {
    port.postMessage({ id: message.id, error: (error as Error).message });
  }
});
