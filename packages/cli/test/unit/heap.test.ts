import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HEAP_GROWING_PERCENT, tuneHeapForService } from '../../src/heap.js';

describe('heap tuning of sightline serve', () => {
  test('sets the heap growth flag when node was started without one', () => {
    const set: string[] = [];
    tuneHeapForService(['--enable-source-maps'], (flags) => set.push(flags));
    assert.deepEqual(set, [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  });

  test("leaves the operator's own setting alone, in either spelling", () => {
    for (const argument of ['--heap-growing-percent=0', '--heap_growing_percent=100']) {
      const set: string[] = [];
      tuneHeapForService([argument], (flags) => set.push(flags));
      assert.deepEqual(set, [], argument);
    }
  });
});
