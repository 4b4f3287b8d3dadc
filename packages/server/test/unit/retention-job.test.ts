import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Repositories, WithTransaction } from '../../src/db/repositories/index.js';
import { type RetentionBatch, type RetentionWriter, createRetentionJob } from '../../src/retention/retention-job.js';

/** Repositories holding one project with a 1-day policy and `traces` old trace ids, handed out oldest first. */
function oldTraces(traces: number) {
  let next = 1;
  const retention = {
    listActivePolicies: async () => [{ projectId: 7, maxDays: 1, maxTraces: null }],
    nthNewestTrace: async () => null,
    // SQLite and an unpartitioned database: no day partitions to drop.
    dayPartitionsBefore: async () => [],
    oldestTracesBefore: async (_project: number, _bound: unknown, limit: number) => {
      const ids: number[] = [];
      while (ids.length < limit && next <= traces) ids.push(next++);
      return ids;
    },
    recordRun: async () => {},
    writeLastRun: async () => {},
    deletedProjects: async () => [],
    incrementalVacuumEnabled: async () => false,
    deleteRollupsBefore: async () => {},
  };
  return { retention } as unknown as Pick<Repositories, 'retention'>;
}

/** A writer thread that records which traces it deleted. */
function recordingWriter() {
  const deleted: number[] = [];
  const writer: RetentionWriter = {
    deleteTraces: async (ids) => {
      deleted.push(...ids);
      return { traces: ids.length, spans: ids.length * 5, sessions: 0, ms: 1 };
    },
    incrementalVacuum: async () => 0,
  };
  return { writer, deleted };
}

const noTransactions = (() => {
  throw new Error('the job must use the writer thread');
}) as unknown as WithTransaction;

describe('retention job pacing', () => {
  test('each batch waits until ingest is idle, so ingest keeps the writer first', async () => {
    const events: string[] = [];
    const { writer, deleted } = recordingWriter();
    const deleteTraces = writer.deleteTraces;
    writer.deleteTraces = (ids) => {
      events.push('delete');
      return deleteTraces(ids);
    };
    const batches: RetentionBatch[] = [];
    const job = createRetentionJob({
      repositories: oldTraces(30),
      withTransaction: noTransactions,
      writer,
      intervalMs: 3_600_000,
      maxBatchTraces: 10,
      minPauseMs: 0,
      // No longest pause in reach: every batch waits for ingest.
      maxPauseFactor: 1_000_000,
      // Ingest stays busy for 20 ms each time the job asks.
      ingestIdle: () => {
        events.push('wait');
        return new Promise<void>((resolve) =>
          setTimeout(() => {
            events.push('idle');
            resolve();
          }, 20),
        );
      },
      onBatch: (batch) => batches.push(batch),
    });
    const result = await job.runNow();
    await job.stop();
    assert.equal(result.deletedTraces, 30);
    assert.deepEqual(
      deleted,
      Array.from({ length: 30 }, (_, index) => index + 1),
    );
    assert.ok(
      batches.length >= 3 && batches.every((batch) => batch.projectId === 7 && batch.traces > 0 && batch.spans === batch.traces * 5),
    );
    const deletes = events.flatMap((event, index) => (event === 'delete' ? [index] : []));
    assert.equal(deletes.length, batches.length);
    for (const index of deletes) assert.deepEqual(events.slice(index - 2, index), ['wait', 'idle'], `events: ${events.join(' ')}`);
  });

  test('under ingest that never pauses, each batch runs once the longest pause is up, so the job keeps its share', async () => {
    const batches: RetentionBatch[] = [];
    const { writer, deleted } = recordingWriter();
    const job = createRetentionJob({
      repositories: oldTraces(5),
      withTransaction: noTransactions,
      writer,
      intervalMs: 3_600_000,
      maxBatchTraces: 1,
      minPauseMs: 0,
      targetBatchMs: 1,
      pauseFactor: 1,
      // The fake writer holds the database 1 ms per batch: 20 ms of waiting for ingest at most, then 1 ms of pause.
      maxPauseFactor: 21,
      ingestIdle: () => new Promise<void>(() => {}),
      onBatch: (batch) => batches.push(batch),
    });
    const started = performance.now();
    const result = await job.runNow();
    const took = performance.now() - started;
    await job.stop();
    assert.equal(result.deletedTraces, 5);
    assert.equal(deleted.length, 5);
    assert.equal(batches.length, 5);
    for (const batch of batches) assert.ok(batch.waitedMs >= 19 && batch.waitedMs < 200, `waited ${batch.waitedMs} ms`);
    assert.ok(took >= 5 * 19, `the run took ${took} ms`);
  });

  test('with ingest idle, batches follow one another after the configured pause alone', async () => {
    const batches: RetentionBatch[] = [];
    const job = createRetentionJob({
      repositories: oldTraces(8),
      withTransaction: noTransactions,
      writer: recordingWriter().writer,
      intervalMs: 3_600_000,
      maxBatchTraces: 1,
      minPauseMs: 0,
      pauseFactor: 1,
      maxPauseFactor: 1_000,
      ingestIdle: () => Promise.resolve(),
      onBatch: (batch) => batches.push(batch),
    });
    const started = performance.now();
    await job.runNow();
    const took = performance.now() - started;
    await job.stop();
    assert.equal(batches.length, 8);
    for (const batch of batches) assert.ok(batch.waitedMs < 20, `waited ${batch.waitedMs} ms`);
    // Had each batch waited its longest pause (1 s), the run would take 8 s.
    assert.ok(took < 1_000, `the run took ${took} ms`);
  });

  test('time a batch waited behind ingest commits counts as its pause, and long waits grow the batches', async () => {
    const run = async (queuedMs: number) => {
      const batches: RetentionBatch[] = [];
      const job = createRetentionJob({
        repositories: oldTraces(1000),
        withTransaction: noTransactions,
        // Holds the database 1 ms per batch, answered after `queuedMs` in the writer's queue (with
        // none, at once: a timer could fire late on a busy machine and read as a queue wait).
        writer: {
          deleteTraces: async (ids) => {
            if (queuedMs > 0) await new Promise((resolve) => setTimeout(resolve, queuedMs));
            return { traces: ids.length, spans: ids.length * 5, sessions: 0, ms: 1 };
          },
          incrementalVacuum: async () => 0,
        },
        intervalMs: 3_600_000,
        minPauseMs: 0,
        targetBatchMs: 1,
        pauseFactor: 1,
        maxPauseFactor: 4,
        // Never idle: without the queue wait counted, each batch would wait its longest pause.
        ingestIdle: () => new Promise<void>(() => {}),
        onBatch: (batch) => batches.push(batch),
      });
      await job.runNow();
      await job.stop();
      return batches;
    };
    // Each full batch of 100 traces holds the database 1 ms, the 1 ms asked for: the size stays.
    const quick = await run(0);
    assert.equal(quick.length, 10);
    assert.deepEqual(
      quick.slice(0, -1).map((batch) => batch.nextSize),
      Array(9).fill(100),
    );
    assert.ok(
      quick.slice(1).every((batch) => batch.waitedMs >= 2),
      'with no queue wait, each batch waits for ingest',
    );
    // 40 ms behind ingest for 1 ms of work: the job asks for batches of 10 ms, so sizes double (the most per step).
    const queued = await run(40);
    assert.deepEqual(
      queued.slice(0, 2).map((batch) => batch.nextSize),
      [200, 400],
    );
    assert.ok(
      queued.slice(1).every((batch) => batch.waitedMs < 2),
      `the queue wait was the pause: ${queued.map((batch) => batch.waitedMs)}`,
    );
  });
});
