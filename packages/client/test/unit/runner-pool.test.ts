/** The runner's concurrency pool: never more than N in flight, every item once, the first error stops scheduling. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runPool } from '../../src/experiments/pool.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('runPool', () => {
  it('keeps at most N workers in flight and runs every item exactly once', async () => {
    let inFlight = 0;
    let peak = 0;
    const seen: number[] = [];
    await runPool(
      Array.from({ length: 40 }, (_, index) => index),
      4,
      async (item) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await tick(item % 3);
        seen.push(item);
        inFlight--;
      },
    );
    assert.equal(peak, 4);
    assert.deepEqual(
      seen.sort((a, b) => a - b),
      Array.from({ length: 40 }, (_, index) => index),
    );
  });

  it('stops scheduling after a failure, waits for the workers in flight, and rethrows', async () => {
    const started: number[] = [];
    let finished = 0;
    await assert.rejects(
      runPool(
        Array.from({ length: 100 }, (_, index) => index),
        3,
        async (item) => {
          started.push(item);
          await tick(2);
          if (item === 4) throw new Error('boom');
          finished++;
        },
      ),
      /boom/,
    );
    assert.ok(started.length < 10, `scheduling stopped (${started.length} started)`);
    assert.equal(finished, started.length - 1, 'the others in flight completed before the pool rejected');
  });

  it('stops scheduling when the signal aborts, and refuses a concurrency below 1', async () => {
    const controller = new AbortController();
    let count = 0;
    await runPool(
      Array.from({ length: 50 }, (_, index) => index),
      2,
      async () => {
        count++;
        if (count === 5) controller.abort();
        await tick(1);
      },
      controller.signal,
    );
    assert.ok(count >= 5 && count <= 6, `${count} items ran`);
    await assert.rejects(
      runPool([1], 0, async () => {}),
      RangeError,
    );
  });
});
