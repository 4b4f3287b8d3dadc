/** The runner's output: progress lines off a terminal, the redrawn terminal line, the summary and its table. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createProgress, formatDuration, formatProgress } from '../../src/experiments/progress.js';
import { normalizeResult } from '../../src/experiments/runner.js';
import { formatSummary, summarize } from '../../src/experiments/summary.js';
import type { EvaluationRecord, RunRecord } from '../../src/experiments/types.js';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { chunks, stream: { isTTY, columns: 100, write: (chunk: string) => chunks.push(chunk) } };
}

describe('progress', () => {
  it('formats done/total, percent, failures, rate and ETA', () => {
    assert.equal(
      formatProgress({ label: 'runs', done: 25, total: 100, failed: 2, elapsedMs: 5000 }),
      'runs 25/100 (25%) failed 2 5.0/s ETA 15.0 s',
    );
    assert.equal(formatProgress({ label: 'runs', done: 0, total: 10, failed: 0, elapsedMs: 0 }), 'runs 0/10 (0%) failed 0 0.0/s ETA ?');
    assert.deepEqual([formatDuration(850), formatDuration(61_000), formatDuration(3_720_000)], ['850 ms', '1m01s', '1h02m']);
  });

  it('off a terminal writes whole lines, none per tick, and a final one', () => {
    let clock = 0;
    const { chunks, stream } = sink(false);
    const progress = createProgress({ label: 'runs', total: 4, output: stream, intervalMs: 60_000, now: () => clock });
    for (const failed of [false, true, false, false]) {
      clock += 500;
      progress.tick(failed);
    }
    assert.deepEqual(chunks, [], 'no line before the interval');
    progress.finish();
    assert.deepEqual(chunks, ['runs 4/4 (100%) failed 1 2.0/s ETA 0 ms\n']);
    assert.ok(!chunks.join('').includes('\r'), 'no carriage returns in a log');
  });

  it('on a terminal redraws one line in place and ends it once', () => {
    let clock = 0;
    const { chunks, stream } = sink(true);
    const progress = createProgress({ label: 'runs', total: 2, output: stream, now: () => clock });
    clock = 200;
    progress.tick(false);
    clock = 400;
    progress.tick(false);
    progress.finish();
    assert.ok(chunks.length >= 3);
    for (const chunk of chunks.slice(0, -1)) assert.ok(chunk.startsWith('\r\x1b[2K['), JSON.stringify(chunk));
    assert.match(chunks.at(-2)!, /\[#+\] runs 2\/2 \(100%\) failed 0/);
    assert.equal(chunks.at(-1), '\n');
  });

  it('writes nothing without an output', () => {
    const progress = createProgress({ label: 'runs', total: 1, output: null });
    progress.tick(false);
    progress.finish();
    assert.equal(progress.state.done, 1);
  });
});

describe('summary', () => {
  const run = (status: RunRecord['status']): RunRecord => ({
    id: status === 'done-before' ? null : 'r',
    exampleId: 'e',
    repetition: 1,
    output: null,
    error: status === 'failed' ? 'x' : null,
    traceId: null,
    startTime: '',
    endTime: '',
    status,
  });
  const evaluation = (name: string, score: number | null, label: string | null, error: string | null = null): EvaluationRecord => ({
    id: 'v',
    runId: 'r',
    name,
    kind: 'CODE',
    result: error ? null : { score, label },
    error,
    startTime: '',
    endTime: '',
  });

  it('computes mean scores, label counts and failures per evaluator, and prints them as a table', () => {
    const summary = summarize(
      [run('ok'), run('ok'), run('ok'), run('failed'), run('done-before')],
      [
        evaluation('exact', 1, 'match'),
        evaluation('exact', 0, 'mismatch'),
        evaluation('exact', 1, 'match'),
        evaluation('judge', null, 'good'),
        evaluation('judge', null, null, 'model timed out'),
      ],
      61_500,
      { id: 'RXhwZXJpbWVudDox', successful_run_count: 4, failed_run_count: 1, missing_run_count: 0 },
    );
    assert.deepEqual(summary.runs, { total: 5, ok: 3, failed: 1, doneBefore: 1 });
    assert.deepEqual(summary.evaluators, [
      { name: 'exact', count: 3, meanScore: 2 / 3, labels: { match: 2, mismatch: 1 }, failures: 0 },
      { name: 'judge', count: 2, meanScore: null, labels: { good: 1 }, failures: 1 },
    ]);
    assert.equal(
      formatSummary(summary),
      [
        'runs: 3 ok, 1 failed, 1 already done in 1m02s',
        'experiment RXhwZXJpbWVudDox: 4 successful, 1 failed, 0 missing',
        '',
        'evaluator  n  mean score  labels                 failures',
        '---------  -  ----------  ---------------------  --------',
        'exact      3  0.667       match: 2, mismatch: 1  0',
        'judge      2  -           good: 1                1',
        '',
      ].join('\n'),
    );
  });

  it('turns a bare number or boolean into a score, and refuses a non-finite one', () => {
    assert.deepEqual(normalizeResult(0.25), { score: 0.25, label: null, explanation: null, metadata: {} });
    assert.deepEqual(normalizeResult(true), { score: 1, label: 'true', explanation: null, metadata: {} });
    assert.deepEqual(normalizeResult({ label: 'ok' }), { score: null, label: 'ok', explanation: null, metadata: {} });
    assert.throws(() => normalizeResult(Number.NaN), /not a finite score/);
  });
});
