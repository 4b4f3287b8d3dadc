/**
 * Online evaluation is exact (docs/online-evaluation.md, "Exactly once"): a server stopped in
 * the middle of a backfill, its judge calls in flight, and another started on the same database
 * end with every matching span evaluated once; two replicas on one PostgreSQL database, both
 * receiving spans, judge each sampled span once between them. The judge is a stand-in speaking
 * OpenAI's wire format, slow enough (and the job narrow enough) that the stop lands mid-way.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningServer } from '../../src/server.js';
import { inSample } from '../../src/evaluators/sampling.js';
import { TEST_SECRET, unique } from '../helpers/auth.js';
import { createTestDatabase, DIALECTS } from '../helpers/databases.js';
import { getOk, newTraceId, request, sendSpans, type JsonResponse, type QuerySpan } from '../helpers/query.js';
import { startServerOn } from '../helpers/server.js';
import { STANDIN_JUDGE_KEY, startStandinJudge } from '../helpers/standin-judge.js';

const judge = await startStandinJudge({ latencyMs: 250 });
after(() => judge.close());

const ENV = {
  SERVICE_SECRET: TEST_SECRET,
  SERVICE_ALLOW_PRIVATE_PROVIDER_URLS: 'true',
  SERVICE_LOG_LEVEL: 'fatal',
  SERVICE_ONLINE_EVAL_CONCURRENCY: '2',
};
const MARKER = 'Once-online:';

const ok = (response: JsonResponse) => {
  assert.equal(response.status, 200, response.text);
  return response.body?.data;
};

/** Judge calls of this file's evaluators since the `from`th request. */
const callsSince = (from: number) =>
  judge.requests.slice(from).filter((call) => call.messages.some((m) => m.content.startsWith(MARKER))).length;

const span = (i: number): QuerySpan => ({
  traceId: newTraceId(),
  start: BigInt(Date.now() - 60_000) * 1_000_000n,
  kind: 'LLM',
  attributes: { 'input.value': `GOOD question ${i}`, 'output.value': 'GOOD' },
});

/** A judge evaluator on the server at `url`; returns its name. */
async function judgeEvaluator(url: string): Promise<string> {
  ok(
    await request(url, 'PUT', '/v1/secrets', {
      secrets: [
        { key: 'OPENAI_API_KEY', value: STANDIN_JUDGE_KEY },
        { key: 'OPENAI_BASE_URL', value: judge.url },
      ],
    }),
  );
  const name = unique('once-online');
  ok(
    await request(url, 'POST', '/v1/evaluators', {
      name,
      definition: {
        type: 'llm_judge',
        model: 'openai:judge-model',
        template: `${MARKER} {{input}}`,
        labels: [
          { label: 'good', score: 1 },
          { label: 'bad', score: 0 },
        ],
      },
    }),
  );
  return name;
}

/** The evaluator's annotations on each of the spans. */
async function annotationsBySpan(url: string, project: string, spanIds: string[], evaluator: string): Promise<Map<string, number>> {
  const counts = new Map(spanIds.map((id) => [id, 0]));
  for (let start = 0; start < spanIds.length; start += 50) {
    const query = spanIds
      .slice(start, start + 50)
      .map((id) => `span_ids=${id}`)
      .join('&');
    const { data } = await getOk(url, `/v1/projects/${project}/span_annotations?${query}&limit=1000`);
    for (const annotation of data as { span_id: string; name: string }[]) {
      if (annotation.name === evaluator) counts.set(annotation.span_id, (counts.get(annotation.span_id) ?? 0) + 1);
    }
  }
  return counts;
}

async function waitUntil(check: () => Promise<boolean>, what: string, seconds = 60): Promise<void> {
  for (let attempt = 0; attempt < seconds * 10; attempt++) {
    if (await check()) return;
    await sleep(100);
  }
  assert.fail(`${what} did not happen in ${seconds} s`);
}

for (const dialect of DIALECTS) {
  describe(`online evaluation, exactly once [${dialect}]`, () => {
    it('a server stopped mid-backfill and another started on its database end with every span evaluated once', async () => {
      const database = await createTestDatabase(dialect);
      let second: RunningServer | undefined;
      try {
        const first = await startServerOn(database, ENV);
        const project = unique('once-backfill');
        const count = 30;
        const spans = await sendSpans(
          first.url,
          project,
          Array.from({ length: count }, (_, i) => span(i)),
          { 'x-project-name': project },
        );
        const spanIds = spans.map((each) => each.spanId!);
        const evaluator = await judgeEvaluator(first.url);
        const callsBefore = judge.requests.length;
        ok(
          await request(first.url, 'POST', `/v1/projects/${project}/online_eval_rules`, {
            name: 'backfill',
            target: 'span',
            filter: "span_kind == 'LLM'",
            evaluators: [evaluator],
            backfill_hours: 1,
          }),
        );
        // Some evaluated, not all: two judge calls of 250 ms at a time.
        await waitUntil(
          async () => [...(await annotationsBySpan(first.url, project, spanIds, evaluator)).values()].filter((n) => n > 0).length >= 4,
          'a first evaluation',
        );
        await first.close();
        const partial = callsSince(callsBefore);
        assert.ok(partial < count, `stopped mid-backfill (${partial} of ${count} judged)`);

        second = await startServerOn(database, ENV);
        const url = second.url;
        await waitUntil(
          async () => [...(await annotationsBySpan(url, project, spanIds, evaluator)).values()].every((n) => n > 0),
          'every evaluation',
        );
        await sleep(1500);
        const counts = await annotationsBySpan(url, project, spanIds, evaluator);
        assert.deepEqual([...new Set(counts.values())], [1], 'one annotation per span');
        // Calls in flight at the stop were made again (two at most); no span was judged twice otherwise.
        const calls = callsSince(callsBefore);
        assert.ok(calls >= count && calls <= count + 2, `${calls} judge calls for ${count} spans`);
      } finally {
        await second?.close();
        await database.drop();
      }
    });

    if (dialect === 'postgres') {
      it('two replicas on one database, both receiving spans, judge each sampled span once between them', async () => {
        const database = await createTestDatabase(dialect);
        const replicas: RunningServer[] = [];
        try {
          const env = { ...ENV, SERVICE_ONLINE_EVAL_CONCURRENCY: '8' };
          replicas.push(await startServerOn(database, env), await startServerOn(database, env));
          const [a, b] = replicas as [RunningServer, RunningServer];
          const project = unique('once-replicas');
          await sendSpans(a.url, project, [span(-1)], { 'x-project-name': project });
          const evaluator = await judgeEvaluator(a.url);
          const callsBefore = judge.requests.length;
          ok(
            await request(a.url, 'POST', `/v1/projects/${project}/online_eval_rules`, {
              name: 'replicas',
              target: 'span',
              sampling_rate: 0.5,
              evaluators: [evaluator],
            }),
          );
          // Spans arrive at both replicas, in small batches, while the job runs on one or the other.
          const sent: QuerySpan[] = [];
          for (let batch = 0; batch < 8; batch++) {
            const replica = batch % 2 === 0 ? a : b;
            sent.push(
              ...(await sendSpans(
                replica.url,
                project,
                Array.from({ length: 10 }, (_, i) => span(batch * 10 + i)),
                { 'x-project-name': project },
              )),
            );
            await sleep(150);
          }
          const spanIds = sent.map((each) => each.spanId!);
          const sampled = spanIds.filter((id) => inSample(id, 0.5));
          await waitUntil(
            async () => [...(await annotationsBySpan(b.url, project, sampled, evaluator)).values()].every((n) => n > 0),
            'every sampled span evaluated',
          );
          await sleep(2500);
          const counts = await annotationsBySpan(b.url, project, spanIds, evaluator);
          assert.deepEqual(spanIds.filter((id) => counts.get(id)! > 0).sort(), [...sampled].sort(), 'the sample and only the sample');
          assert.deepEqual([...new Set(sampled.map((id) => counts.get(id)))], [1], 'each once');
          assert.equal(callsSince(callsBefore), sampled.length, 'one judge call per sampled span, across both replicas');
        } finally {
          for (const replica of replicas) await replica.close();
          await database.drop();
        }
      });
    }
  });
}
