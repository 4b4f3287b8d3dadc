import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Repositories, WithTransaction } from '../../src/db/repositories/index.js';
import { type RetentionBatch, type RetentionWriter, startRetentionJob } from '../../src/retention/retention-job.js';

/** Repositories holding one project with a 1-day policy and `traces` old trace ids, handed out oldest first. */
function oldTraces(traces: number) {
  let next = 1;
  const retention = {
    listActivePolicies: async () => [{ projectId: 7, maxDays: 1, maxTraces: null }],
    nthNewestTrace: async () => null,
    oldestTracesBefore: async (_project: number, _bound: unknown, limit: number) => {
      const ids: number[] = [];
      while (ids.length < limit && next <= traces) ids.push(next++);
      return ids;
    },
    recordRun: async () => {},
    writeLastRun: async () => {},
    incrementalVacuumEnabled: async () => false,
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
    const job = startRetentionJob({
      repositories: oldTraces(30),
      withTransaction: noTransactions,
      writer,
      intervalMs: 3_600_000,
      maxBatchTraces: 10,
      minPauseMs: 0,
      maxIdleWaitMs: 60_000,
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

  test('under ingest that never pauses, a batch runs after the longest wait, so the job still progresses', async () => {
    const { writer, deleted } = recordingWriter();
    const job = startRetentionJob({
      repositories: oldTraces(5),
      withTransaction: noTransactions,
      writer,
      intervalMs: 3_600_000,
      minPauseMs: 0,
      maxIdleWaitMs: 20,
      ingestIdle: () => new Promise<void>(() => {}),
    });
    const started = performance.now();
    const result = await job.runNow();
    assert.equal(result.deletedTraces, 5);
    assert.equal(deleted.length, 5);
    assert.ok(performance.now() - started >= 15, 'it waited for ingest first');
    await job.stop();
  });

  test('backs off while ingest still has a backlog when its turn comes, and not when ingest is idle', async () => {
    const run = async (ingestBusyMs: number) => {
      const batches: RetentionBatch[] = [];
      const job = startRetentionJob({
        repositories: oldTraces(8),
        withTransaction: noTransactions,
        writer: recordingWriter().writer,
        intervalMs: 3_600_000,
        maxBatchTraces: 1,
        minPauseMs: 0,
        pauseFactor: 0.001,
        ingestIdle: () => (ingestBusyMs === 0 ? Promise.resolve() : new Promise<void>((resolve) => setTimeout(resolve, ingestBusyMs))),
        onBatch: (batch) => batches.push(batch),
      });
      await job.runNow();
      await job.stop();
      return batches.map((batch) => batch.backoff);
    };
    // The fake writer reports 1 ms per batch: ingest taking 20 ms to drain means it is behind.
    const behind = await run(20);
    assert.equal(behind.length, 8);
    assert.deepEqual(behind.slice(0, 6), [1, 2, 4, 8, 16, 32]);
    assert.deepEqual(behind.slice(6), [32, 32], 'bounded');
    assert.deepEqual(await run(0), Array(8).fill(1), 'idle ingest: no backoff');
  });
});
