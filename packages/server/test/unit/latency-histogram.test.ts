/**
 * The latency histogram's bucket floors (db/latency-histogram.ts), which PostgreSQL's
 * width_bucket searches: each is the first whole latency of its bucket by latencyBucket itself,
 * so SQL and the writers bucket a latency on a bound alike.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUCKET_FLOORS_NS, LATENCY_BUCKETS, latencyBucket } from '../../src/db/latency-histogram.js';

describe('latency histogram floors', () => {
  it('start each bucket from 1 to the last at its first whole latency', () => {
    assert.equal(BUCKET_FLOORS_NS.length, LATENCY_BUCKETS - 1);
    BUCKET_FLOORS_NS.forEach((floor, index) => {
      assert.equal(latencyBucket(floor), index + 1, `floor of bucket ${index + 1}`);
      assert.equal(latencyBucket(floor - 1), index, `just below bucket ${index + 1}`);
    });
    // 0.1 ms, 0.1·√2 ms rounded up, 0.2 ms: the first three bounds.
    assert.deepEqual(BUCKET_FLOORS_NS.slice(0, 3), [100_000, 141_422, 200_000]);
  });
});
