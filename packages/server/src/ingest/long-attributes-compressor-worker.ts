/** The compression thread of long-attributes-compressor.ts: deflates each text of a request, answers all at once. */
import { parentPort } from 'node:worker_threads';
import { packLongJson } from '../db/long-attributes.js';
import type { CompressionRequest } from './long-attributes-compressor.js';

const port = parentPort!;
port.on('message', (message: (CompressionRequest & { id: number }) | { close: true }) => {
  if ('close' in message) {
    port.close();
    return;
  }
  try {
    const texts = Buffer.from(message.texts);
    const parts: Buffer[] = [];
    const ends = new Uint32Array(message.ends.length);
    let start = 0;
    let total = 0;
    for (const [index, end] of message.ends.entries()) {
      const part = packLongJson(texts.subarray(start, end));
      parts.push(part);
      total += part.length;
      ends[index] = total;
      start = end;
    }
    const packed = Buffer.concat(parts, total);
    // Its own ArrayBuffer (a concatenation this large never comes from Node's shared pool), so it can be transferred.
    const buffer =
      packed.byteOffset === 0 && packed.byteLength === packed.buffer.byteLength
        ? packed.buffer
        : packed.buffer.slice(packed.byteOffset, packed.byteOffset + total);
    port.postMessage({ id: message.id, result: { packed: buffer, ends } }, [buffer as ArrayBuffer, ends.buffer]);
  } catch (error) {
    port.postMessage({ id: message.id, error: (error as Error).message });
  }
});
