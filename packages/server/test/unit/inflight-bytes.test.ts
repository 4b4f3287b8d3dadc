import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { QueueFullError } from '@sightline/common';
import { InflightBytes } from '../../src/ingest/inflight-bytes.js';
import { createIngestService, createSpanQueue } from '../../src/ingest/ingest-service.js';
import type { SpanRow } from '../../src/span-model/span-rows.js';
import type { DatabaseWriter } from '../../src/db/writer/database-writer.js';

const refusal = () => new QueueFullError('too many bodies', 1);

describe('in-flight byte budget', () => {
  test('admits bodies up to the budget, refuses past it, and takes bytes back on release', () => {
    const budget = new InflightBytes(1000, refusal);
    const a = budget.admit(600);
    const b = budget.admit(400);
    assert.equal(budget.inUse, 1000);
    assert.throws(() => budget.admit(1), QueueFullError);
    a.release();
    a.release();
    assert.equal(budget.inUse, 400, 'a second release gives nothing back twice');
    const c = budget.admit(600);
    b.release();
    c.release();
    assert.equal(budget.inUse, 0);
  });

  test('a body alone is admitted whatever its size, so a large export is never refused forever', () => {
    const budget = new InflightBytes(1000, refusal);
    const large = budget.admit(5000);
    assert.throws(() => budget.admit(10), QueueFullError);
    large.release();
    assert.equal(budget.inUse, 0);
  });

  test('a streamed body grows its share chunk by chunk and is refused once it would pass the budget', () => {
    const budget = new InflightBytes(1000, refusal);
    const other = budget.admit(500);
    const streamed = budget.admit(0);
    streamed.grow(300);
    assert.throws(() => streamed.grow(300), QueueFullError);
    assert.equal(budget.inUse, 800, 'the refused chunk is not counted');
    other.release();
    streamed.grow(5000);
    assert.equal(budget.inUse, 5300, 'alone, it may grow past the budget');
    streamed.release();
    assert.equal(budget.inUse, 0);
  });
});

describe('ingest admission', () => {
  test('a full span queue refuses a body before it is read', async () => {
    const writes: (() => void)[] = [];
    const writer: DatabaseWriter = {
      write: () => new Promise<void>((resolve) => writes.push(resolve)),
      forgetProjects: () => {},
      close: async () => {},
    };
    const queue = createSpanQueue(writer, { maxQueuedSpans: 2, maxBatchSpans: 2 });
    const ingest = createIngestService(queue, { maxInflightBytes: 1 << 20 });
    ingest.admit(100).release();
    const stored = queue.enqueue([{} as SpanRow, {} as SpanRow]);
    assert.equal(queue.full, true);
    assert.throws(
      () => ingest.admit(100),
      (error: Error) => error instanceof QueueFullError && /busy writing earlier spans/.test(error.message),
    );
    await new Promise((resolve) => setImmediate(resolve));
    for (const resolve of writes) resolve();
    await stored;
    assert.equal(queue.full, false);
    ingest.admit(100).release();
  });
});
