/**
 * The dataset evaluation job evaluates each run exactly once (docs/evaluators.md, "On a
 * dataset's experiments"): a server stopped while its judge calls are in flight and a new one
 * started on the same database end with every run evaluated once; two replicas on one
 * PostgreSQL database judge each run once between them. The judge is a stand-in speaking
 * OpenAI's wire format, slow enough that a stop lands mid-batch.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningServer } from '../../src/server.js';
import { TEST_SECRET, unique } from '../helpers/auth.js';
import { createTestDatabase, DIALECTS } from '../helpers/databases.js';
import { getOk, request, type JsonResponse } from '../helpers/query.js';
import { startServerOn } from '../helpers/server.js';
import { STANDIN_JUDGE_KEY, startStandinJudge } from '../helpers/standin-judge.js';

const judge = await startStandinJudge({ latencyMs: 250 });
after(() => judge.close());

const ENV = { SERVICE_SECRET: TEST_SECRET, SERVICE_ALLOW_PRIVATE_PROVIDER_URLS: 'true', SERVICE_LOG_LEVEL: 'fatal' };
const T0 = '2026-01-01T00:00:00.000Z';

interface Run {
  id: string;
  annotations: { name: string; label: string | null; error: string | null }[];
}

/** The answer's data, asserting a 200. */
function ok(response: JsonResponse) {
  assert.equal(response.status, 200, response.text);
  return response.body?.data;
}

/** A dataset of `count` examples with a judge attached, an experiment on it and one run per example; returns the experiment id and the judge's name. */
async function experimentWithRuns(url: string, count: number): Promise<{ experimentId: string; judgeName: string }> {
  const post = async (path: string, body?: unknown) => ok(await request(url, 'POST', path, body));
  ok(
    await request(url, 'PUT', '/v1/secrets', {
      secrets: [
        { key: 'OPENAI_API_KEY', value: STANDIN_JUDGE_KEY },
        { key: 'OPENAI_BASE_URL', value: judge.url },
      ],
    }),
  );
  const upload = await post('/v1/datasets/upload', {
    action: 'create',
    name: unique('once'),
    inputs: Array.from({ length: count }, (_, i) => ({ i })),
    outputs: Array.from({ length: count }, (_, i) => ({ i })),
  });
  const judgeName = unique('once-judge');
  const evaluator = await post('/v1/evaluators', {
    name: judgeName,
    definition: {
      type: 'llm_judge',
      model: 'openai:judge-model',
      template: 'Once: {{output}}',
      labels: [
        { label: 'correct', score: 1 },
        { label: 'incorrect', score: 0 },
      ],
    },
  });
  ok(await request(url, 'PUT', `/v1/datasets/${upload.dataset_id}/evaluators/${evaluator.id}`));
  const examples = (await getOk(url, `/v1/datasets/${upload.dataset_id}/examples`)).data.examples as { id: string }[];
  const experiment = await post(`/v1/datasets/${upload.dataset_id}/experiments`, { name: 'once' });
  for (const example of examples) {
    await post(`/v1/experiments/${experiment.id}/runs`, {
      dataset_example_id: example.id,
      output: 'GOOD',
      repetition_number: 1,
      start_time: T0,
      end_time: T0,
    });
  }
  return { experimentId: experiment.id, judgeName };
}

const runsOf = async (url: string, experimentId: string) => (await getOk(url, `/v1/experiments/${experimentId}/runs`)).data as Run[];
/** Judge calls of this file's evaluators since the `from`th request. */
const judgeCallsSince = (from: number) =>
  judge.requests.slice(from).filter((call) => call.messages.some((message) => message.content.startsWith('Once:'))).length;

/** Waits until `check` holds for the experiment's runs (the job runs every second). */
async function waitFor(url: string, experimentId: string, check: (runs: Run[]) => boolean, what: string): Promise<Run[]> {
  let runs: Run[] = [];
  for (let attempt = 0; attempt < 600; attempt++) {
    runs = await runsOf(url, experimentId);
    if (check(runs)) return runs;
    await sleep(100);
  }
  assert.fail(`${what} did not happen in 60 s: ${JSON.stringify(runs.map((run) => run.annotations.length))}`);
}

const assertEachOnce = (runs: Run[], count: number, judgeName: string) => {
  assert.equal(runs.length, count);
  for (const run of runs) {
    assert.deepEqual(
      run.annotations.map((annotation) => [annotation.name, annotation.label, annotation.error]),
      [[judgeName, 'correct', null]],
      `run ${run.id} is evaluated once`,
    );
  }
};

for (const dialect of DIALECTS) {
  describe(`dataset evaluations, exactly once [${dialect}]`, () => {
    it('a server stopped mid-batch and another started on its database end with every run evaluated once', async () => {
      const database = await createTestDatabase(dialect);
      let second: RunningServer | undefined;
      try {
        const first = await startServerOn(database, ENV);
        const count = 24;
        const callsBefore = judge.requests.length;
        const { experimentId, judgeName } = await experimentWithRuns(first.url, count);
        // Some evaluations written, not all: the judge answers in 250 ms, four at a time.
        await waitFor(
          first.url,
          experimentId,
          (runs) => runs.filter((run) => run.annotations.length > 0).length >= 4,
          'a first evaluation',
        );
        await first.close();
        const partial = judgeCallsSince(callsBefore);
        assert.ok(partial < count, `stopped mid-batch (${partial} of ${count} judged)`);

        second = await startServerOn(database, ENV);
        const runs = await waitFor(second.url, experimentId, (all) => all.every((run) => run.annotations.length > 0), 'every evaluation');
        assertEachOnce(runs, count, judgeName);
        // Calls in flight at the stop were made again (at most four); no run was judged twice otherwise.
        const calls = judgeCallsSince(callsBefore);
        assert.ok(calls >= count && calls <= count + 4, `${calls} judge calls for ${count} runs`);
      } finally {
        await second?.close();
        await database.drop();
      }
    });

    if (dialect === 'postgres') {
      it('two replicas on one database judge each run once between them', async () => {
        const database = await createTestDatabase(dialect);
        const replicas: RunningServer[] = [];
        try {
          replicas.push(await startServerOn(database, ENV), await startServerOn(database, ENV));
          const count = 30;
          const callsBefore = judge.requests.length;
          const { experimentId, judgeName } = await experimentWithRuns(replicas[0]!.url, count);
          const runs = await waitFor(
            replicas[1]!.url,
            experimentId,
            (all) => all.every((run) => run.annotations.length > 0),
            'every evaluation',
          );
          assertEachOnce(runs, count, judgeName);
          assert.equal(judgeCallsSince(callsBefore), count, 'one judge call per run, across both replicas');
        } finally {
          for (const replica of replicas) await replica.close();
          await database.drop();
        }
      });
    }
  });
}
