/**
 * Kill and resume with Sightline's runner: a child process runs runExperiment with a slow task;
 * the test SIGKILLs it once about half the runs exist, then calls resumeExperiment in-process.
 * The experiment ends complete: exactly examples × repetitions runs, no duplicates, every
 * evaluation present, and the resume did only what was left.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { before, it } from 'node:test';
import { nodeArgsForModule } from '@sightline/common/testing';
import { resumeExperiment, type Experiment, type ExperimentRun } from '@sightline/client';
import { AUTH_ENV, createActiveUser, sessionOf, setupDefaultAdmin, unique } from '../../packages/server/test/helpers/auth.js';
import { describeEachDialect } from '../../packages/server/test/helpers/server.js';
import { getJson, pollUntil, uploadSums } from './fixtures/experiments.js';
import { sumEvaluators, sumTask } from './fixtures/sum-experiment.js';

const EXAMPLES = 20;
const REPETITIONS = 2;

describeEachDialect(
  "Sightline's runner: killed half way, then resumed",
  (server) => {
    let key: string;
    before(async () => {
      const admin = await setupDefaultAdmin(server().url);
      key = (await createActiveUser(server().url, sessionOf(server().url, admin), 'member')).key;
    });

    it('completes the experiment with no duplicates after a SIGKILL', async () => {
      const url = server().url;
      const datasetId = await uploadSums(url, key, unique('killed'), EXAMPLES);
      const runner = spawn(process.execPath, nodeArgsForModule(import.meta.url, 'fixtures/slow-runner'), {
        env: { ...process.env, RUNNER_URL: url, RUNNER_KEY: key, RUNNER_DATASET_ID: datasetId, RUNNER_TASK_DELAY_MS: '100' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      runner.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => runner.once('exit', (_code, signal) => resolve(signal)));
      const total = EXAMPLES * REPETITIONS;

      const half = await pollUntil(
        async () => (await getJson<{ data: Experiment[] }>(url, key, `/v1/datasets/${datasetId}/experiments`)).data[0],
        (experiment) => (experiment?.successful_run_count ?? 0) >= total / 2,
        60_000,
      );
      runner.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL', `the runner was killed, not finished (${stderr})`);
      assert.ok(half, 'the child created the experiment');
      const experimentId = half.id;
      const killed = (await getJson<{ data: Experiment }>(url, key, `/v1/experiments/${experimentId}`)).data;
      assert.ok(
        killed.successful_run_count >= total / 2 && killed.successful_run_count < total,
        `killed half way (${killed.successful_run_count}/${total})`,
      );
      const lacking = (
        await getJson<{ data: { evaluation_names: string[] }[] }>(
          url,
          key,
          `/v1/experiments/${experimentId}/incomplete-evaluations?evaluation_name=exact&evaluation_name=parity&limit=1000`,
        )
      ).data.reduce((count, item) => count + item.evaluation_names.length, 0);

      const resumed = await resumeExperiment({
        baseUrl: url,
        apiKey: key,
        experimentId,
        task: sumTask(0),
        evaluators: sumEvaluators(0),
        concurrency: 4,
        output: false,
      });
      const left = total - killed.successful_run_count;
      assert.equal(resumed.runs.length, left, 'only the runs that were missing');
      assert.ok(
        resumed.runs.every((run) => run.status === 'ok'),
        'none of them was already done',
      );
      assert.equal(resumed.evaluations.length, left * 2 + lacking, 'the new runs’ evaluations and the ones the killed runner left out');
      assert.deepEqual(
        [resumed.experiment.successful_run_count, resumed.experiment.failed_run_count, resumed.experiment.missing_run_count],
        [total, 0, 0],
      );
      assert.deepEqual(resumed.summary.experiment, { id: experimentId, successful: total, failed: 0, missing: 0 });

      const runs = (await getJson<{ data: ExperimentRun[] }>(url, key, `/v1/experiments/${experimentId}/runs?limit=1000`)).data;
      assert.equal(runs.length, total, 'exactly examples × repetitions runs');
      assert.equal(new Set(runs.map((run) => `${run.dataset_example_id}/${run.repetition_number}`)).size, total, 'no duplicates');
      for (const run of runs) {
        const sum = (run.output as { sum: number }).sum;
        const names = (run.annotations ?? []).map((annotation) => annotation.name).sort();
        assert.deepEqual(names, ['exact', 'parity'], `run ${run.id} has each evaluation once`);
        const byName = Object.fromEntries((run.annotations ?? []).map((annotation) => [annotation.name, annotation]));
        assert.deepEqual([byName.exact?.score, byName.parity?.label], [1, sum % 2 === 0 ? 'even' : 'odd']);
      }
      assert.deepEqual(
        (
          await getJson<{ data: unknown[] }>(
            url,
            key,
            `/v1/experiments/${experimentId}/incomplete-evaluations?evaluation_name=exact&evaluation_name=parity`,
          )
        ).data,
        [],
      );
      assert.deepEqual((await getJson<{ data: unknown[] }>(url, key, `/v1/experiments/${experimentId}/incomplete-runs`)).data, []);
    });
  },
  AUTH_ENV,
);
