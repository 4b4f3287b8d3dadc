/**
 * Experiments (docs/experiments.md): creation on a version with a frozen example set, runs
 * (409 for a second successful run, a failed run retried), evaluations as upserts, counts,
 * the incomplete lists, deletion, the 4xx answers for bad input, and who may call.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import { AUTH_ENV, memberAndSystemClients, anonymous, expectStatus, unique, type ApiClient } from '../helpers/auth.js';
import { expectError, getOk, request } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.000Z';

describeEachDialect('experiments API', (server) => {
  const url = () => server().url;
  const post = (path: string, body: unknown) => request(url(), 'POST', path, body);

  /** A dataset of `count` examples and an experiment on it; returns their ids and the example node ids. */
  async function setup(count: number, repetitions = 1) {
    const upload = expectStatus(
      await post('/v1/datasets/upload', {
        action: 'create',
        name: unique('exp-data'),
        inputs: Array.from({ length: count }, (_, i) => ({ i })),
      }),
      200,
    ).body.data;
    const examples = (await getOk(url(), `/v1/datasets/${upload.dataset_id}/examples`)).data.examples as { node_id: string }[];
    const experiment = expectStatus(await post(`/v1/datasets/${upload.dataset_id}/experiments`, { name: 'e', repetitions }), 200).body.data;
    return { datasetId: upload.dataset_id as string, experiment, exampleIds: examples.map((example) => example.node_id) };
  }
  const run = (experimentId: string, exampleId: string, repetition = 1, error: string | null = null) =>
    post(`/v1/experiments/${experimentId}/runs`, {
      dataset_example_id: exampleId,
      output: { ok: error === null },
      repetition_number: repetition,
      start_time: T0,
      end_time: T1,
      error,
    });

  it('freezes the example set at creation: a later append does not change the experiment', async () => {
    const { datasetId, experiment } = await setup(3, 2);
    assert.deepEqual([experiment.example_count, experiment.missing_run_count, experiment.successful_run_count], [3, 6, 0]);
    assert.match(experiment.project_name, /^Experiment-[0-9a-f]{24}$/);
    const dataset = (await getOk(url(), `/v1/datasets/${datasetId}`)).data;
    expectStatus(await post('/v1/datasets/upload', { action: 'append', name: dataset.name, inputs: [{ i: 99 }] }), 200);
    assert.equal((await getOk(url(), `/v1/experiments/${experiment.id}`)).data.example_count, 3);
  });

  it('records runs: a second successful run is 409, a failed one may be retried; counts follow', async () => {
    const { experiment, exampleIds } = await setup(2, 2);
    expectStatus(await run(experiment.id, exampleIds[0]!, 1), 200);
    expectError(await run(experiment.id, exampleIds[0]!, 1), 409, /already has a successful run/);
    expectStatus(await run(experiment.id, exampleIds[1]!, 1, 'boom'), 200);
    let counts = (await getOk(url(), `/v1/experiments/${experiment.id}`)).data;
    assert.deepEqual([counts.successful_run_count, counts.failed_run_count, counts.missing_run_count], [1, 1, 3]);
    expectStatus(await run(experiment.id, exampleIds[1]!, 1), 200);
    counts = (await getOk(url(), `/v1/experiments/${experiment.id}`)).data;
    assert.deepEqual([counts.successful_run_count, counts.failed_run_count, counts.missing_run_count], [2, 0, 2]);

    const incomplete = (await getOk(url(), `/v1/experiments/${experiment.id}/incomplete-runs?limit=1`)) as {
      data: { dataset_example: { node_id: string }; repetition_numbers: number[] }[];
      next_cursor: string | null;
    };
    assert.deepEqual(
      incomplete.data.map((item) => [item.dataset_example.node_id, item.repetition_numbers]),
      [[exampleIds[0], [2]]],
    );
    assert.ok(incomplete.next_cursor, 'a second page');
    const rest = (
      await getOk(url(), `/v1/experiments/${experiment.id}/incomplete-runs?limit=1&cursor=${encodeURIComponent(incomplete.next_cursor!)}`)
    ).data as { dataset_example: { node_id: string }; repetition_numbers: number[] }[];
    assert.deepEqual(
      rest.map((item) => [item.dataset_example.node_id, item.repetition_numbers]),
      [[exampleIds[1], [2]]],
    );
  });

  it('upserts evaluations by run and name, and lists the runs missing one', async () => {
    const { experiment, exampleIds } = await setup(2);
    const first = expectStatus(await run(experiment.id, exampleIds[0]!), 200).body.data.id as string;
    expectStatus(await run(experiment.id, exampleIds[1]!), 200);
    const evaluate = (score: number) =>
      post('/v1/experiment_evaluations', {
        experiment_run_id: first,
        name: 'quality',
        annotator_kind: 'llm',
        start_time: T0,
        end_time: T1,
        result: { label: 'good', score, explanation: 'fine' },
      });
    const one = expectStatus(await evaluate(0.5), 200).body.data.id;
    const again = expectStatus(await evaluate(0.9), 200).body.data.id;
    assert.equal(again, one, 'the same run and name is one evaluation');
    const runs = (await getOk(url(), `/v1/experiments/${experiment.id}/runs`)).data;
    const annotated = runs.find((item: { id: string }) => item.id === first);
    assert.deepEqual(
      annotated.annotations.map((a: { name: string; score: number; annotator_kind: string }) => [a.name, a.score, a.annotator_kind]),
      [['quality', 0.9, 'LLM']],
    );
    const missing = (await getOk(url(), `/v1/experiments/${experiment.id}/incomplete-evaluations?evaluation_name=quality`)).data;
    assert.deepEqual(
      missing.map((item: { dataset_example: { node_id: string }; evaluation_names: string[] }) => [
        item.dataset_example.node_id,
        item.evaluation_names,
      ]),
      [[exampleIds[1], ['quality']]],
    );
  });

  it('answers bad input with a 4xx naming the problem', async () => {
    const { datasetId, experiment, exampleIds } = await setup(1);
    const other = await setup(1);
    expectError(await run(experiment.id, other.exampleIds[0]!), 404, /not an example of this experiment/);
    expectError(await run(experiment.id, 'not-an-id'), 404, /not an example/);
    expectError(await run(experiment.id, exampleIds[0]!, 2), 422, /repetition_number must be from 1 to 1/);
    expectError(await post(`/v1/datasets/${datasetId}/experiments`, { repetitions: 0 }), 422, /repetitions/);
    expectError(await post(`/v1/datasets/${datasetId}/experiments`, { version_id: 'nope' }), 422, /version_id/);
    expectError(await post(`/v1/datasets/${toGlobalId('Dataset', 999999)}/experiments`, {}), 404);
    const evaluation = { name: 'q', annotator_kind: 'CODE', start_time: T0, end_time: T1 };
    expectError(
      await post('/v1/experiment_evaluations', { ...evaluation, experiment_run_id: toGlobalId('ExperimentRun', 999999) }),
      404,
      /run/,
    );
    const runId = expectStatus(await run(experiment.id, exampleIds[0]!), 200).body.data.id;
    expectError(
      await post('/v1/experiment_evaluations', { ...evaluation, experiment_run_id: runId, annotator_kind: 'ROBOT' }),
      422,
      /annotator_kind/,
    );
    expectError(await request(url(), 'GET', `/v1/experiments/${experiment.id}/incomplete-evaluations`), 422, /evaluation_name/);
    expectError(await request(url(), 'GET', `/v1/experiments/${toGlobalId('Experiment', 999999)}`), 404);
    expectStatus(await request(url(), 'DELETE', `/v1/experiments/${experiment.id}`), 204);
    expectError(await request(url(), 'GET', `/v1/experiments/${experiment.id}/runs`), 404);
  });
});

describeEachDialect(
  'experiments API with auth on',
  (server) => {
    const url = () => server().url;
    let member: ApiClient;
    let system: ApiClient;
    before(async () => {
      ({ member, system } = await memberAndSystemClients(url()));
    });

    it('lets a member key and a system key run experiments; refuses calls without a credential', async () => {
      for (const client of [member, system]) {
        const upload = expectStatus(
          await client.post('/v1/datasets/upload', { action: 'create', name: unique('auth'), inputs: [{ q: 1 }] }),
          200,
        ).body.data;
        const experiment = expectStatus(await client.post(`/v1/datasets/${upload.dataset_id}/experiments`, {}), 200).body.data;
        expectStatus(await client.get(`/v1/experiments/${experiment.id}`), 200);
        expectStatus(await client.get(`/v1/datasets/${upload.dataset_id}/experiments`), 200);
        expectStatus(await client.delete(`/v1/experiments/${experiment.id}`), 204);
      }
      const nobody = anonymous(url());
      expectStatus(await nobody.get(`/v1/experiments/${toGlobalId('Experiment', 1)}`), 401);
      expectStatus(await nobody.post('/v1/experiment_evaluations', {}), 401);
    });
  },
  AUTH_ENV,
);
