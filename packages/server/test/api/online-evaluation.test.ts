/**
 * Online evaluation rules (docs/online-evaluation.md), on both dialects: what a rule may say
 * (422 sentences), spans, traces and idle sessions evaluated by code evaluators and by a judge
 * (a stand-in speaking OpenAI's wire format through the playground's provider path), sampling by
 * a hash of the item id, backfill, the rule's figures and its failures when the judge fails.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { inSample } from '../../src/evaluators/sampling.js';
import { TEST_SECRET, unique } from '../helpers/auth.js';
import { expectError, getOk, newTraceId, request, sendSpans, type JsonResponse, type QuerySpan } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';
import { STANDIN_JUDGE_KEY, startStandinJudge } from '../helpers/standin-judge.js';

const judge = await startStandinJudge();
after(() => judge.close());
/** A judge that takes 8 s to answer: room for the quick evaluation below, even on a loaded machine. */
const slowJudge = await startStandinJudge({ latencyMs: 8000 });
after(() => slowJudge.close());

const ENV = { SERVICE_SECRET: TEST_SECRET, SERVICE_ALLOW_PRIVATE_PROVIDER_URLS: 'true', SERVICE_ONLINE_EVAL_RETRY_DELAY_MS: '100' };

const ok = (response: JsonResponse) => {
  assert.equal(response.status, 200, response.text);
  return response.body?.data;
};

const nowNanos = () => BigInt(Date.now()) * 1_000_000n;

/** Polls `read` every 100 ms until `done` holds (the job runs every second). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, seconds = 30): Promise<T> {
  let value = await read();
  for (let attempt = 0; attempt < seconds * 10 && !done(value); attempt++) {
    await sleep(100);
    value = await read();
  }
  assert.ok(done(value), `${what} did not happen in ${seconds} s: ${JSON.stringify(value).slice(0, 500)}`);
  return value;
}

/** An LLM span (its own trace's root unless `parent` is given). */
const llmSpan = (input: string, output: string, extra: Partial<QuerySpan> = {}): QuerySpan => ({
  traceId: newTraceId(),
  start: nowNanos() - 5_000_000_000n,
  kind: 'LLM',
  attributes: { 'input.value': input, 'output.value': output, 'llm.model_name': 'gpt-4o' },
  ...extra,
});

const withModel = (span: QuerySpan, model: string): QuerySpan => ({ ...span, attributes: { ...span.attributes, 'llm.model_name': model } });

describeEachDialect(
  'online evaluation rules',
  (current) => {
    const url = () => current().url;
    const post = async (path: string, body?: unknown) => ok(await request(url(), 'POST', path, body));

    const codeEvaluator = async (definition: Record<string, unknown>) =>
      post('/v1/evaluators', { name: unique('code'), definition }) as Promise<{ id: string; name: string }>;
    const judgeEvaluator = async () => {
      ok(
        await request(url(), 'PUT', '/v1/secrets', {
          secrets: [
            { key: 'OPENAI_API_KEY', value: STANDIN_JUDGE_KEY },
            { key: 'OPENAI_BASE_URL', value: judge.url },
          ],
        }),
      );
      return post('/v1/evaluators', {
        name: unique('judge'),
        definition: {
          type: 'llm_judge',
          model: 'openai:judge-model',
          template: 'Online: {{input}} -> {{output}} ({{attributes.llm.model_name}})',
          labels: [
            { label: 'good', score: 1 },
            { label: 'bad', score: 0 },
          ],
        },
      }) as Promise<{ id: string; name: string }>;
    };
    /** A project with one span, so that it exists. */
    const project = async () => {
      const name = unique('online');
      await sendSpans(url(), name, [llmSpan('seed', 'seed')], { 'x-project-name': name });
      return name;
    };
    const spanAnnotations = async (projectName: string, spanIds: string[]) =>
      (await getOk(url(), `/v1/projects/${projectName}/span_annotations?${spanIds.map((id) => `span_ids=${id}`).join('&')}&limit=1000`))
        .data as {
        span_id: string;
        name: string;
        result: { label: string | null; score: number | null };
        annotator_kind: string;
        identifier: string;
        metadata: any;
      }[];
    const stats = async (ruleId: string) => ok(await request(url(), 'GET', `/v1/online_eval_rules/${ruleId}/stats`));

    it('refuses a rule it cannot run with a sentence naming what is wrong', async () => {
      const name = await project();
      const evaluator = await codeEvaluator({ type: 'not_empty' });
      const rules = `/v1/projects/${name}/online_eval_rules`;
      const base = { name: 'r', target: 'span', evaluators: [evaluator.id] };
      expectError(await request(url(), 'POST', rules, { ...base, filter: "span_kind == 'LLM' and (" }), 422, /filter/);
      expectError(
        await request(url(), 'POST', rules, { ...base, target: 'session', filter: "span_kind == 'LLM'" }),
        422,
        /session rule takes no filter/,
      );
      expectError(await request(url(), 'POST', rules, { ...base, sampling_rate: 0 }), 422, /sampling_rate/);
      expectError(
        await request(url(), 'POST', rules, { ...base, evaluators: ['no-such-evaluator'] }),
        422,
        /evaluator "no-such-evaluator" not found/,
      );
      expectError(await request(url(), 'POST', rules, { ...base, evaluators: [] }), 422, /evaluators/);
      expectError(await request(url(), 'POST', rules, { ...base, session_idle_minutes: 5 }), 422, /session rules only/);
      expectError(await request(url(), 'POST', '/v1/projects/no-such-project/online_eval_rules', base), 404, /project/);
      ok(await request(url(), 'POST', rules, base));
      expectError(await request(url(), 'POST', rules, base), 409, /named "r" already/);
      expectError(await request(url(), 'GET', '/v1/online_eval_rules/not-a-rule/stats'), 404, /not found/);
      const [rule] = (await getOk(url(), rules)).data;
      expectError(await request(url(), 'PATCH', `/v1/online_eval_rules/${rule.id}`, { target: 'trace' }), 422, /target cannot change/);
      expectError(await request(url(), 'POST', `/v1/online_eval_rules/${rule.id}/backfill`, { hours: 1000 }), 422, /hours/);
    });

    it('evaluates the spans its filter matches, once each, with annotations naming the rule and evaluator version', async () => {
      const name = await project();
      const evaluator = await codeEvaluator({ type: 'contains', values: ['Paris'] });
      const rule = await post(`/v1/projects/${name}/online_eval_rules`, {
        name: 'capitals',
        target: 'span',
        filter: "span_kind == 'LLM'",
        evaluators: [evaluator.name],
      });
      assert.equal(rule.sampling_rate, 1);
      const spans = await sendSpans(
        url(),
        name,
        [llmSpan('capital of France?', 'Paris'), llmSpan('capital of Italy?', 'Rome'), { ...llmSpan('a chain', 'Paris'), kind: 'CHAIN' }],
        { 'x-project-name': name },
      );
      const ids = spans.map((span) => span.spanId!);
      const annotations = await eventually(
        () => spanAnnotations(name, ids),
        (list) => list.length >= 2,
        'two evaluations',
      );
      await sleep(1500);
      const settled = await spanAnnotations(name, ids);
      assert.equal(settled.length, 2, 'the CHAIN span is not evaluated, nothing twice');
      const bySpan = new Map(settled.map((annotation) => [annotation.span_id, annotation]));
      assert.equal(bySpan.get(ids[0]!)?.result.label, 'contains');
      assert.equal(bySpan.get(ids[1]!)?.result.score, 0);
      const first = annotations.find((annotation) => annotation.span_id === ids[0])!;
      assert.equal(first.name, evaluator.name);
      assert.equal(first.annotator_kind, 'CODE');
      assert.equal(first.metadata.rule.name, 'capitals');
      assert.equal(first.metadata.evaluator.version, 1);
      const figures = await stats(rule.id);
      assert.equal(figures.evaluated, 2);
      assert.equal(figures.pending, 0);
      assert.equal(figures.failed, 0);
      assert.ok(figures.lag_p99_seconds !== null && figures.lag_p99_seconds < 10, JSON.stringify(figures));
    });

    it('samples by a hash of the span id: the same spans whatever the order they come in', async () => {
      const name = await project();
      const evaluator = await codeEvaluator({ type: 'not_empty' });
      await post(`/v1/projects/${name}/online_eval_rules`, {
        name: 'half',
        target: 'span',
        sampling_rate: 0.5,
        evaluators: [evaluator.id],
      });
      const spans = await sendSpans(
        url(),
        name,
        Array.from({ length: 40 }, (_, i) => llmSpan(`q${i}`, `a${i}`)),
        { 'x-project-name': name },
      );
      const ids = spans.map((span) => span.spanId!);
      const expected = ids.filter((id) => inSample(id, 0.5)).sort();
      assert.ok(expected.length > 5 && expected.length < 35, `a sample of ${expected.length} of 40`);
      const annotations = await eventually(
        () => spanAnnotations(name, ids),
        (list) => list.length >= expected.length,
        'the sample',
      );
      assert.deepEqual(annotations.map((annotation) => annotation.span_id).sort(), expected);
    });

    it('judges traces by their root span with a stand-in provider, keeping the prompt, the answer and the cost', async () => {
      const name = await project();
      const evaluator = await judgeEvaluator();
      ok(
        await request(url(), 'POST', '/v1/model_prices', {
          name: unique('judge-price'),
          name_pattern: '^judge-model$',
          provider: 'openai',
          input_per_million: 1,
          output_per_million: 2,
        }),
      );
      const rule = await post(`/v1/projects/${name}/online_eval_rules`, { name: 'judged', target: 'trace', evaluators: [evaluator.id] });
      const good = llmSpan('GOOD question', 'GOOD answer', { kind: 'CHAIN' });
      const bad = llmSpan('question', 'answer', { kind: 'CHAIN' });
      // A child span of the good trace is not judged: a trace rule reads root spans.
      await sendSpans(url(), name, [good, { ...llmSpan('child', 'child'), traceId: good.traceId, parentSpanId: '00000000000000aa' }, bad], {
        'x-project-name': name,
      });
      const traceIds = [good.traceId, bad.traceId];
      const read = async () =>
        (await getOk(url(), `/v1/projects/${name}/trace_annotations?${traceIds.map((id) => `trace_ids=${id}`).join('&')}`)).data as {
          trace_id: string;
          result: { label: string };
          annotator_kind: string;
          metadata: any;
        }[];
      const annotations = await eventually(read, (list) => list.length === 2, 'both traces judged');
      const byTrace = new Map(annotations.map((annotation) => [annotation.trace_id, annotation]));
      assert.equal(byTrace.get(good.traceId)?.result.label, 'good');
      assert.equal(byTrace.get(bad.traceId)?.result.label, 'bad');
      const audit = byTrace.get(good.traceId)!.metadata.audit;
      assert.equal(byTrace.get(good.traceId)!.annotator_kind, 'LLM');
      assert.match(audit.messages.at(-1).content, /^Online: GOOD question -> GOOD answer \(gpt-4o\)$/);
      assert.match(audit.answer, /"label":"good"/);
      // 50 prompt tokens at $1/M and 12 completion tokens at $2/M, each call.
      const figures = await eventually(
        () => stats(rule.id),
        (value) => value.evaluated === 2,
        'the figures',
      );
      assert.ok(Math.abs(figures.cost_total_usd - (2 * (50 * 1 + 12 * 2)) / 1e6) < 1e-12, JSON.stringify(figures));
      assert.equal(figures.cost_today_usd, figures.cost_total_usd);
    });

    it('evaluates a new span while a slow judge call is still in flight', async () => {
      const name = await project();
      ok(
        await request(url(), 'PUT', '/v1/secrets', {
          secrets: [
            { key: 'OPENAI_API_KEY', value: STANDIN_JUDGE_KEY },
            { key: 'OPENAI_BASE_URL', value: slowJudge.url },
          ],
        }),
      );
      const slow = await post('/v1/evaluators', {
        name: unique('slow-judge'),
        definition: {
          type: 'llm_judge',
          model: 'openai:judge-model',
          template: 'Slow: {{input}}',
          labels: [
            { label: 'good', score: 1 },
            { label: 'bad', score: 0 },
          ],
        },
      });
      const quick = await codeEvaluator({ type: 'contains', values: ['Paris'] });
      await post(`/v1/projects/${name}/online_eval_rules`, {
        name: 'slow',
        target: 'span',
        filter: "llm.model_name == 'slow-model'",
        evaluators: [slow.id],
      });
      await post(`/v1/projects/${name}/online_eval_rules`, {
        name: 'quick',
        target: 'span',
        filter: "llm.model_name == 'quick-model'",
        evaluators: [quick.id],
      });
      const calls = slowJudge.requests.length;
      const [first] = await sendSpans(url(), name, [withModel(llmSpan('Slow question', 'answer'), 'slow-model')], {
        'x-project-name': name,
      });
      await eventually(
        async () => slowJudge.requests.length,
        (count) => count > calls,
        'the slow judge call',
      );
      const [second] = await sendSpans(url(), name, [withModel(llmSpan('capital of France?', 'Paris'), 'quick-model')], {
        'x-project-name': name,
      });
      // Read, sampled and evaluated while the first span's judge call (8 s) has not answered: the
      // job reads new spans every half second whatever its evaluations are doing.
      const quickAnnotations = await eventually(
        () => spanAnnotations(name, [second!.spanId!]),
        (list) => list.length === 1,
        'the quick evaluation',
        5,
      );
      assert.equal(quickAnnotations[0]!.result.label, 'contains');
      assert.deepEqual(await spanAnnotations(name, [first!.spanId!]), [], 'the slow judge has not answered yet');
      const slowAnnotations = await eventually(
        () => spanAnnotations(name, [first!.spanId!]),
        (list) => list.length === 1,
        'the slow evaluation',
      );
      assert.equal(slowAnnotations[0]!.annotator_kind, 'LLM');
    });

    it('stops spending at the daily cost limit and lists what it skipped', async () => {
      const name = await project();
      const evaluator = await judgeEvaluator();
      const rule = await post(`/v1/projects/${name}/online_eval_rules`, {
        name: 'capped',
        target: 'span',
        daily_cost_limit_usd: 1e-9,
        evaluators: [evaluator.id],
      });
      await sendSpans(url(), name, [llmSpan('GOOD', 'GOOD')], { 'x-project-name': name });
      await eventually(
        () => stats(rule.id),
        (value) => value.evaluated === 1,
        'the first evaluation',
      );
      await sendSpans(url(), name, [llmSpan('GOOD', 'GOOD'), llmSpan('GOOD', 'GOOD')], { 'x-project-name': name });
      const figures = await eventually(
        () => stats(rule.id),
        (value) => value.skipped === 2,
        'two skipped',
      );
      assert.equal(figures.evaluated, 1);
      const skipped = ok(await request(url(), 'GET', `/v1/online_eval_rules/${rule.id}/items?status=skipped`));
      assert.equal(skipped.length, 2);
      assert.match(skipped[0].error, /daily cost limit/);
    });

    it('evaluates a session once it has had no new turn for the idle time, with the whole conversation', async () => {
      const name = await project();
      const judgeOf = await judgeEvaluator();
      // The judge reads the conversation: GOOD is only in the second turn.
      ok(
        await request(url(), 'PATCH', `/v1/evaluators/${judgeOf.id}`, {
          definition: {
            type: 'llm_judge',
            model: 'openai:judge-model',
            template: 'Conversation:\n{{conversation}}',
            labels: [
              { label: 'good', score: 1 },
              { label: 'bad', score: 0 },
            ],
          },
        }),
      );
      const rule = await post(`/v1/projects/${name}/online_eval_rules`, {
        name: 'sessions',
        target: 'session',
        session_idle_minutes: 1,
        evaluators: [judgeOf.id],
      });
      assert.equal(rule.session_idle_minutes, 1);
      const session = unique('session');
      // Two turns that ended two minutes ago: idle for longer than a minute already.
      const ago = nowNanos() - 120_000_000_000n;
      const turn = (input: string, output: string, offset: bigint) =>
        llmSpan(input, output, {
          kind: 'CHAIN',
          start: ago + offset,
          attributes: { 'input.value': input, 'output.value': output, 'session.id': session },
        });
      await sendSpans(url(), name, [turn('hello', 'hi', 0n), turn('GOOD bye', 'bye', 1_000_000_000n)], { 'x-project-name': name });
      const read = async () => (await getOk(url(), `/v1/projects/${name}/session_annotations?session_ids=${session}`)).data as any[];
      const [annotation] = await eventually(read, (list) => list.length === 1, 'the session judged');
      assert.equal(annotation.result.label, 'good');
      assert.equal(annotation.metadata.evaluator.version, 2);
      assert.match(annotation.metadata.audit.messages.at(-1).content, /Turn 1\nUser: hello\nAssistant: hi\n\nTurn 2\nUser: GOOD bye/);
    });

    it('backfills the last hours: what it would have picked before it existed, once', async () => {
      const name = await project();
      const evaluator = await codeEvaluator({ type: 'not_empty' });
      const recent = await sendSpans(url(), name, [llmSpan('a', 'b'), llmSpan('c', 'd')], { 'x-project-name': name });
      const old = await sendSpans(url(), name, [llmSpan('e', 'f', { start: nowNanos() - 3n * 3_600_000_000_000n })], {
        'x-project-name': name,
      });
      await sleep(300);
      const rule = await post(`/v1/projects/${name}/online_eval_rules`, {
        name: 'backfilled',
        target: 'span',
        filter: "span_kind == 'LLM'",
        evaluators: [evaluator.id],
        backfill_hours: 1,
      });
      assert.equal(rule.backfilling, true);
      const ids = [...recent, ...old].map((span) => span.spanId!);
      // The project's seed span is an hour-old LLM span too, started 5 s before it was sent.
      await eventually(
        () => stats(rule.id),
        (value) => value.backfilling === false && value.pending === 0,
        'the backfill',
      );
      const annotations = await spanAnnotations(name, ids);
      assert.deepEqual(annotations.map((annotation) => annotation.span_id).sort(), recent.map((span) => span.spanId!).sort());
      // A second backfill over the same hours evaluates nothing again.
      ok(await request(url(), 'POST', `/v1/online_eval_rules/${rule.id}/backfill`, { hours: 1 }));
      const again = await eventually(
        () => stats(rule.id),
        (value) => value.backfilling === false,
        'the second backfill',
      );
      assert.equal(again.evaluated, (await stats(rule.id)).evaluated);
      assert.equal((await spanAnnotations(name, ids)).length, 2);
    });

    it('with a provider failing half the time, every item ends evaluated or listed as failed, and failures can be retried', async () => {
      const name = await project();
      const evaluator = await judgeEvaluator();
      const rule = await post(`/v1/projects/${name}/online_eval_rules`, { name: 'flaky', target: 'span', evaluators: [evaluator.id] });
      const count = 16;
      const before = judge.requests.length;
      judge.failWhen = (n) => n % 2 === 0;
      try {
        const spans = await sendSpans(
          url(),
          name,
          Array.from({ length: count }, (_, i) => llmSpan(`GOOD ${i}`, 'GOOD')),
          { 'x-project-name': name },
        );
        const figures = await eventually(
          () => stats(rule.id),
          (value) => value.evaluated + value.failed === count && value.pending === 0,
          'every item settled',
        );
        assert.ok(figures.evaluated > 0, 'some pass on a retry');
        assert.ok(judge.requests.length - before > count, 'failed calls were tried again');
        const annotations = await spanAnnotations(
          name,
          spans.map((span) => span.spanId!),
        );
        assert.equal(annotations.length, figures.evaluated, 'one annotation per evaluated item');
        if (figures.failed > 0) {
          const failed = ok(await request(url(), 'GET', `/v1/online_eval_rules/${rule.id}/items?status=failed`));
          assert.equal(failed.length, figures.failed);
          assert.match(failed[0].error, /500|error/i);
          assert.equal(failed[0].attempts, 4);
        }
        judge.failWhen = () => false;
        const retried = ok(await request(url(), 'POST', `/v1/online_eval_rules/${rule.id}/retry_failed`));
        assert.equal(retried.retried, figures.failed);
        await eventually(
          () => stats(rule.id),
          (value) => value.evaluated === count,
          'every item evaluated after the retry',
        );
        assert.equal(
          (
            await spanAnnotations(
              name,
              spans.map((span) => span.spanId!),
            )
          ).length,
          count,
        );
      } finally {
        judge.failWhen = () => false;
      }
    });

    it('routes to a review queue the items an evaluator scored below the bound, once each', async () => {
      const name = await project();
      const evaluator = await codeEvaluator({ type: 'contains', values: ['Paris'] });
      const queue = await post('/v1/annotation_queues', { name: unique('low-scores'), instructions: 'Check these answers.' });
      const rules = `/v1/projects/${name}/online_eval_rules`;
      expectError(
        await request(url(), 'POST', rules, { name: 'r', target: 'span', evaluators: [evaluator.id], queue_when_score_below: 0.5 }),
        422,
        /needs a queue_id/,
      );
      expectError(
        await request(url(), 'POST', rules, { name: 'r', target: 'span', evaluators: [evaluator.id], queue_id: 'not-a-queue' }),
        422,
        /not an annotation queue id/,
      );
      const rule = await post(rules, {
        name: 'to review',
        target: 'span',
        evaluators: [evaluator.id],
        queue_id: queue.id,
        queue_when_score_below: 0.5,
      });
      assert.equal(rule.queue_id, queue.id);
      const spans = await sendSpans(url(), name, [llmSpan('France?', 'Paris'), llmSpan('Italy?', 'Rome'), llmSpan('Spain?', 'Madrid')], {
        'x-project-name': name,
      });
      await eventually(
        () => stats(rule.id),
        (value) => value.evaluated === 3,
        'three evaluations',
      );
      const items = ok(await request(url(), 'GET', `/v1/annotation_queues/${queue.id}/items`)) as { span_id: string; source: string }[];
      assert.deepEqual(items.map((item) => item.span_id).sort(), [spans[1]!.spanId!, spans[2]!.spanId!].sort());
      assert.deepEqual([...new Set(items.map((item) => item.source))], ['rule']);
    });

    it('a disabled rule evaluates nothing until it is enabled again', async () => {
      const name = await project();
      const evaluator = await codeEvaluator({ type: 'not_empty' });
      const rule = await post(`/v1/projects/${name}/online_eval_rules`, {
        name: 'paused',
        target: 'span',
        enabled: false,
        evaluators: [evaluator.id],
      });
      const spans = await sendSpans(url(), name, [llmSpan('x', 'y')], { 'x-project-name': name });
      await sleep(1500);
      assert.equal((await spanAnnotations(name, [spans[0]!.spanId!])).length, 0);
      const enabled = ok(await request(url(), 'PATCH', `/v1/online_eval_rules/${rule.id}`, { enabled: true }));
      assert.equal(enabled.enabled, true);
      // Enabled again, it goes on from where it stopped: the span sent while it was paused is read now.
      await eventually(
        () => spanAnnotations(name, [spans[0]!.spanId!]),
        (list) => list.length === 1,
        'the evaluation after enabling',
      );
      const list = (await getOk(url(), `/v1/projects/${name}/online_eval_rules`)).data;
      assert.deepEqual(
        list.map((each: { name: string }) => each.name),
        ['paused'],
      );
      const deleted = await request(url(), 'DELETE', `/v1/online_eval_rules/${rule.id}`);
      assert.equal(deleted.status, 204);
      assert.equal((await spanAnnotations(name, [spans[0]!.spanId!])).length, 1, 'its annotations stay');
    });
  },
  ENV,
);
