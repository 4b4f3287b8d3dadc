/**
 * The real `runExperiment` of @arizeai/phoenix-client (6.x) against Sightline, with a member's
 * user key: a 50-example dataset, a task, two evaluators and 2 repetitions. The client creates
 * the experiment, traces every task run to the experiment's project over OTLP (its own
 * register()), records runs and evaluations; the test then checks counts, runs, evaluations
 * and the task spans through the API. A second case interrupts an experiment (half the runs
 * recorded by hand) and completes it with phoenix-client's resumeExperiment and resumeEvaluation.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createClient } from '@arizeai/phoenix-client';
import { createDataset } from '@arizeai/phoenix-client/datasets';
import {
  asExperimentEvaluator,
  createExperiment,
  resumeEvaluation,
  resumeExperiment,
  runExperiment,
} from '@arizeai/phoenix-client/experiments';
import { AUTH_ENV, createActiveUser, sessionOf, setupDefaultAdmin, unique } from '../../packages/server/test/helpers/auth.js';
import { describeEachDialect } from '../../packages/server/test/helpers/server.js';

// A stray .env.phoenix must not redirect the client.
process.env.PHOENIX_DISCOVER_CONFIG = 'false';

const silent = { debug() {}, info() {}, log() {}, warn() {}, error() {}, table() {} };

describeEachDialect(
  '@arizeai/phoenix-client runExperiment against Sightline',
  (server) => {
    let phoenix: ReturnType<typeof createClient>;
    let key: string;
    before(async () => {
      const admin = await setupDefaultAdmin(server().url);
      const member = await createActiveUser(server().url, sessionOf(server().url, admin), 'member');
      key = member.key;
      phoenix = createClient({ options: { baseUrl: server().url, headers: { Authorization: `Bearer ${key}` } } });
    });

    it('runs 50 examples × 2 repetitions with two evaluators; runs, evaluations, counts and task traces are stored', async () => {
      const { datasetId } = await createDataset({
        client: phoenix,
        name: unique('arithmetic'),
        description: 'sums',
        examples: Array.from({ length: 50 }, (_, index) => ({ input: { a: index, b: 2 }, output: { sum: index + 2 } })),
      });
      const ran = await runExperiment({
        client: phoenix,
        dataset: { datasetId },
        experimentName: 'adder',
        repetitions: 2,
        concurrency: 4,
        logger: silent,
        task: async (example) => {
          const input = example.input as { a: number; b: number };
          if (input.a === 7) throw new Error('seven is unlucky');
          return { sum: input.a + input.b };
        },
        evaluators: [
          asExperimentEvaluator({
            name: 'exact',
            kind: 'CODE',
            evaluate: async ({ output, expected }) => {
              const ok = JSON.stringify(output) === JSON.stringify(expected);
              return { score: ok ? 1 : 0, label: ok ? 'match' : 'mismatch', explanation: null, metadata: {} };
            },
          }),
          asExperimentEvaluator({
            name: 'even',
            kind: 'CODE',
            evaluate: async ({ output }) => {
              const even = ((output as { sum: number }).sum ?? 1) % 2 === 0;
              return { score: even ? 1 : 0, label: even ? 'even' : 'odd', explanation: 'parity of the sum', metadata: {} };
            },
          }),
        ],
      });
      const experimentId = ran.id;
      const url = server().url;
      const headers = { authorization: `Bearer ${key}` };
      const get = async (path: string) => {
        const response = await fetch(`${url}${path}`, { headers });
        assert.equal(response.status, 200, `${path}: ${response.status}`);
        return (await response.json()) as { data: any; next_cursor?: string | null };
      };

      const experiment = (await get(`/v1/experiments/${experimentId}`)).data;
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

      // Evaluations are posted without waiting (best effort): wait until all 98 × 2 have arrived.
      let runs: any[] = [];
      for (let attempt = 0; attempt < 50; attempt++) {
        runs = (await get(`/v1/experiments/${experimentId}/runs?limit=1000`)).data;
        const evaluated = runs.filter((run) => run.error === null).every((run) => run.annotations.length === 2);
        if (evaluated) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(runs.length, 100);
      assert.equal(new Set(runs.map((run) => `${run.dataset_example_id}/${run.repetition_number}`)).size, 100, 'no duplicates');
      const ok = runs.filter((run) => run.error === null);
      assert.equal(ok.length, 98);
      for (const run of ok) {
        const byName = Object.fromEntries(run.annotations.map((annotation: { name: string }) => [annotation.name, annotation]));
        assert.equal(run.annotations.length, 2);
        assert.deepEqual([byName.exact?.score, byName.exact?.label], [1, 'match']);
        assert.deepEqual([byName.even?.score, byName.even?.label], run.output.sum % 2 === 0 ? [1, 'even'] : [0, 'odd']);
      }
      assert.deepEqual([...new Set(runs.filter((run) => run.error !== null).map((run) => run.error))], ['seven is unlucky']);

      // Every run names its trace, and the task spans are in the experiment's project.
      const project = encodeURIComponent(experiment.project_name);
      let traced = 0;
      for (let attempt = 0; attempt < 100 && traced < 100; attempt++) {
        traced = (await get(`/v1/projects/${project}/traces?limit=1000`)).data.length;
        if (traced < 100) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(traced, 100, 'one trace per task run in the experiment project');
      const traceIds = new Set(
        (await get(`/v1/projects/${project}/traces?limit=1000`)).data.map((trace: { trace_id: string }) => trace.trace_id),
      );
      for (const run of runs) assert.ok(traceIds.has(run.trace_id), `run ${run.id} names a stored trace`);

      // Nothing is incomplete but the two failed runs; the evaluations are complete.
      const incomplete = (await get(`/v1/experiments/${experimentId}/incomplete-runs`)).data;
      assert.deepEqual(
        incomplete.map((item: { dataset_example: { input: unknown }; repetition_numbers: number[] }) => [
          item.dataset_example.input,
          item.repetition_numbers,
        ]),
        [[{ a: 7, b: 2 }, [1, 2]]],
      );
      assert.deepEqual(
        (await get(`/v1/experiments/${experimentId}/incomplete-evaluations?evaluation_name=exact&evaluation_name=even`)).data,
        [],
      );
      const listed = (await get(`/v1/datasets/${datasetId}/experiments`)).data;
      assert.deepEqual(
        listed.map((item: { id: string }) => item.id),
        [experimentId],
      );
    });

    it('completes an interrupted experiment with resumeExperiment and resumeEvaluation, without duplicates', async () => {
      const url = server().url;
      const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const send = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
        assert.equal(response.status, 200, `${method} ${path}: ${response.status} ${await response.clone().text()}`);
        return (await response.json()) as { data: any; next_cursor?: string | null };
      };
      const { datasetId } = await createDataset({
        client: phoenix,
        name: unique('interrupted'),
        description: 'sums',
        examples: Array.from({ length: 50 }, (_, index) => ({ input: { a: index, b: 2 }, output: { sum: index + 2 } })),
      });
      const experiment = await createExperiment({ client: phoenix, datasetId, experimentName: 'interrupted', repetitions: 2 });
      const examples: { node_id: string; input: { a: number; b: number } }[] = (await send('GET', `/v1/datasets/${datasetId}/examples`))
        .data.examples;
      assert.equal(examples.length, 50);

      // The interrupted runner: both repetitions of the first 25 examples recorded, the first 10
      // of those runs evaluated by `exact` only, and one failed run (example 25, repetition 1).
      const now = new Date().toISOString();
      const byHand: string[] = [];
      for (const example of examples.slice(0, 25)) {
        for (const repetition of [1, 2]) {
          const run = await send('POST', `/v1/experiments/${experiment.id}/runs`, {
            dataset_example_id: example.node_id,
            output: { sum: example.input.a + example.input.b },
            repetition_number: repetition,
            start_time: now,
            end_time: now,
          });
          byHand.push(run.data.id);
        }
      }
      for (const runId of byHand.slice(0, 10)) {
        await send('POST', '/v1/experiment_evaluations', {
          experiment_run_id: runId,
          name: 'exact',
          annotator_kind: 'HUMAN',
          start_time: now,
          end_time: now,
          result: { score: 1, label: 'match', explanation: 'by hand' },
        });
      }
      await send('POST', `/v1/experiments/${experiment.id}/runs`, {
        dataset_example_id: examples[25]!.node_id,
        output: null,
        repetition_number: 1,
        start_time: now,
        end_time: now,
        error: 'interrupted',
      });
      const before = (await send('GET', `/v1/experiments/${experiment.id}`)).data;
      assert.deepEqual([before.successful_run_count, before.failed_run_count, before.missing_run_count], [50, 1, 50]);

      const ran: number[] = [];
      await resumeExperiment({
        client: phoenix,
        experimentId: experiment.id,
        logger: silent,
        concurrency: 4,
        setGlobalTracerProvider: false,
        task: async (example) => {
          const input = example.input as { a: number; b: number };
          ran.push(input.a);
          return { sum: input.a + input.b };
        },
      });
      assert.equal(ran.length, 50, 'only the missing and the failed runs ran');
      assert.ok(
        ran.every((a) => a >= 25),
        'none of the recorded successful runs ran again',
      );
      const evaluators = [
        asExperimentEvaluator({
          name: 'exact',
          kind: 'CODE',
          evaluate: async ({ output, expected }) => {
            const ok = JSON.stringify(output) === JSON.stringify(expected);
            return { score: ok ? 1 : 0, label: ok ? 'match' : 'mismatch', explanation: null, metadata: {} };
          },
        }),
        asExperimentEvaluator({
          name: 'even',
          kind: 'CODE',
          evaluate: async ({ output }) => {
            const even = (output as { sum: number }).sum % 2 === 0;
            return { score: even ? 1 : 0, label: even ? 'even' : 'odd', explanation: null, metadata: {} };
          },
        }),
      ];
      await resumeEvaluation({ client: phoenix, experimentId: experiment.id, evaluators, logger: silent, setGlobalTracerProvider: false });

      const after = (await send('GET', `/v1/experiments/${experiment.id}`)).data;
      assert.deepEqual([after.successful_run_count, after.failed_run_count, after.missing_run_count], [100, 0, 0]);
      let runs: any[] = [];
      for (let attempt = 0; attempt < 50; attempt++) {
        runs = (await send('GET', `/v1/experiments/${experiment.id}/runs?limit=1000`)).data;
        if (runs.every((run) => run.annotations.length === 2)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(runs.length, 100, 'the failed run was replaced, not duplicated');
      assert.equal(new Set(runs.map((run) => `${run.dataset_example_id}/${run.repetition_number}`)).size, 100);
      for (const run of runs) {
        assert.equal(run.error, null);
        const byName = Object.fromEntries(run.annotations.map((annotation: { name: string }) => [annotation.name, annotation]));
        assert.deepEqual(Object.keys(byName).sort(), ['even', 'exact'], `run ${run.id} has both evaluations once`);
        assert.equal(byName.exact.score, 1);
        assert.equal(byName.even.label, run.output.sum % 2 === 0 ? 'even' : 'odd');
        // The evaluations made by hand were complete, so resumeEvaluation left them alone.
        assert.equal(byName.exact.annotator_kind, byHand.slice(0, 10).includes(run.id) ? 'HUMAN' : 'CODE');
      }
      assert.deepEqual(
        (await send('GET', `/v1/experiments/${experiment.id}/incomplete-evaluations?evaluation_name=exact&evaluation_name=even`)).data,
        [],
      );
    });
  },
  AUTH_ENV,
);
