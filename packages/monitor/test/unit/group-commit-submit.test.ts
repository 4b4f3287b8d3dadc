/** GroupCommitQueue.submit (@sightline/common): the callback form of enqueue that the log API uses. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GroupCommitQueue, QueueFullError, StorageError } from '@sightline/common';

const messages = { full: 'full', failed: 'failed', closing: 'closing' };

/** A writer whose writes wait until the test settles them. */
function controlledWriter() {
  const calls: { items: number[]; settle: (error?: Error) => void }[] = [];
  return {
    calls,
    write: (items: number[]) =>
      new Promise<void>((resolve, reject) => calls.push({ items, settle: (error) => (error ? reject(error) : resolve()) })),
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommitQueue.submit', () => {
  it('calls back with null once the batch holding the item is committed, not before', async () => {
    const writer = controlledWriter();
    const queue = new GroupCommitQueue<number>(writer, { maxQueuedWeight: 10, maxBatchWeight: 10, messages });
    const done: [number, Error | null][] = [];
    queue.submit(1, (error) => done.push([1, error]));
    queue.submit(2, (error) => done.push([2, error]));
    await turn();
    assert.deepEqual(
      writer.calls.map((call) => call.items),
      [[1, 2]],
      'one batch',
    );
    assert.deepEqual(done, []);
    writer.calls[0]!.settle();
    await turn();
    assert.deepEqual(done, [
      [1, null],
      [2, null],
    ]);
    assert.equal(queue.depth, 0);
  });

  it('throws QueueFullError at once when there is no room, and calls back with a StorageError when the write fails', async () => {
    const writer = controlledWriter();
    const queue = new GroupCommitQueue<number>(writer, { maxQueuedWeight: 1, maxBatchWeight: 1, messages });
    const done: (Error | null)[] = [];
    queue.submit(1, (error) => done.push(error));
    assert.throws(() => queue.submit(2, () => assert.fail('never called')), QueueFullError);
    await turn();
    writer.calls[0]!.settle(new Error('disk gone'));
    await turn();
    assert.equal(done.length, 1);
    assert.ok(done[0] instanceof StorageError);
    assert.equal(done[0].message, 'failed');
  });

  it('refuses with the closing message once closed', async () => {
    const writer = controlledWriter();
    const queue = new GroupCommitQueue<number>(writer, { maxQueuedWeight: 10, maxBatchWeight: 10, messages });
    const done: (Error | null)[] = [];
    queue.submit(1, (error) => done.push(error));
    await turn();
    const closed = queue.close();
    writer.calls[0]!.settle();
    await closed;
    assert.deepEqual([...done], [null], 'what was accepted is committed before close resolves');
    let refusal: Error | null = null;
    queue.submit(2, (error) => {
      refusal = error;
    });
    assert.ok((refusal as Error | null) instanceof StorageError);
    assert.equal((refusal as unknown as StorageError).message, 'closing');
  });
});
