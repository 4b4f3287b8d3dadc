/**
 * Server-side evaluation of an experiment made by the real `runExperiment` of
 * @arizeai/phoenix-client with no evaluator of its own (docs/evaluators.md, "On a dataset's
 * experiments"): the dataset has a code evaluator and an LLM judge attached (the judge a stand-in
 * speaking OpenAI's wire format, called through the `openai` SDK), and every run ends with both
 * evaluations, made by the server.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@arizeai/phoenix-client';
import { createDataset } from '@arizeai/phoenix-client/datasets';
import { runExperiment } from '@arizeai/phoenix-client/experiments';
import {
  AUTH_ENV,
  bearerClient,
  createActiveUser,
  expectStatus,
  sessionOf,
  setupDefaultAdmin,
  unique,
  type ApiClient,
} from '../../packages/server/test/helpers/auth.js';
import { describeEachDialect } from '../../packages/server/test/helpers/server.js';
import { STANDIN_JUDGE_KEY, startStandinJudge } from '../../packages/server/test/helpers/standin-judge.js';

// A stray .env.phoenix must not redirect the client.
process.env.PHOENIX_DISCOVER_CONFIG = 'false';
const silent = { debug() {}, info() {}, log() {}, warn() {}, error() {}, table() {} };

const judge = await startStandinJudge();
after(() => judge.close());

interface Run {
  dataset_example_id: string;
  annotations: { name: string; label: string | null; annotator_kind: string; error: string | null }[];
}

describeEachDialect(
  'server-side evaluators on an experiment of @arizeai/phoenix-client',
  (server) => {
    let member: ApiClient;
    let key: string;
    before(async () => {
      const adminUser = await setupDefaultAdmin(server().url);
      const admin = sessionOf(server().url, adminUser);
      const secrets = [
        { key: 'OPENAI_API_KEY', value: STANDIN_JUDGE_KEY },
        { key: 'OPENAI_BASE_URL', value: judge.url },
      ];
      expectStatus(await admin.request('PUT', '/v1/secrets', { body: { secrets } }), 200);
      key = (await createActiveUser(server().url, admin, 'member')).key;
      member = bearerClient(server().url, key);
    });

    it('runExperiment with no evaluator ends with both attached evaluations on every run', async () => {
      const callsBefore = judge.requests.length;
      const phoenix = createClient({ options: { baseUrl: server().url, headers: { Authorization: `Bearer ${key}` } } });
      const { datasetId } = await createDataset({
        client: phoenix,
        name: unique('sums'),
        description: 'sums, half of them marked GOOD for the judge',
        examples: Array.from({ length: 12 }, (_, index) => ({
          input: { a: index, b: 2 },
          output: { sum: index + 2 },
          metadata: { mark: index % 2 === 0 ? 'GOOD' : 'plain' },
        })),
      });
      const exact = expectStatus(
        await member.post('/v1/evaluators', { name: unique('exact-sum'), definition: { type: 'exact_match' } }),
        200,
      ).body.data;
      const llm = expectStatus(
        await member.post('/v1/evaluators', {
          name: unique('judge-sum'),
          definition: {
            type: 'llm_judge',
            model: 'openai:judge-model',
            template: 'Sum given: {{output}}\nExpected: {{reference}}\nNotes: {{metadata}}',
            labels: [
              { label: 'correct', score: 1 },
              { label: 'incorrect', score: 0 },
            ],
          },
        }),
        200,
      ).body.data;
      for (const evaluator of [exact, llm]) {
        expectStatus(await member.request('PUT', `/v1/datasets/${datasetId}/evaluators/${evaluator.id}`), 200);
      }

      const ran = await runExperiment({
        client: phoenix,
        dataset: { datasetId },
        experimentName: 'adder',
        concurrency: 4,
        logger: silent,
        // Wrong for a = 3 only.
        task: async (example) => {
          const input = example.input as { a: number; b: number };
          return { sum: input.a === 3 ? 0 : input.a + input.b };
        },
      });

      let runs: Run[] = [];
      for (let attempt = 0; attempt < 300; attempt++) {
        runs = expectStatus(await member.get(`/v1/experiments/${ran.id}/runs`), 200).body.data as Run[];
        if (runs.length === 12 && runs.every((run) => run.annotations.length === 2)) break;
        await sleep(100);
      }
      assert.equal(runs.length, 12);
      const examples = expectStatus(await member.get(`/v1/datasets/${datasetId}/examples`), 200).body.data.examples as {
        id: string;
        input: { a: number };
      }[];
      const aOf = new Map(examples.map((example) => [example.id, example.input.a]));
      for (const run of runs) {
        const a = aOf.get(run.dataset_example_id)!;
        const byName = new Map(run.annotations.map((annotation) => [annotation.name, annotation]));
        assert.deepEqual(
          [byName.get(exact.name)?.annotator_kind, byName.get(exact.name)?.label],
          ['CODE', a === 3 ? 'no_match' : 'match'],
          `example a=${a}`,
        );
        assert.deepEqual(
          [byName.get(llm.name)?.annotator_kind, byName.get(llm.name)?.label, byName.get(llm.name)?.error],
          ['LLM', a % 2 === 0 ? 'correct' : 'incorrect', null],
          `example a=${a}`,
        );
      }
      // One judge call per run: none twice.
      const judged = judge.requests
        .slice(callsBefore)
        .filter((request) => request.messages.some((message) => message.content.startsWith('Sum given:')));
      assert.equal(judged.length, 12);
    });
  },
  { ...AUTH_ENV, SERVICE_ALLOW_PRIVATE_PROVIDER_URLS: 'true' },
);
