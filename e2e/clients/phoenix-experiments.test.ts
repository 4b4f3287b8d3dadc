/**
 * The real `runExperiment` of @arizeai/phoenix-client (6.x) against Sightline, with a member's
 * user key: a 10-example dataset, a task, two evaluators and 2 repetitions. The client creates
 * the experiment, traces every task run to the experiment's project over OTLP (its own
 * register()), records runs and evaluations; the test then checks counts, runs, evaluations
 * and the task spans through the API.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createClient } from '@arizeai/phoenix-client';
import { createDataset } from '@arizeai/phoenix-client/datasets';
import { asExperimentEvaluator, runExperiment } from '@arizeai/phoenix-client/experiments';
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

    it('runs 10 examples × 2 repetitions with two evaluators; runs, evaluations, counts and task traces are stored', async () => {
      const { datasetId } = await createDataset({
        client: phoenix,
        name: unique('arithmetic'),
        description: 'sums',
        examples: Array.from({ length: 10 }, (_, index) => ({ input: { a: index, b: 2 }, output: { sum: index + 2 } })),
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
        [10, 2, 18, 2, 2],
        'example 7 fails in both repetitions',
      );

      // Evaluations are posted without waiting (best effort): wait until all 18 × 2 have arrived.
      let runs: any[] = [];
      for (let attempt = 0; attempt < 50; attempt++) {
        runs = (await get(`/v1/experiments/${experimentId}/runs?limit=100`)).data;
        const evaluated = runs.filter((run) => run.error === null).every((run) => run.annotations.length === 2);
        if (evaluated) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(runs.length, 20);
      const ok = runs.filter((run) => run.error === null);
      assert.equal(ok.length, 18);
      for (const run of ok) {
        const byName = Object.fromEntries(run.annotations.map((annotation: { name: string }) => [annotation.name, annotation]));
        assert.deepEqual([byName.exact?.score, byName.exact?.label], [1, 'match']);
        assert.equal(byName.even?.label, run.output.sum % 2 === 0 ? 'even' : 'odd');
      }
      assert.deepEqual([...new Set(runs.filter((run) => run.error !== null).map((run) => run.error))], ['seven is unlucky']);

      // Every run names its trace, and the task spans are in the experiment's project.
      const project = encodeURIComponent(experiment.project_name);
      let traced = 0;
      for (let attempt = 0; attempt < 50 && traced < 20; attempt++) {
        traced = (await get(`/v1/projects/${project}/traces?limit=100`)).data.length;
        if (traced < 20) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(traced, 20, 'one trace per task run in the experiment project');
      const traceIds = new Set(
        (await get(`/v1/projects/${project}/traces?limit=100`)).data.map((trace: { trace_id: string }) => trace.trace_id),
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
  },
  AUTH_ENV,
);
