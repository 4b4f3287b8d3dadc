/**
 * Sightline's runner (`runExperiment` of @sightline/client) against a real server with auth on and
 * a member's key: 50 examples × 2 repetitions, two evaluators (one a phoenix-client evaluator
 * object, unchanged), concurrency 10. Checks counts, runs, every evaluation, the task traces in
 * the experiment's project, the summary, and that a 4xx fails with the server's message.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { asExperimentEvaluator } from '@arizeai/phoenix-client/experiments';
import { SightlineError, runExperiment, type Evaluator, type ExperimentRun } from '@sightline/client';
import { AUTH_ENV, createActiveUser, sessionOf, setupDefaultAdmin, unique } from '../../packages/server/test/helpers/auth.js';
import { describeEachDialect } from '../../packages/server/test/helpers/server.js';
import { captureOutput, getJson, pollUntil, uploadSums } from './fixtures/experiments.js';

describeEachDialect(
  "Sightline's runner (runExperiment of @sightline/client)",
  (server) => {
    let key: string;
    before(async () => {
      const admin = await setupDefaultAdmin(server().url);
      key = (await createActiveUser(server().url, sessionOf(server().url, admin), 'member')).key;
    });

    it('runs 50 examples × 2 repetitions with two evaluators at concurrency 10; counts, runs, evaluations and traces are stored', async () => {
      const url = server().url;
      const datasetId = await uploadSums(url, key, unique('sums'), 50);
      let inFlight = 0;
      let maxInFlight = 0;
      // A phoenix-client evaluator object, passed unchanged.
      const exact = asExperimentEvaluator({
        name: 'exact',
        kind: 'CODE',
        evaluate: async ({ output, expected }) => {
          const ok = JSON.stringify(output) === JSON.stringify(expected);
          return { score: ok ? 1 : 0, label: ok ? 'match' : 'mismatch', explanation: null, metadata: {} };
        },
      });
      const even: Evaluator = {
        name: 'even',
        evaluate: ({ input, output }) => {
          if (input.a === 11) throw new Error('eleven is not judged');
          return (output as { sum: number }).sum % 2 === 0;
        },
      };
      const output = captureOutput();
      const result = await runExperiment({
        baseUrl: url,
        apiKey: key,
        dataset: { datasetId },
        experimentName: 'adder',
        repetitions: 2,
        concurrency: 10,
        output,
        progressIntervalMs: 60_000,
        evaluators: [exact, even],
        task: async function adder(example) {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await new Promise((resolve) => setTimeout(resolve, 5));
          inFlight--;
          const input = example.input as { a: number; b: number };
          if (input.a === 7) throw new Error('seven is unlucky');
          return { sum: input.a + input.b };
        },
      });

      const { experiment } = result;
      assert.deepEqual(
        [
          experiment.example_count,
          experiment.repetitions,
          experiment.successful_run_count,
          experiment.failed_run_count,
          experiment.missing_run_count,
        ],
        [50, 2, 98, 2, 2],
        'example 7 fails in both repetitions',
      );
      assert.ok(maxInFlight <= 10 && maxInFlight > 1, `tasks in flight at most 10 (saw ${maxInFlight})`);
      assert.equal(result.runs.length, 100);
      assert.equal(result.evaluations.length, 98 * 2, 'each successful run evaluated by both');
      assert.deepEqual(result.summary.runs, { total: 100, ok: 98, failed: 2, doneBefore: 0 });
      // a = 0…49 without 7 (task fails) and 11 (evaluator fails): 25 even a × 2 repetitions = 50 even sums of 96 scored runs.
      assert.deepEqual(
        result.summary.evaluators.map((evaluator) => [
          evaluator.name,
          evaluator.count,
          evaluator.meanScore,
          evaluator.labels,
          evaluator.failures,
        ]),
        [
          ['even', 98, 50 / 96, { false: 46, true: 50 }, 2],
          ['exact', 98, 1, { match: 98 }, 0],
        ],
      );
      const printed = output.text();
      assert.match(printed, /runs: 98 ok, 2 failed in /);
      assert.match(printed, /evaluator\s+n\s+mean score\s+labels\s+failures/);
      assert.match(printed, /exact\s+98\s+1\.000\s+match: 98\s+0/);
      assert.match(printed, /runs 100\/100 \(100%\) failed 2 /, 'the final progress line');

      // What the server stored: 100 runs, one per example and repetition, each successful one with both evaluations.
      const runs = (await getJson<{ data: ExperimentRun[] }>(url, key, `/v1/experiments/${experiment.id}/runs?limit=1000`)).data;
      assert.equal(runs.length, 100);
      assert.equal(new Set(runs.map((run) => `${run.dataset_example_id}/${run.repetition_number}`)).size, 100, 'no duplicates');
      const failed = runs.filter((run) => run.error !== null);
      assert.deepEqual(
        failed.map((run) => run.error),
        ['seven is unlucky', 'seven is unlucky'],
      );
      for (const run of runs.filter((item) => item.error === null)) {
        const sum = (run.output as { sum: number }).sum;
        const byName = Object.fromEntries((run.annotations ?? []).map((annotation) => [annotation.name, annotation]));
        assert.equal(run.annotations?.length, 2, `run ${run.id} has both evaluations`);
        assert.deepEqual([byName.exact?.score, byName.exact?.label, byName.exact?.annotator_kind], [1, 'match', 'CODE']);
        if (sum === 13) {
          assert.deepEqual([byName.even?.error, byName.even?.score], ['eleven is not judged', null]);
        } else {
          assert.deepEqual(
            [byName.even?.score, byName.even?.label, byName.even?.error],
            [sum % 2 === 0 ? 1 : 0, String(sum % 2 === 0), null],
          );
        }
      }
      const byRunId = new Map(result.runs.map((run) => [run.id, run]));
      for (const run of runs) assert.equal(byRunId.get(run.id)?.traceId, run.trace_id, 'the runner returns what it recorded');

      // One task trace per run in the experiment's project, each run naming its trace.
      const project = encodeURIComponent(experiment.project_name ?? '');
      const traces = await pollUntil(
        async () => (await getJson<{ data: { trace_id: string }[] }>(url, key, `/v1/projects/${project}/traces?limit=1000`)).data,
        (list) => list.length >= 100,
      );
      assert.equal(traces.length, 100, 'one trace per task run');
      const traceIds = new Set(traces.map((trace) => trace.trace_id));
      for (const run of runs) assert.ok(run.trace_id !== null && traceIds.has(run.trace_id), `run ${run.id} names a stored trace`);
      const spans = (
        await getJson<{ data: { name: string; span_kind: string; status_code: string; context: { trace_id: string } }[] }>(
          url,
          key,
          `/v1/projects/${project}/spans?limit=1000`,
        )
      ).data;
      assert.equal(spans.length, 100);
      assert.deepEqual([...new Set(spans.map((span) => `${span.name}/${span.span_kind}`))], ['Task: adder/CHAIN']);
      const failedTraces = new Set(failed.map((run) => run.trace_id));
      for (const span of spans) assert.equal(span.status_code, failedTraces.has(span.context.trace_id) ? 'ERROR' : 'OK');
    });

    it('survives 503s and lost answers: a run stored but unanswered is retried, answers 409, and is still evaluated', async () => {
      const url = server().url;
      const datasetId = await uploadSums(url, key, unique('flaky'), 10);
      const lost = new Set<string>();
      let unavailable = 0;
      // The network as a runner may meet it: the first post of 3 runs reaches the server but its
      // answer is lost (a reset connection); every other evaluation post answers 503.
      const flaky: typeof fetch = async (input, init) => {
        const target = String(input);
        const example = init?.method === 'POST' && target.endsWith('/runs') ? String(init.body) : null;
        if (example !== null && lost.size < 3 && !lost.has(example)) {
          lost.add(example);
          await fetch(input, init);
          throw new TypeError('fetch failed');
        }
        if (init?.method === 'POST' && target.endsWith('/v1/experiment_evaluations') && unavailable++ % 2 === 0) {
          return new Response(JSON.stringify({ detail: 'busy' }), { status: 503, headers: { 'retry-after': '0' } });
        }
        return fetch(input, init);
      };
      const result = await runExperiment({
        baseUrl: url,
        apiKey: key,
        fetch: flaky,
        dataset: { datasetId },
        concurrency: 1,
        output: false,
        retry: { baseDelayMs: 1 },
        task: (example) => ({ sum: (example.input.a as number) + (example.input.b as number) }),
        evaluators: [{ name: 'exact', evaluate: ({ output, expected }) => JSON.stringify(output) === JSON.stringify(expected) }],
      });
      assert.deepEqual(result.summary.runs, { total: 10, ok: 7, failed: 0, doneBefore: 3 });
      assert.equal(result.evaluations.length, 10, 'the three runs answered 409 were evaluated from incomplete-evaluations');
      assert.ok(unavailable >= 20, `each evaluation post met a 503 first (${unavailable} posts)`);
      const runs = (await getJson<{ data: ExperimentRun[] }>(url, key, `/v1/experiments/${result.experiment.id}/runs?limit=1000`)).data;
      assert.equal(runs.length, 10, 'no duplicate runs');
      for (const run of runs)
        assert.deepEqual(
          (run.annotations ?? []).map((annotation) => [annotation.name, annotation.score]),
          [['exact', 1]],
        );
      assert.equal(result.experiment.successful_run_count, 10);
    });

    it('fails with the server’s message on a 4xx other than 429, without retrying', async () => {
      let calls = 0;
      const counting: typeof fetch = (input, init) => {
        calls++;
        return fetch(input, init);
      };
      await assert.rejects(
        runExperiment({
          baseUrl: server().url,
          apiKey: key,
          fetch: counting,
          dataset: { datasetName: unique('no-such-dataset') },
          task: () => null,
          output: false,
        }),
        (error: unknown) => error instanceof SightlineError && error.status === 404 && /dataset/i.test(String(error.detail)),
      );
      assert.equal(calls, 1, 'a 404 is not retried');
    });
  },
  AUTH_ENV,
);
