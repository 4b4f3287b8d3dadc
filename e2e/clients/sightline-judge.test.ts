/**
 * LLM-as-judge (docs/experiments.md): Sightline's classification evaluator judges each run
 * through the server's /v1/chat/completions, against a stand-in of the OpenAI API that reads the
 * judge's prompt; in Sightline's runner and in phoenix-client's runExperiment alike, the
 * evaluations are stored as LLM annotations with the label's score, and every judgement is
 * traced in the playground project.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, it } from 'node:test';
import { createClient as createPhoenixClient } from '@arizeai/phoenix-client';
import { runExperiment as runPhoenixExperiment } from '@arizeai/phoenix-client/experiments';
import { createClassificationEvaluator as createPhoenixClassifier } from '@arizeai/phoenix-evals';
import { createOpenAI } from '@ai-sdk/openai';
import { createClassificationEvaluator, createClient, runExperiment } from '../../packages/client/src/index.js';
import { AUTH_ENV, createActiveUser, expectStatus, sessionOf, setupDefaultAdmin, unique } from '../../packages/server/test/helpers/auth.js';
import { describeEachDialect } from '../../packages/server/test/helpers/server.js';

process.env.PHOENIX_DISCOVER_CONFIG = 'false';
const silent = { debug() {}, info() {}, log() {}, warn() {}, error() {}, table() {} };

/** A stand-in OpenAI that judges "correct" exactly when the answer in the prompt is Paris. */
async function startJudgeStandIn(): Promise<{ url: string; prompts: string[]; close(): Promise<void> }> {
  const prompts: string[] = [];
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const body = JSON.parse(text) as { model: string; stream?: boolean; messages: { role: string; content: string }[] };
      const prompt = body.messages.find((message) => message.role === 'user')?.content ?? '';
      prompts.push(prompt);
      const correct = /Answer: Paris\b/.test(prompt);
      const content = JSON.stringify({
        label: correct ? 'correct' : 'incorrect',
        explanation: correct ? 'names the capital' : 'wrong city',
      });
      if (body.stream) {
        // As OpenAI streams: the content as chunks, then the usage, then [DONE].
        const chunk = (extra: object) =>
          `data: ${JSON.stringify({ id: 'chatcmpl-judge', object: 'chat.completion.chunk', created: 1, model: body.model, ...extra })}\n\n`;
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(
          chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: content.slice(0, 10) }, finish_reason: null }] }),
        );
        response.write(chunk({ choices: [{ index: 0, delta: { content: content.slice(10) }, finish_reason: 'stop' }] }));
        response.write(chunk({ choices: [], usage: { prompt_tokens: 30, completion_tokens: 10, total_tokens: 40 } }));
        response.end('data: [DONE]\n\n');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: 'chatcmpl-judge',
          object: 'chat.completion',
          created: 1,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 30, completion_tokens: 10, total_tokens: 40 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/v1`, prompts, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describeEachDialect(
  'LLM-as-judge evaluators',
  (server) => {
    let standIn: Awaited<ReturnType<typeof startJudgeStandIn>>;
    let key: string;
    before(async () => {
      standIn = await startJudgeStandIn();
      const admin = sessionOf(server().url, await setupDefaultAdmin(server().url));
      key = (await createActiveUser(server().url, admin, 'member')).key;
      expectStatus(
        await admin.request('PUT', '/v1/secrets', {
          body: {
            secrets: [
              { key: 'OPENAI_API_KEY', value: 'sk-judge-test' },
              { key: 'OPENAI_BASE_URL', value: standIn.url },
            ],
          },
        }),
        200,
      );
    });
    after(async () => {
      await standIn?.close();
    });

    const judge = () =>
      createClassificationEvaluator({
        name: 'capital',
        model: 'openai:gpt-judge',
        promptTemplate: 'Question: {{input.question}}\nAnswer: {{output.answer}}\nIs the answer correct?',
        choices: { correct: 1, incorrect: 0 },
        baseUrl: server().url,
        apiKey: key,
      });
    const dataset = async (client: ReturnType<typeof createClient>) => {
      const upload = await client.raw.POST('/v1/datasets/upload', {
        body: {
          action: 'create',
          name: unique('judged'),
          inputs: ['France', 'Italy', 'Spain'].map((country) => ({ question: `Capital of ${country}?` })),
        },
      });
      assert.equal(upload.response.status, 200);
      return upload.data!.data.dataset_id;
    };
    const evaluationsOf = async (client: ReturnType<typeof createClient>, experimentId: string) => {
      const runs = await client.raw.GET('/v1/experiments/{experiment_id}/runs', { params: { path: { experiment_id: experimentId } } });
      return runs.data!.data.flatMap((run) =>
        (run.annotations ?? []).map((annotation) => [
          (run.output as { answer: string }).answer,
          annotation.annotator_kind,
          annotation.label,
          annotation.score,
          annotation.error,
        ]),
      );
    };

    it("judges every run through the server in Sightline's runner; judgements are traced", async () => {
      const client = createClient({ baseUrl: server().url, apiKey: key });
      const datasetId = await dataset(client);
      const result = await runExperiment({
        client,
        dataset: { datasetId },
        task: () => ({ answer: 'Paris' }),
        evaluators: [judge()],
        output: false,
        tracing: false,
      });
      // The stand-in judges by the answer alone: Paris is always "correct".
      const evaluations = (await evaluationsOf(client, result.experiment.id)).sort();
      assert.deepEqual(evaluations, [
        ['Paris', 'LLM', 'correct', 1, null],
        ['Paris', 'LLM', 'correct', 1, null],
        ['Paris', 'LLM', 'correct', 1, null],
      ]);
      assert.ok(
        standIn.prompts.some((prompt) => prompt.includes('Question: Capital of Spain?\nAnswer: Paris')),
        'the template was filled',
      );
      const spans = await client.raw.GET('/v1/projects/{project_identifier}/spans', {
        params: { path: { project_identifier: 'playground' }, query: { limit: 100 } },
      });
      assert.ok(
        (spans.data?.data ?? []).filter((span) => span.attributes['llm.model_name'] === 'gpt-judge').length >= 3,
        'each judgement is traced',
      );
    });

    it("works unchanged in phoenix-client's runExperiment", async () => {
      const client = createClient({ baseUrl: server().url, apiKey: key });
      const datasetId = await dataset(client);
      const phoenix = createPhoenixClient({ options: { baseUrl: server().url, headers: { Authorization: `Bearer ${key}` } } });
      const ran = await runPhoenixExperiment({
        client: phoenix,
        dataset: { datasetId },
        logger: silent,
        task: async (example) => ({ answer: (example.input as { question: string }).question.includes('France') ? 'Paris' : 'Lyon' }),
        evaluators: [judge()],
      });
      let evaluations: unknown[][] = [];
      for (let attempt = 0; attempt < 50 && evaluations.length < 3; attempt++) {
        evaluations = await evaluationsOf(client, ran.id);
        if (evaluations.length < 3) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual(evaluations.sort(), [
        ['Lyon', 'LLM', 'incorrect', 0, null],
        ['Lyon', 'LLM', 'incorrect', 0, null],
        ['Paris', 'LLM', 'correct', 1, null],
      ]);
    });

    it("runs a phoenix-evals classifier on an OpenAI-compatible model (Sightline's route) in both runners", async () => {
      const client = createClient({ baseUrl: server().url, apiKey: key });
      // @ai-sdk/openai's chat model speaks chat completions: pointed at Sightline, the model is provider:model.
      const model = createOpenAI({ baseURL: `${server().url}/v1`, apiKey: key }).chat('openai:gpt-judge');
      const classifier = createPhoenixClassifier({
        name: 'capital',
        model,
        promptTemplate: 'Question: {{input.question}}\nAnswer: {{output.answer}}\nIs the answer correct?',
        choices: { correct: 1, incorrect: 0 },
      });
      const ours = await runExperiment({
        client,
        dataset: { datasetId: await dataset(client) },
        task: (example) => ({ answer: String(example.input.question).includes('Italy') ? 'Rome' : 'Paris' }),
        evaluators: [classifier],
        output: false,
        tracing: false,
      });
      assert.deepEqual((await evaluationsOf(client, ours.experiment.id)).sort(), [
        ['Paris', 'LLM', 'correct', 1, null],
        ['Paris', 'LLM', 'correct', 1, null],
        ['Rome', 'LLM', 'incorrect', 0, null],
      ]);

      const phoenix = createPhoenixClient({ options: { baseUrl: server().url, headers: { Authorization: `Bearer ${key}` } } });
      const theirs = await runPhoenixExperiment({
        client: phoenix,
        dataset: { datasetId: await dataset(client) },
        logger: silent,
        task: async () => ({ answer: 'Paris' }),
        evaluators: [classifier],
      });
      let evaluations: unknown[][] = [];
      for (let attempt = 0; attempt < 50 && evaluations.length < 3; attempt++) {
        evaluations = await evaluationsOf(client, theirs.id);
        if (evaluations.length < 3) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual(
        evaluations.map((row) => row.slice(2, 4)),
        [
          ['correct', 1],
          ['correct', 1],
          ['correct', 1],
        ],
      );
    });
  },
  // The stand-in listens on loopback, which base URLs may name only when the operator allows it.
  { ...AUTH_ENV, SERVICE_ALLOW_PRIVATE_PROVIDER_URLS: 'true' },
);
