import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PartialWriteError, QueueFullError, StorageError } from '@sightline/common';
import { createSpanQueue, type SpanQueueOptions } from '../../src/ingest/ingest-service.js';
import type { SpanRow } from '../../src/span-model/span-rows.js';
import { spanRow } from '../helpers/span-row.js';
import type { QueuedSpans, DatabaseWriter } from '../../src/db/writer/database-writer.js';

interface WriteCall {
  rows: SpanRow[];
  resolve(): void;
  reject(error: Error): void;
}

/** A DatabaseWriter whose every write() waits until the test resolves or rejects it. */
class ControlledWriter implements DatabaseWriter {
  readonly calls: WriteCall[] = [];
  forgotten = 0;
  closed = false;

  write(requests: QueuedSpans[]): Promise<void> {
    const rows = requests.flatMap((request) => ('rows' in request ? request.rows : []));
    return new Promise((resolve, reject) => this.calls.push({ rows, resolve, reject }));
  }

  forgetProjects(): void {
    this.forgotten++;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** Waits (a bounded number of event-loop turns) until write() has been called `count` times. */
  async waitForCalls(count: number): Promise<WriteCall> {
    for (let i = 0; i < 100 && this.calls.length < count; i++) await turn();
    assert.equal(this.calls.length, count, `expected ${count} write() calls, saw ${this.calls.length}`);
    return this.calls[count - 1]!;
  }
}

/** Lets every pending promise callback run. */
async function turn(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

/** Rows labelled `${request}:${index}` in spanId, so that writes show which request they came from. */
function rows(request: string, count: number): SpanRow[] {
  return Array.from({ length: count }, (_, i) =>
    spanRow({ projectName: 'p', traceId: '0'.repeat(32), spanId: `${request}:${i}`, name: request }),
  );
}

const labels = (call: WriteCall) => call.rows.map((row) => row.spanId);

type State = 'pending' | 'resolved' | StorageError | Error;

/** Follows a promise's outcome without awaiting it. */
function track(promise: Promise<void>): { readonly state: State } {
  const tracker: { state: State } = { state: 'pending' };
  promise.then(
    () => (tracker.state = 'resolved'),
    (error: Error) => (tracker.state = error),
  );
  return tracker;
}

function setup(options: Partial<SpanQueueOptions> = {}) {
  const writer = new ControlledWriter();
  const errors: unknown[] = [];
  const queue = createSpanQueue(writer, { maxQueuedSpans: 1000, maxBatchSpans: 1000, onError: (error) => errors.push(error), ...options });
  return { writer, queue, errors };
}

/** Request a is written alone; b, a poisoned request and d queue meanwhile and make the second write. */
async function poisonedBatch() {
  const { writer, queue, errors } = setup();
  const a = track(queue.enqueue(rows('a', 1)));
  const first = await writer.waitForCalls(1);
  const b = track(queue.enqueue(rows('b', 2)));
  const poisoned = track(queue.enqueue(rows('poison', 1)));
  const d = track(queue.enqueue(rows('d', 1)));
  first.resolve();
  const batch = await writer.waitForCalls(2);
  assert.deepEqual(labels(batch), ['b:0', 'b:1', 'poison:0', 'd:0']);
  return { writer, queue, errors, a, b, poisoned, d, batch };
}

describe('span queue (the group-commit engine as ingest configures it)', () => {
  test('the first request is written at once, alone', async () => {
    const { writer, queue } = setup();
    const a = track(queue.enqueue(rows('a', 2)));
    const call = await writer.waitForCalls(1);
    assert.deepEqual(labels(call), ['a:0', 'a:1']);
    assert.equal(a.state, 'pending');
    call.resolve();
    await turn();
    assert.equal(a.state, 'resolved');
  });

  test('group commit: requests arriving during a write are committed together in the next write', async () => {
    const { writer, queue } = setup();
    const a = track(queue.enqueue(rows('a', 1)));
    const first = await writer.waitForCalls(1);
    const b = track(queue.enqueue(rows('b', 2)));
    const c = track(queue.enqueue(rows('c', 1)));
    const d = track(queue.enqueue(rows('d', 3)));
    await turn();
    assert.equal(writer.calls.length, 1, 'nothing else is written while the first write is in flight');
    assert.equal(queue.depth, 7);

    first.resolve();
    const second = await writer.waitForCalls(2);
    assert.deepEqual(labels(second), ['b:0', 'b:1', 'c:0', 'd:0', 'd:1', 'd:2']);
    assert.equal(a.state, 'resolved');
    assert.deepEqual([b.state, c.state, d.state], ['pending', 'pending', 'pending']);
    assert.equal(queue.depth, 6);

    second.resolve();
    await turn();
    assert.deepEqual([b.state, c.state, d.state], ['resolved', 'resolved', 'resolved']);
    assert.equal(queue.depth, 0);
    assert.equal(writer.calls.length, 2);
  });

  test('each request resolves only after its own write resolves', async () => {
    const { writer, queue } = setup();
    const a = track(queue.enqueue(rows('a', 1)));
    const first = await writer.waitForCalls(1);
    const b = track(queue.enqueue(rows('b', 1)));
    for (let i = 0; i < 5; i++) await turn();
    assert.equal(a.state, 'pending');
    assert.equal(b.state, 'pending');
    first.resolve();
    const second = await writer.waitForCalls(2);
    await turn();
    assert.equal(a.state, 'resolved');
    assert.equal(b.state, 'pending', 'b waits for the second write');
    second.resolve();
    await turn();
    assert.equal(b.state, 'resolved');
  });

  test('the writer loop restarts for requests after it went idle', async () => {
    const { writer, queue } = setup();
    const a = queue.enqueue(rows('a', 1));
    (await writer.waitForCalls(1)).resolve();
    await a;
    await turn();
    const b = track(queue.enqueue(rows('b', 1)));
    const call = await writer.waitForCalls(2);
    assert.deepEqual(labels(call), ['b:0']);
    call.resolve();
    await turn();
    assert.equal(b.state, 'resolved');
  });

  test('whenIdle resolves at once on an empty queue, else once every accepted span is committed', async () => {
    const { writer, queue } = setup();
    await queue.whenIdle();
    const a = track(queue.enqueue(rows('a', 1)));
    const idle = track(queue.whenIdle());
    const first = await writer.waitForCalls(1);
    const b = track(queue.enqueue(rows('b', 1)));
    first.resolve();
    await turn();
    assert.equal(a.state, 'resolved');
    assert.equal(idle.state, 'pending', 'b is still waiting');
    (await writer.waitForCalls(2)).resolve();
    await turn();
    assert.deepEqual([b.state, idle.state], ['resolved', 'resolved']);
  });

  test('an empty request resolves at once without a write', async () => {
    const { writer, queue } = setup();
    await queue.enqueue([]);
    await turn();
    assert.equal(writer.calls.length, 0);
    assert.equal(queue.depth, 0);
  });

  describe('waiting for room (SERVICE_INGEST_QUEUE_WAIT_MS)', () => {
    test('a request that does not fit waits in line and is let in when a commit frees room', async () => {
      const { writer, queue } = setup({ maxQueuedSpans: 10, maxWaitMs: 5_000 });
      const a = track(queue.enqueue(rows('a', 8)));
      const first = await writer.waitForCalls(1);
      const b = track(queue.enqueue(rows('b', 5)));
      const c = track(queue.enqueue(rows('c', 1)));
      await turn();
      assert.equal(queue.depth, 8, 'b waits outside the queue, and c behind it even though c would fit');
      assert.deepEqual([b.state, c.state], ['pending', 'pending']);
      first.resolve();
      const second = await writer.waitForCalls(2);
      assert.equal(a.state, 'resolved');
      assert.deepEqual(labels(second), ['b:0', 'b:1', 'b:2', 'b:3', 'b:4', 'c:0'], 'let in, in arrival order');
      second.resolve();
      await turn();
      assert.deepEqual([b.state, c.state], ['resolved', 'resolved']);
    });

    test('a request still without room when its wait ends is refused with QueueFullError, and leaves no trace', async () => {
      const { writer, queue } = setup({ maxQueuedSpans: 10, maxWaitMs: 30 });
      track(queue.enqueue(rows('a', 10)));
      const first = await writer.waitForCalls(1);
      let room = 'pending';
      void queue.whenRoom().then((has) => (room = String(has)));
      const refused = await queue.enqueue(rows('b', 1)).then(
        () => null,
        (error: unknown) => error,
      );
      assert.ok(refused instanceof QueueFullError && refused.retryAfterSeconds === 1);
      assert.equal(room, 'false', 'whenRoom gives up after the same wait');
      assert.equal(queue.depth, 10);
      first.resolve();
      await turn();
      assert.equal(queue.depth, 0);
      assert.equal(await queue.whenRoom(), true, 'an empty queue has room at once');
    });

    test('closing turns the waiting requests away', async () => {
      const { writer, queue } = setup({ maxQueuedSpans: 10, maxWaitMs: 5_000 });
      track(queue.enqueue(rows('a', 10)));
      const first = await writer.waitForCalls(1);
      const waiting = queue.enqueue(rows('b', 1)).then(
        () => 'stored',
        (error: Error) => error.message,
      );
      const closed = queue.close();
      assert.match(await waiting, /shutting down/);
      first.resolve();
      await closed;
      assert.equal(writer.calls.length, 1, 'b was never written');
    });
  });

  describe('queue limit', () => {
    test('QueueFullError when the queued spans would exceed maxQueuedSpans', async () => {
      const { writer, queue } = setup({ maxQueuedSpans: 10 });
      const a = track(queue.enqueue(rows('a', 6)));
      const first = await writer.waitForCalls(1);
      const b = track(queue.enqueue(rows('b', 4))); // exactly 10: still admitted
      assert.equal(queue.depth, 10);
      let thrown: unknown;
      try {
        void queue.enqueue(rows('c', 1));
      } catch (error) {
        thrown = error;
      }
      assert.ok(thrown instanceof QueueFullError, 'enqueue throws synchronously');
      assert.equal(thrown.name, 'QueueFullError');
      assert.equal(thrown.retryAfterSeconds, 1);
      assert.equal(queue.depth, 10, 'a refused request adds nothing');

      // Once the first write commits there is room again.
      first.resolve();
      const second = await writer.waitForCalls(2);
      assert.equal(a.state, 'resolved');
      assert.equal(queue.depth, 4);
      const c = track(queue.enqueue(rows('c', 6)));
      assert.equal(queue.depth, 10);
      second.resolve();
      const third = await writer.waitForCalls(3);
      assert.deepEqual(labels(third), ['c:0', 'c:1', 'c:2', 'c:3', 'c:4', 'c:5']);
      third.resolve();
      await turn();
      assert.deepEqual([b.state, c.state], ['resolved', 'resolved']);
    });

    test('a lone request larger than the whole queue is admitted into an empty queue', async () => {
      const { writer, queue } = setup({ maxQueuedSpans: 5 });
      const big = track(queue.enqueue(rows('big', 12)));
      assert.equal(queue.depth, 12);
      const call = await writer.waitForCalls(1);
      assert.equal(call.rows.length, 12);
      assert.throws(() => queue.enqueue(rows('more', 1)), QueueFullError);
      call.resolve();
      await turn();
      assert.equal(big.state, 'resolved');
      assert.equal(queue.depth, 0);
      const next = track(queue.enqueue(rows('next', 5)));
      (await writer.waitForCalls(2)).resolve();
      await turn();
      assert.equal(next.state, 'resolved');
    });

    test('an oversized request is refused when the queue is not empty', async () => {
      const { writer, queue } = setup({ maxQueuedSpans: 5 });
      void queue.enqueue(rows('a', 1));
      await writer.waitForCalls(1);
      assert.throws(() => queue.enqueue(rows('big', 12)), QueueFullError);
      assert.equal(queue.depth, 1);
    });
  });

  describe('batch size', () => {
    test('maxBatchSpans splits batches between requests', async () => {
      const { writer, queue } = setup({ maxBatchSpans: 5 });
      const a = track(queue.enqueue(rows('a', 1)));
      const first = await writer.waitForCalls(1);
      const b = track(queue.enqueue(rows('b', 3)));
      const c = track(queue.enqueue(rows('c', 3)));
      const d = track(queue.enqueue(rows('d', 2)));
      const e = track(queue.enqueue(rows('e', 1)));
      first.resolve();
      const second = await writer.waitForCalls(2);
      assert.deepEqual(labels(second), ['b:0', 'b:1', 'b:2'], 'b + c would be 6 > 5');
      second.resolve();
      const third = await writer.waitForCalls(3);
      assert.deepEqual(labels(third), ['c:0', 'c:1', 'c:2', 'd:0', 'd:1'], 'c + d is exactly 5');
      await turn();
      assert.deepEqual([a.state, b.state, c.state, d.state, e.state], ['resolved', 'resolved', 'pending', 'pending', 'pending']);
      third.resolve();
      const fourth = await writer.waitForCalls(4);
      assert.deepEqual(labels(fourth), ['e:0']);
      fourth.resolve();
      await turn();
      assert.deepEqual([c.state, d.state, e.state], ['resolved', 'resolved', 'resolved']);
    });

    test('a request larger than maxBatchSpans is written whole, never split', async () => {
      const { writer, queue } = setup({ maxBatchSpans: 3 });
      void queue.enqueue(rows('a', 1));
      const first = await writer.waitForCalls(1);
      const big = track(queue.enqueue(rows('big', 7)));
      const after = track(queue.enqueue(rows('after', 1)));
      first.resolve();
      const second = await writer.waitForCalls(2);
      assert.equal(second.rows.length, 7);
      assert.ok(labels(second).every((label) => label.startsWith('big:')));
      second.resolve();
      const third = await writer.waitForCalls(3);
      assert.deepEqual(labels(third), ['after:0']);
      third.resolve();
      await turn();
      assert.deepEqual([big.state, after.state], ['resolved', 'resolved']);
    });

    test('a request is never split across writes, whatever the sizes', async () => {
      const { writer, queue } = setup({ maxBatchSpans: 4 });
      const sizes = [1, 3, 2, 5, 1, 1, 4, 2, 6, 1];
      void queue.enqueue(rows('r0', sizes[0]!));
      const first = await writer.waitForCalls(1);
      const outcomes = sizes.slice(1).map((size, i) => track(queue.enqueue(rows(`r${i + 1}`, size))));
      first.resolve();
      let seen = 1;
      while (outcomes.some((o) => o.state === 'pending')) {
        const call = await writer.waitForCalls(++seen);
        const requests = [...new Set(call.rows.map((row) => row.name))];
        // Whole requests only, in order, and more than one only if they fit in a batch.
        for (const request of requests) {
          assert.equal(call.rows.filter((row) => row.name === request).length, sizes[Number(request.slice(1))], request);
        }
        if (requests.length > 1) assert.ok(call.rows.length <= 4, `batch of ${call.rows.length} with ${requests.join(',')}`);
        call.resolve();
        await turn();
      }
      const written = writer.calls.flatMap((call) => [...new Set(call.rows.map((row) => row.name))]);
      assert.deepEqual(
        written,
        sizes.map((_, i) => `r${i}`),
      );
    });
  });

  describe('failures', () => {
    test('a failing batch is retried request by request; a poisoned request fails alone', async () => {
      const { writer, queue, errors, a, b, poisoned, d, batch } = await poisonedBatch();
      const batchError = new Error('constraint violated');
      batch.reject(batchError);

      const retryB = await writer.waitForCalls(3);
      assert.equal(writer.forgotten, 1, 'cached project ids are dropped before retrying');
      assert.deepEqual(labels(retryB), ['b:0', 'b:1']);
      retryB.resolve();
      const retryPoison = await writer.waitForCalls(4);
      assert.deepEqual(labels(retryPoison), ['poison:0']);
      const poisonError = new Error('bad row');
      retryPoison.reject(poisonError);
      const retryD = await writer.waitForCalls(5);
      assert.deepEqual(labels(retryD), ['d:0']);
      retryD.resolve();
      await turn();

      assert.equal(a.state, 'resolved');
      assert.equal(b.state, 'resolved');
      assert.equal(d.state, 'resolved');
      assert.ok(poisoned.state instanceof StorageError, `poisoned request: ${String(poisoned.state)}`);
      assert.equal(poisoned.state.name, 'StorageError');
      assert.match(poisoned.state.message, /could not be stored/);
      assert.deepEqual(errors, [poisonError], 'only the request that failed on its own is reported');
      assert.equal(queue.depth, 0);
      assert.equal(writer.calls.length, 5);
    });

    test('a writer that names the bad request (PartialWriteError) fails only it, without retries', async () => {
      const { writer, queue, errors, b, poisoned, d, batch } = await poisonedBatch();
      // As the SQLite writer thread answers: it retried each request alone itself.
      const poisonError = new Error('bad row');
      batch.reject(new PartialWriteError([null, poisonError, null]));
      await turn();

      assert.equal(b.state, 'resolved');
      assert.equal(d.state, 'resolved');
      assert.ok(poisoned.state instanceof StorageError, `poisoned request: ${String(poisoned.state)}`);
      assert.match(poisoned.state.message, /could not be stored/);
      assert.deepEqual(errors, [poisonError]);
      assert.equal(writer.forgotten, 0, 'nothing is retried, so no cached ids are dropped');
      assert.equal(writer.calls.length, 2);
      assert.equal(queue.depth, 0);
    });

    test('requests resolve as soon as their own retry commits', async () => {
      const { writer, queue } = setup();
      void queue.enqueue(rows('a', 1));
      const first = await writer.waitForCalls(1);
      const b = track(queue.enqueue(rows('b', 1)));
      const c = track(queue.enqueue(rows('c', 1)));
      first.resolve();
      (await writer.waitForCalls(2)).reject(new Error('batch failed'));
      (await writer.waitForCalls(3)).resolve();
      await writer.waitForCalls(4);
      await turn();
      assert.equal(b.state, 'resolved');
      assert.equal(c.state, 'pending');
      writer.calls[3]!.resolve();
      await turn();
      assert.equal(c.state, 'resolved');
    });

    test('a failing single-request write fails with StorageError, without a retry', async () => {
      const { writer, queue, errors } = setup();
      const a = track(queue.enqueue(rows('a', 3)));
      const call = await writer.waitForCalls(1);
      const failure = new Error('disk full');
      call.reject(failure);
      await turn();
      assert.ok(a.state instanceof StorageError);
      assert.deepEqual(errors, [failure]);
      assert.equal(writer.calls.length, 1);
      assert.equal(writer.forgotten, 0);
      assert.equal(queue.depth, 0);

      // The queue keeps working afterwards.
      const b = track(queue.enqueue(rows('b', 1)));
      (await writer.waitForCalls(2)).resolve();
      await turn();
      assert.equal(b.state, 'resolved');
    });

    test('a writer that throws synchronously fails the request with StorageError', async () => {
      const errors: unknown[] = [];
      const failure = new Error('sync failure');
      const writer: DatabaseWriter = {
        write: () => {
          throw failure;
        },
        forgetProjects: () => {},
        close: async () => {},
      };
      const queue = createSpanQueue(writer, { maxQueuedSpans: 10, maxBatchSpans: 10, onError: (error) => errors.push(error) });
      await assert.rejects(queue.enqueue(rows('a', 1)), StorageError);
      assert.deepEqual(errors, [failure]);
      assert.equal(queue.depth, 0);
    });

    test('every request of a failed batch fails alone when all retries fail too', async () => {
      const { writer, queue, errors } = setup();
      void queue.enqueue(rows('a', 1));
      const first = await writer.waitForCalls(1);
      const b = track(queue.enqueue(rows('b', 1)));
      const c = track(queue.enqueue(rows('c', 1)));
      first.resolve();
      (await writer.waitForCalls(2)).reject(new Error('batch'));
      (await writer.waitForCalls(3)).reject(new Error('b'));
      (await writer.waitForCalls(4)).reject(new Error('c'));
      await turn();
      assert.ok(b.state instanceof StorageError);
      assert.ok(c.state instanceof StorageError);
      assert.deepEqual(
        errors.map((error) => (error as Error).message),
        ['b', 'c'],
      );
      assert.equal(queue.depth, 0);
    });
  });

  describe('close', () => {
    test('waits for the write in flight and everything queued', async () => {
      const { writer, queue } = setup();
      const a = track(queue.enqueue(rows('a', 1)));
      const first = await writer.waitForCalls(1);
      const b = track(queue.enqueue(rows('b', 1)));
      let closed = false;
      const closing = queue.close().then(() => (closed = true));
      await turn();
      assert.equal(closed, false);

      first.resolve();
      const second = await writer.waitForCalls(2);
      await turn();
      assert.equal(a.state, 'resolved');
      assert.equal(closed, false, 'b is still being written');

      second.resolve();
      await closing;
      assert.equal(closed, true);
      assert.equal(b.state, 'resolved');
      assert.equal(queue.depth, 0);
    });

    test('rejects new requests with StorageError once closing', async () => {
      const { writer, queue } = setup();
      await queue.close();
      await assert.rejects(
        queue.enqueue(rows('late', 1)),
        (error: unknown) => error instanceof StorageError && /shutting down/.test(error.message),
      );
      assert.equal(writer.calls.length, 0);
      assert.equal(queue.depth, 0);
    });

    test('resolves at once when nothing is pending', async () => {
      const { queue } = setup();
      let closed = false;
      void queue.close().then(() => (closed = true));
      await turn();
      assert.equal(closed, true);
    });

    test('waits for retries of a failed batch', async () => {
      const { writer, queue } = setup();
      void queue.enqueue(rows('a', 1));
      const first = await writer.waitForCalls(1);
      const b = track(queue.enqueue(rows('b', 1)));
      const c = track(queue.enqueue(rows('c', 1)));
      let closed = false;
      const closing = queue.close().then(() => (closed = true));
      first.resolve();
      (await writer.waitForCalls(2)).reject(new Error('batch'));
      (await writer.waitForCalls(3)).resolve();
      await turn();
      assert.equal(closed, false);
      (await writer.waitForCalls(4)).resolve();
      await closing;
      assert.deepEqual([b.state, c.state], ['resolved', 'resolved']);
    });
  });
});
