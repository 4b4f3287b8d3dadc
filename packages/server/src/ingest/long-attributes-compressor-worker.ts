/** The compression thread of long-attributes-compressor.ts: deflates each text of a request, answers all at once. */
import { parentPort } from 'node:worker_threads';
import { packLongJsonList } from '../db/long-attributes.js';
import type { ValueList } from './span-row-codec.js';

const port = parentPort!;
port.on('message', (message: (ValueList & { id: number }) | { close: true }) => {
  if ('close' in message) {
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
