import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { describe, test } from 'node:test';
import { WorkerRequests } from '@sightline/common';

/** A thread that answers each request with the byte length of the buffer it received. */
function echoLengths(): Worker {
  return new Worker(
    `const { parentPort } = require('node:worker_threads');
     parentPort.on('message', (message) => {
       if (message.close) return parentPort.close();
       parentPort.postMessage({ id: message.id, result: message.buffer.byteLength });
     });`,
    { eval: true },
  );
}

describe('WorkerRequests', () => {
  test('a buffer in the transfer list moves to the thread; one outside it is copied', async () => {
    const requests = new WorkerRequests(echoLengths(), 'stopped');
    try {
      const moved = new ArrayBuffer(1 << 20);
      assert.equal(await requests.request((id) => ({ id, buffer: moved }), [moved]), 1 << 20);
      assert.equal(moved.byteLength, 0, 'the sender no longer holds the transferred buffer');

      const copied = new ArrayBuffer(1 << 10);
      assert.equal(await requests.request((id) => ({ id, buffer: copied })), 1 << 10);
      assert.equal(copied.byteLength, 1 << 10, 'without a transfer list the sender keeps its buffer');
    } finally {
      await requests.close({ close: true });
    }
  });

  test('a request that cannot be posted rejects at once, and the next one is answered', async () => {
    const requests = new WorkerRequests(echoLengths(), 'stopped');
    try {
      // A function cannot be cloned: posting fails before anything reaches the thread.
      await assert.rejects(
        requests.request((id) => ({ id, buffer: new ArrayBuffer(4), run: () => id })),
        { name: 'DataCloneError' },
      );
      const buffer = new ArrayBuffer(8);
      assert.equal(await requests.request((id) => ({ id, buffer }), [buffer]), 8);
    } finally {
      await requests.close({ close: true });
    }
  });
});
