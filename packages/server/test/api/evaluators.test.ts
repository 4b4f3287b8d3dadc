/**
 * Evaluators stored on the server (docs/evaluators.md): created, versioned, tried on an item
 * (code evaluators, and an LLM judge through the `openai` SDK against a stand-in speaking
 * OpenAI's wire format), and attached to a dataset, whose experiments' runs the dataset
 * evaluation job then evaluates: each run once per evaluator, a client's own evaluation left
 * alone, a provider failing half the time retried, one failing always recorded as the error.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { TEST_SECRET, expectStatus, unique } from '../helpers/auth.js';
import { expectError, getOk, newSpanId, newTraceId, request, sendSpans } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';
import { STANDIN_JUDGE_KEY, startStandinJudge, type StandinJudge } from '../helpers/standin-judge.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.500Z';

const judge: StandinJudge = await startStandinJudge();
after(() => judge.close());

const JUDGE = {
  type: 'llm_judge',
  model: 'openai:judge-model',
  template: 'Answer:\n{{output}}\n\nExpected:\n{{reference}}',
  labels: [
    { label: 'correct', score: 1 },
    { label: 'incorrect', score: 0 },
  ],
};

interface Annotation {
  name: string;
  label: string | null;
  score: number | null;
  annotator_kind: string;
  error: string | null;
}
interface Run {
  id: string;
  annotations: Annotation[];
}

describeEachDialect(
  'evaluators API',
  (server) => {
    const url = () => server().url;
    const post = (path: string, body: unknown) => request(url(), 'POST', path, body);

    before(async () => {
      judge.failWhen = () => false;
      // The judge's provider, configured as for the playground (stored encrypted: SERVICE_SECRET is set).
      const secrets = [
        { key: 'OPENAI_API_KEY', value: STANDIN_JUDGE_KEY },
        { key: 'OPENAI_BASE_URL', value: judge.url },
      ];
      expectStatus(await request(url(), 'PUT', '/v1/secrets', { secrets }), 200);
    });

    it('creates, versions, lists, renames and deletes evaluators', async () => {
      const name = unique('exact');
      const created = expectStatus(
        await post('/v1/evaluators', { name, description: 'same as the reference', definition: { type: 'exact_match' } }),
        200,
      ).body.data;
      assert.equal(created.kind, 'CODE');
      assert.equal(created.version, 1);
      // Answered with the defaults it runs with.
      assert.deepEqual(created.definition, { type: 'exact_match', case_sensitive: true, trim: true });
      expectError(await post('/v1/evaluators', { name, definition: { type: 'exact_match' } }), 409, /exists already/);
      expectError(await post('/v1/evaluators', { name: unique('x'), definition: { type: 'regex', pattern: '(' } }), 422, /pattern/);
      expectError(await post('/v1/evaluators', { name: unique('x'), definition: { type: 'nonsense' } }), 422);
      expectError(
        await post('/v1/evaluators', { name: unique('x'), definition: { ...JUDGE, template: 'Hi {{user}}' } }),
        422,
        /\{\{user\}\}, which a judge does not have/,
      );

      const patch = (body: unknown) => request(url(), 'PATCH', `/v1/evaluators/${created.id}`, body);
      const changed = expectStatus(await patch({ definition: { type: 'exact_match', case_sensitive: false } }), 200).body.data;
      assert.equal(changed.version, 2);
      assert.equal(expectStatus(await patch({ definition: { type: 'exact_match', case_sensitive: false } }), 200).body.data.version, 2);
      const renamed = expectStatus(await patch({ name: `${name}-renamed`, description: null }), 200).body.data;
      assert.equal(renamed.name, `${name}-renamed`);
      assert.equal(renamed.version, 2, 'a rename is no new version');

      const versions = (await getOk(url(), `/v1/evaluators/${created.id}/versions?limit=1`)) as {
        data: { version: number; definition: unknown }[];
        next_cursor: string | null;
      };
      assert.deepEqual(
        versions.data.map((version) => version.version),
        [2],
      );
      const older = await getOk(url(), `/v1/evaluators/${created.id}/versions?limit=1&cursor=${encodeURIComponent(versions.next_cursor!)}`);
      assert.deepEqual(
        older.data.map((version: { version: number }) => version.version),
        [1],
      );
      assert.deepEqual(older.data[0].definition, { type: 'exact_match', case_sensitive: true, trim: true });

      assert.equal((await getOk(url(), `/v1/evaluators/${encodeURIComponent(`${name}-renamed`)}`)).data.id, created.id, 'found by name');
      const listed = (await getOk(url(), '/v1/evaluators?limit=1000')).data as { name: string }[];
      assert.ok(listed.some((evaluator) => evaluator.name === `${name}-renamed`));
      assert.equal((await request(url(), 'DELETE', `/v1/evaluators/${created.id}`)).status, 204);
      expectError(await request(url(), 'GET', `/v1/evaluators/${created.id}`), 404, /not found/);
    });

    it('tries a code evaluator and an LLM judge on an item, showing the judge its prompt and raw answer', async () => {
      const regex = expectStatus(
        await post('/v1/evaluators/try', {
          definition: { type: 'regex', pattern: '^order #\\d+$' },
          item: { output: 'order #4471' },
        }),
        200,
      ).body.data;
      assert.deepEqual([regex.label, regex.score, regex.prompt, regex.answer], ['match', 1, null, null]);

      const tried = expectStatus(
        await post('/v1/evaluators/try', { definition: JUDGE, item: { output: 'GOOD: Paris', reference: 'Paris' } }),
        200,
      ).body.data;
      assert.deepEqual([tried.label, tried.score], ['correct', 1]);
      assert.equal(tried.prompt[1].content, 'Answer:\nGOOD: Paris\n\nExpected:\nParis', 'the template rendered, unescaped');
      assert.match(tried.answer, /"label":"correct"/);
      const sent = judge.requests.at(-1)!;
      assert.deepEqual(sent.response_format?.json_schema?.schema?.properties?.label?.enum, ['correct', 'incorrect']);

      const wrong = expectStatus(await post('/v1/evaluators/try', { definition: JUDGE, item: { output: 'Lyon', reference: 'Paris' } }), 200)
        .body.data;
      assert.deepEqual([wrong.label, wrong.score], ['incorrect', 0]);

      // A model the provider has no key for is the request's problem, said in a sentence.
      expectError(
        await post('/v1/evaluators/try', { definition: { ...JUDGE, model: 'anthropic:claude' }, item: { output: 'x' } }),
        422,
        /ANTHROPIC_API_KEY/,
      );
    });

    it("judges with a stored prompt's version by tag: moving the tag changes what is sent", async () => {
      const name = unique('judge-prompt');
      const chat = (text: string, format = 'MUSTACHE') => ({
        model_provider: 'OPENAI',
        model_name: 'gpt-4o-mini',
        template_type: 'CHAT',
        template_format: format,
        template: {
          type: 'chat',
          messages: [
            { role: 'system', content: 'Judge strictly.' },
            { role: 'user', content: [{ type: 'text', text }] },
          ],
        },
        invocation_parameters: { type: 'openai', openai: {} },
      });
      const v1 = expectStatus(await post('/v1/prompts', { prompt: { name }, version: chat('First: {{output}} vs {{reference}}') }), 200)
        .body.data;
      expectStatus(await post(`/v1/prompt_versions/${v1.id}/tags`, { name: 'production' }), 204);
      const definition = { ...JUDGE, template: undefined, prompt: { name, tag: 'production' } };
      const evaluator = expectStatus(await post('/v1/evaluators', { name: unique('stored-prompt'), definition }), 200).body.data;
      const tryIt = async () =>
        expectStatus(await post(`/v1/evaluators/${evaluator.id}/try`, { item: { output: 'GOOD: Paris', reference: 'Paris' } }), 200).body
          .data;
      const first = await tryIt();
      assert.equal(first.label, 'correct');
      assert.deepEqual(
        first.prompt.slice(1),
        [
          { role: 'system', content: 'Judge strictly.' },
          { role: 'user', content: 'First: GOOD: Paris vs Paris' },
        ],
        "the prompt's messages, rendered, after the instructions",
      );
      // An f-string version, and the tag moved to it: the same evaluator sends it, with no new evaluator version.
      const v2 = expectStatus(await post('/v1/prompts', { prompt: { name }, version: chat('Second: {output}', 'F_STRING') }), 200).body
        .data;
      expectStatus(await post(`/v1/prompt_versions/${v2.id}/tags`, { name: 'production' }), 204);
      const second = await tryIt();
      assert.equal(second.prompt.at(-1).content, 'Second: GOOD: Paris');
      assert.equal((await getOk(url(), `/v1/evaluators/${evaluator.id}`)).data.version, 1);

      expectError(
        await post('/v1/evaluators', { name: unique('x'), definition: { ...definition, prompt: { name, tag: 'staging' } } }),
        422,
        /has no version tagged "staging"/,
      );
      expectError(
        await post('/v1/evaluators', {
          name: unique('x'),
          definition: { ...definition, prompt: { name: 'no-such-prompt', tag: 'production' } },
        }),
        422,
        /no stored prompt is named "no-such-prompt"/,
      );
      expectError(
        await post('/v1/evaluators', { name: unique('x'), definition: { ...definition, template: 'x {{output}}' } }),
        422,
        /either a template or a stored prompt/,
      );
      const v3 = expectStatus(await post('/v1/prompts', { prompt: { name }, version: chat('Third: {{question}}') }), 200).body.data;
      expectStatus(await post(`/v1/prompt_versions/${v3.id}/tags`, { name: 'draft' }), 204);
      expectError(
        await post('/v1/evaluators', { name: unique('x'), definition: { ...definition, prompt: { name, tag: 'draft' } } }),
        422,
        /\{\{question\}\}, which a judge does not have/,
      );
    });

    it('tries evaluators on a stored span and on a trace by its root span', async () => {
      const traceId = newTraceId();
      const root = newSpanId();
      const child = newSpanId();
      const start = BigInt(Date.now() - 60_000) * 1_000_000n;
      await sendSpans(url(), 'evaluated', [
        {
          traceId,
          spanId: root,
          kind: 'CHAIN',
          start,
          duration: 2_500_000_000n,
          attributes: { 'input.value': 'Where is order #4471?', 'output.value': 'GOOD: it ships today' },
        },
        {
          traceId,
          spanId: child,
          parentSpanId: root,
          kind: 'LLM',
          start: start + 1_000_000n,
          duration: 1_200_000_000n,
          attributes: {
            'llm.model_name': 'gpt-4o-mini',
            'llm.token_count.prompt': 120,
            'llm.token_count.completion': 30,
            'input.value': JSON.stringify({ question: 'order?' }),
            'input.mime_type': 'application/json',
            'output.value': 'It ships today.',
          },
        },
      ]);
      const tryOn = (definition: unknown, item: unknown) => post('/v1/evaluators/try', { definition, item });
      const tokens = expectStatus(await tryOn({ type: 'threshold', metric: 'total_tokens', max: 100 }, { span_id: child }), 200).body.data;
      assert.deepEqual([tokens.label, tokens.score], ['fail', 0]);
      assert.match(tokens.explanation, /150/);
      const latency = expectStatus(await tryOn({ type: 'threshold', metric: 'latency_ms', max: 2000 }, { span_id: child }), 200).body.data;
      assert.equal(latency.label, 'pass', latency.explanation);
      // A JSON input is read as JSON: the judge sees it indented.
      const judged = expectStatus(await tryOn({ ...JUDGE, template: 'Q: {{input}}\nA: {{output}}' }, { span_id: child }), 200).body.data;
      assert.equal(judged.prompt[1].content, 'Q: {\n  "question": "order?"\n}\nA: It ships today.');
      // The trace is read by its root span.
      const trace = expectStatus(await tryOn({ ...JUDGE, template: '{{output}}' }, { trace_id: traceId }), 200).body.data;
      assert.deepEqual([trace.label, trace.prompt[1].content], ['correct', 'GOOD: it ships today']);
      expectError(await tryOn({ type: 'not_empty' }, { span_id: 'ab'.repeat(8) }), 404, /span "abababababababab" not found/);
      expectError(await tryOn({ type: 'not_empty' }, { span_id: 'not-a-span' }), 422);
    });

    it('offers ready judge templates', async () => {
      const templates = (await getOk(url(), '/v1/evaluator_templates')).data as { id: string; definition: { labels: unknown[] } }[];
      assert.deepEqual(
        templates.map((template) => template.id),
        ['correctness', 'hallucination', 'relevance', 'toxicity', 'goal'],
      );
      // Each is a valid judge once given a model.
      for (const template of templates) {
        expectStatus(
          await post('/v1/evaluators', { name: unique(template.id), definition: { ...template.definition, model: JUDGE.model } }),
          200,
        );
      }
    });

    it("evaluates every run of a dataset's experiments with its attached evaluators, once each", async () => {
      const upload = expectStatus(
        await post('/v1/datasets/upload', {
          action: 'create',
          name: unique('judged'),
          inputs: Array.from({ length: 6 }, (_, i) => ({ question: `q${i}` })),
          outputs: Array.from({ length: 6 }, (_, i) => ({ answer: `a${i}` })),
        }),
        200,
      ).body.data;
      const datasetId = upload.dataset_id as string;
      const exact = expectStatus(await post('/v1/evaluators', { name: unique('exact'), definition: { type: 'exact_match' } }), 200).body
        .data;
      const llm = expectStatus(await post('/v1/evaluators', { name: unique('judge'), definition: JUDGE }), 200).body.data;
      for (const evaluator of [exact, llm]) {
        expectStatus(await request(url(), 'PUT', `/v1/datasets/${datasetId}/evaluators/${evaluator.id}`), 200);
      }
      expectStatus(await request(url(), 'PUT', `/v1/datasets/${datasetId}/evaluators/${exact.id}`), 200);
      const attached = (await getOk(url(), `/v1/datasets/${datasetId}/evaluators`)).data as { id: string }[];
      assert.deepEqual(attached.map((evaluator) => evaluator.id).sort(), [exact.id, llm.id].sort());

      const examples = (await getOk(url(), `/v1/datasets/${datasetId}/examples`)).data.examples as { id: string; output: unknown }[];
      // Tried on an example first: its output is the reference.
      const onExample = (output: unknown) =>
        post('/v1/evaluators/try', {
          definition: { type: 'exact_match' },
          item: { dataset_id: datasetId, example_id: examples[0]!.id, output },
        });
      assert.equal(expectStatus(await onExample(examples[0]!.output), 200).body.data.label, 'match');
      assert.equal(expectStatus(await onExample({ answer: 'other' }), 200).body.data.label, 'no_match');
      const experiment = expectStatus(await post(`/v1/datasets/${datasetId}/experiments`, { name: 'auto' }), 200).body.data;
      // Half the answers are right (the reference itself, and GOOD for the judge), one run fails.
      const runIds: string[] = [];
      for (const [index, example] of examples.entries()) {
        const good = index % 2 === 0;
        const answer = expectStatus(
          await post(`/v1/experiments/${experiment.id}/runs`, {
            dataset_example_id: example.id,
            output: good ? example.output : { answer: 'wrong' },
            repetition_number: 1,
            start_time: T0,
            end_time: T1,
            error: index === 5 ? 'the task failed' : null,
          }),
          200,
        );
        runIds.push(answer.body.data.id);
      }
      // The client evaluated one run itself under the exact evaluator's name: that one stays.
      expectStatus(
        await post('/v1/experiment_evaluations', {
          experiment_run_id: runIds[1],
          name: exact.name,
          annotator_kind: 'HUMAN',
          start_time: T0,
          end_time: T1,
          result: { label: 'human says so', score: 0.5 },
        }),
        200,
      );
      const successful = runIds.slice(0, 5);
      const runs = await waitForEvaluations(url(), experiment.id, 5, 2);
      for (const [index, runId] of successful.entries()) {
        const run = runs.get(runId)!;
        const byName = new Map(run.annotations.map((annotation) => [annotation.name, annotation]));
        assert.equal(run.annotations.length, 2, `run ${index} has one evaluation of each evaluator`);
        const code = byName.get(exact.name)!;
        if (index === 1) {
          assert.deepEqual([code.annotator_kind, code.label], ['HUMAN', 'human says so'], "the client's evaluation stays");
        } else {
          assert.equal(code.annotator_kind, 'CODE');
          assert.equal(code.label, index % 2 === 0 ? 'match' : 'no_match');
        }
        const judged = byName.get(llm.name)!;
        assert.equal(judged.annotator_kind, 'LLM');
        assert.equal(judged.label, 'incorrect', 'no output says GOOD');
        assert.equal(judged.error, null);
      }
      // Each evaluation names the evaluator version that made it; a judge's keeps its prompt and answer.
      const records = (await getOk(url(), `/v1/experiments/${experiment.id}/json`)) as {
        annotations: { name: string; annotator_kind: string; metadata: Record<string, unknown> }[];
      }[];
      const made = records.flatMap((record) => record.annotations).filter((annotation) => annotation.annotator_kind !== 'HUMAN');
      assert.equal(made.length, 9, 'five runs by two evaluators, less the one the client evaluated');
      for (const annotation of made) {
        const evaluator = annotation.name === exact.name ? exact : llm;
        assert.deepEqual(annotation.metadata.evaluator, { id: fromId(evaluator.id), name: evaluator.name, version: 1 });
        if (evaluator === llm) {
          const audit = annotation.metadata.audit as { answer: string; messages: { content: string }[] };
          assert.match(audit.answer, /"label":"incorrect"/, 'the raw answer is kept');
          assert.match(audit.messages[1]!.content, /^Answer:\n/);
        }
      }
      assert.deepEqual(runs.get(runIds[5]!)?.annotations, [], 'a failed run is not evaluated');
    });

    it('retries a provider failing half the time, and records the error of one failing always', async () => {
      const upload = expectStatus(
        await post('/v1/datasets/upload', {
          action: 'create',
          name: unique('flaky'),
          inputs: Array.from({ length: 4 }, (_, i) => ({ i })),
        }),
        200,
      ).body.data;
      const llm = expectStatus(await post('/v1/evaluators', { name: unique('flaky-judge'), definition: JUDGE }), 200).body.data;
      expectStatus(await request(url(), 'PUT', `/v1/datasets/${upload.dataset_id}/evaluators/${llm.id}`), 200);
      const examples = (await getOk(url(), `/v1/datasets/${upload.dataset_id}/examples`)).data.examples as { id: string }[];
      const experiment = expectStatus(await post(`/v1/datasets/${upload.dataset_id}/experiments`, { name: 'flaky' }), 200).body.data;
      judge.failWhen = (n: number) => n % 2 === 0;
      const before = judge.requests.length;
      try {
        for (const example of examples) {
          expectStatus(
            await post(`/v1/experiments/${experiment.id}/runs`, {
              dataset_example_id: example.id,
              output: 'GOOD',
              repetition_number: 1,
              start_time: T0,
              end_time: T1,
            }),
            200,
          );
        }
        // Every run ends evaluated once: judged, or listed with the provider's failure after three attempts.
        const runs = await waitForEvaluations(url(), experiment.id, 4, 1);
        let judged = 0;
        for (const run of runs.values()) {
          assert.equal(run.annotations.length, 1);
          const [evaluation] = run.annotations;
          if (evaluation!.error === null) {
            assert.equal(evaluation!.label, 'correct');
            judged++;
          } else assert.match(evaluation!.error, /500/);
        }
        assert.ok(judged >= 2, `most runs are judged after a retry (${judged} of 4)`);
        assert.ok(judge.requests.length - before > 4, 'failed calls were retried');

        judge.failWhen = () => true;
        const last = expectStatus(await post('/v1/datasets/upload', { action: 'create', name: unique('down'), inputs: [{ i: 0 }] }), 200)
          .body.data;
        expectStatus(await request(url(), 'PUT', `/v1/datasets/${last.dataset_id}/evaluators/${llm.id}`), 200);
        const [example] = (await getOk(url(), `/v1/datasets/${last.dataset_id}/examples`)).data.examples as { id: string }[];
        const down = expectStatus(await post(`/v1/datasets/${last.dataset_id}/experiments`, { name: 'down' }), 200).body.data;
        expectStatus(
          await post(`/v1/experiments/${down.id}/runs`, {
            dataset_example_id: example!.id,
            output: 'GOOD',
            repetition_number: 1,
            start_time: T0,
            end_time: T1,
          }),
          200,
        );
        const [failed] = (await waitForEvaluations(url(), down.id, 1, 1)).values();
        assert.equal(failed!.annotations[0]!.label, null);
        assert.match(String(failed!.annotations[0]!.error), /500/, 'the provider status, for the list of failures');
      } finally {
        judge.failWhen = () => false;
      }
    });
  },
  { SERVICE_SECRET: TEST_SECRET, SERVICE_ALLOW_PRIVATE_PROVIDER_URLS: 'true' },
);

/** The row id in an opaque id. */
function fromId(globalId: string): number {
  return Number(Buffer.from(globalId, 'base64').toString('utf8').split(':')[1]);
}

/** Polls the experiment's runs until `count` of them have `perRun` evaluations each (the job runs every second). */
async function waitForEvaluations(url: string, experimentId: string, count: number, perRun: number): Promise<Map<string, Run>> {
  let runs: Run[] = [];
  for (let attempt = 0; attempt < 300; attempt++) {
    runs = (await getOk(url, `/v1/experiments/${experimentId}/runs`)).data as Run[];
    if (runs.filter((run) => run.annotations.length >= perRun).length >= count) return new Map(runs.map((run) => [run.id, run]));
    await sleep(100);
  }
  assert.fail(`the runs were not evaluated in 30 s: ${JSON.stringify(runs).slice(0, 1500)}`);
}
