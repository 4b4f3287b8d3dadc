/** The job runner (jobs/job-runner.ts): schedule, outcomes, backoff, status, runNow and shutdown order. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffMs, MAX_BACKOFF_MS, startJobRunner, type Job, type JobLeases, type JobOutcome } from '../../src/jobs/job-runner.js';

/** A lease that is always free (SQLite's: the process owns the database). */
const free: JobLeases = { withLease: async (_name, work) => ({ leased: true, value: await work() }) };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A job whose runs follow a script of outcomes (or errors), recording each run. */
function scripted(name: string, script: (JobOutcome | Error)[], intervalMs = 5): Job & { runs: number } {
  const job = {
    name,
    description: `${name} job`,
    intervalMs,
    firstDelayMs: 0,
    runs: 0,
    async run(): Promise<JobOutcome> {
      const next = script[Math.min(job.runs, script.length - 1)]!;
      job.runs++;
      if (next instanceof Error) throw next;
      return next;
    },
  };
  return job;
}

async function until(condition: () => boolean, what: string, limitMs = 5000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    assert.ok(Date.now() - started < limitMs, `timed out waiting for ${what}`);
    await sleep(5);
  }
}

describe('job runner', () => {
  it('runs a job on its schedule until it says it is finished, and never after', async () => {
    const job = scripted('converter', ['more', 'more', 'finished']);
    const runner = startJobRunner([job], { leases: free });
    await until(() => runner.status()[0]!.state === 'finished', 'the job to finish');
    await sleep(50);
    assert.equal(job.runs, 3);
    const [status] = runner.status();
    assert.equal(status!.runs, 3);
    assert.equal(status!.nextRunAt, null);
    assert.equal(status!.lagMs, 0);
    assert.ok(status!.lastSuccessAt !== null);
    await runner.stop();
  });

  it('backs off after failures, doubling, and records the last error until a run succeeds', async () => {
    const errors: string[] = [];
    const job = scripted('flaky', [new Error('database away'), new Error('still away'), 'idle'], 10_000);
    const runner = startJobRunner([job], { leases: free, onError: (name, error) => errors.push(`${name}: ${(error as Error).message}`) });
    await until(() => job.runs === 1 && runner.status()[0]!.state === 'backing-off', 'the first failure');
    const failed = runner.status()[0]!;
    assert.equal(failed.lastError, 'database away');
    assert.equal(failed.consecutiveFailures, 1);
    // The next run is due after the backoff, not the interval.
    const due = Date.parse(failed.nextRunAt!) - Date.parse(failed.lastRunFinishedAt!);
    assert.ok(due <= backoffMs(10_000, 1) + 5 && due >= backoffMs(10_000, 1) - 5, `due in ${due} ms`);
    assert.deepEqual(errors, ['flaky: database away']);
    await runner.runNow('flaky');
    assert.equal(runner.status()[0]!.consecutiveFailures, 2);
    await runner.runNow('flaky');
    const recovered = runner.status()[0]!;
    assert.equal(recovered.consecutiveFailures, 0);
    assert.equal(recovered.state, 'scheduled');
    assert.equal(recovered.lastError, 'still away', 'the last error stays visible after a success');
    await runner.stop();
  });

  it('doubles the backoff up to five minutes', () => {
    assert.equal(backoffMs(1000, 1), 1000);
    assert.equal(backoffMs(1000, 3), 4000);
    assert.equal(backoffMs(10, 1), 1000, 'at least a second');
    assert.equal(backoffMs(3_600_000, 1), MAX_BACKOFF_MS, 'a long interval still retries within five minutes');
    assert.equal(backoffMs(1000, 40), MAX_BACKOFF_MS);
  });

  it('stops jobs in the reverse order of registration, waiting for the run in progress, which sees its signal abort', async () => {
    const order: string[] = [];
    const slow = (name: string): Job => ({
      name,
      description: name,
      intervalMs: 1000,
      firstDelayMs: 0,
      run: (signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            order.push(name);
            resolve('idle');
          });
        }),
    });
    const runner = startJobRunner([slow('first'), slow('second'), slow('third')], { leases: free });
    await until(() => runner.status().every((status) => status.state === 'running'), 'every job to run');
    await runner.stop();
    assert.deepEqual(order, ['third', 'second', 'first']);
    assert.ok(runner.status().every((status) => status.state === 'stopped'));
  });

  it('skips a run whose lease another replica holds, and says so', async () => {
    const held: JobLeases = { withLease: async () => ({ leased: false }) };
    const job = scripted('exclusive', ['idle'], 1000);
    const runner = startJobRunner([job], { leases: held });
    const after = await runner.runNow('exclusive');
    const [status] = runner.status();
    assert.deepEqual(after, status, 'runNow answers the status after the run');
    assert.equal(job.runs, 0);
    assert.equal(status!.leasedElsewhere, true);
    assert.equal(status!.runs, 0);
    await runner.stop();
  });

  it('refuses two jobs of one name, and an unknown name', async () => {
    assert.throws(
      () => startJobRunner([scripted('a', ['idle']), scripted('a', ['idle'])], { leases: free }),
      /two background jobs are named a/,
    );
    const runner = startJobRunner([], { leases: free });
    await assert.rejects(runner.runNow('nope'), /no background job is named nope/);
    await runner.stop();
  });
});
