/**
 * Costs (docs/costs.md): LLM spans priced by the cost job from the shipped prices, totals per
 * trace, per span in the trace view and per project and time range, checked against values
 * computed by hand; price overrides (admins only) price spans that had none; bad input.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import {
  AUTH_ENV,
  createActiveUser,
  createSystemKey,
  expectStatus,
  sessionOf,
  setupDefaultAdmin,
  type ApiClient,
  bearerClient,
} from '../helpers/auth.js';
import { at, newTraceId, otlpJson, type QuerySpan } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

const close = (actual: number | null | undefined, expected: number, what: string) =>
  assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) < 1e-9, `${what}: ${actual} ≠ ${expected}`);

/** Polls until `check` passes (the cost job runs about once a second). */
async function eventually(check: () => Promise<void>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

describeEachDialect(
  'costs',
  (server) => {
    let admin: ApiClient;
    let member: ApiClient;
    let system: ApiClient;
    const project = 'costs-project';
    const traceA = newTraceId();
    const traceB = newTraceId();
    const rootA = '1111111111111111';

    const llm = (traceId: string, model: string | null, prompt: number, completion: number, extra: Record<string, number | string> = {}) =>
      ({
        traceId,
        parentSpanId: rootA,
        start: at(10),
        kind: 'LLM',
        attributes: {
          ...(model ? { 'llm.model_name': model } : {}),
          'llm.token_count.prompt': prompt,
          'llm.token_count.completion': completion,
          ...extra,
        },
      }) satisfies QuerySpan;

    before(async () => {
      const url = server().url;
      const adminUser = await setupDefaultAdmin(url);
      admin = sessionOf(url, adminUser);
      member = bearerClient(url, (await createActiveUser(url, admin, 'member')).key);
      system = bearerClient(url, (await createSystemKey(admin)).key);
      const spans: QuerySpan[] = [
        { traceId: traceA, spanId: rootA, start: at(0), duration: 5_000_000n, kind: 'CHAIN', attributes: { 'session.id': 'costly-chat' } },
        llm(traceA, 'gpt-4o-mini-2024-07-18', 1000, 500, { 'llm.provider': 'openai' }),
        llm(traceA, 'claude-3-5-sonnet-20241022', 1000, 100, { 'llm.token_count.prompt_details.cache_read': 200 }),
        llm(traceA, 'house-model-v1', 2000, 1000),
        { ...llm(traceB, 'gpt-4o', 10_000, 1000), parentSpanId: null, start: at(60_000) },
      ];
      expectStatus(await system.post('/v1/traces', otlpJson(project, spans), { 'x-project-name': project }), 200);
    });

    const trace = async (traceId: string) => expectStatus(await member.get(`/v1/projects/${project}/traces/${traceId}`), 200).body.data;

    it('prices LLM spans from the shipped prices: per span, per trace, per session, per project', async () => {
      // gpt-4o-mini: 1000 × 0.15 + 500 × 0.60 per million; claude-3-5-sonnet: 800 × 3 + 200 × 0.30, then 100 × 15.
      const mini = { prompt: 0.00015, completion: 0.0003 };
      const sonnet = { prompt: 0.00246, completion: 0.0015 };
      await eventually(async () =>
        close((await trace(traceA)).cost_total, mini.prompt + mini.completion + sonnet.prompt + sonnet.completion, 'trace A'),
      );
      const detail = await trace(traceA);
      close(detail.cost_prompt, mini.prompt + sonnet.prompt, 'trace A prompt');
      close(detail.cost_completion, mini.completion + sonnet.completion, 'trace A completion');
      const byModel = Object.fromEntries(detail.spans.map((span: any) => [span.attributes['llm.model_name'] ?? 'root', span.cost_total]));
      close(byModel['gpt-4o-mini-2024-07-18'], 0.00045, 'gpt-4o-mini span');
      close(byModel['claude-3-5-sonnet-20241022'], 0.00396, 'sonnet span');
      assert.equal(byModel['house-model-v1'], null, 'an unknown model has no price');
      assert.equal(byModel.root, null, 'a span without tokens has no cost');

      // gpt-4o: 10,000 × 2.50 + 1,000 × 10 per million.
      await eventually(async () => close((await trace(traceB)).cost_total, 0.035, 'trace B'));
      const listed = expectStatus(await member.get(`/v1/projects/${project}/traces?limit=10`), 200).body.data;
      close(listed.find((item: any) => item.trace_id === traceA).cost_total, 0.00441, 'trace A in the list');

      const sessions = expectStatus(await member.get(`/v1/projects/${project}/sessions`), 200).body.data as any[];
      close(sessions.find((session) => session.session_id === 'costly-chat')?.cost_total, 0.00441, 'the session of trace A');

      const all = expectStatus(await member.get(`/v1/projects/${project}/summary`), 200).body.data;
      close(all.cost_total, 0.00441 + 0.035, 'project total');
      close(all.cost_prompt, 0.00261 + 0.025, 'project prompt');
      // The time range counts spans by start time: trace B's span starts a minute later.
      const early = expectStatus(
        await member.get(
          `/v1/projects/${project}/summary?start_time=${encodeURIComponent(new Date(Number(at(0) / 1_000_000n)).toISOString())}&end_time=${encodeURIComponent(new Date(Number(at(30_000) / 1_000_000n)).toISOString())}`,
        ),
        200,
      ).body.data;
      close(early.cost_total, 0.00441, 'first 30 s');
    });

    it('reads the price attributes by their JSON type: cache writes given as text count, a model name that is a number prices nothing', async () => {
      const typed = 'costs-typed';
      const writes = newTraceId();
      const numeric = newTraceId();
      const spans: QuerySpan[] = [
        {
          ...llm(writes, 'claude-3-5-sonnet-20241022', 1000, 100, {
            'llm.token_count.prompt_details.cache_write': '400',
            'llm.provider': 'anthropic',
          }),
          parentSpanId: null,
        },
        { ...llm(numeric, null, 1000, 100, { 'llm.model_name': 4 }), parentSpanId: null },
      ];
      expectStatus(await system.post('/v1/traces', otlpJson(typed, spans), { 'x-project-name': typed }), 200);
      // claude-3-5-sonnet: 600 × 3 + 400 × 3.75 per million for the prompt, then 100 × 15.
      const typedTrace = async (traceId: string) =>
        expectStatus(await member.get(`/v1/projects/${typed}/traces/${traceId}`), 200).body.data;
      await eventually(async () => close((await typedTrace(writes)).cost_total, 0.0033 + 0.0015, 'cache writes as text'));
      const numericSpan = (await typedTrace(numeric)).spans[0];
      assert.equal(numericSpan.attributes['llm.model_name'], 4);
      assert.equal(numericSpan.cost_total, null, 'a model name that is not a string matches no price');
    });

    it('lets admins add a price override, which prices the spans that had none', async () => {
      expectStatus(
        await member.post('/v1/model_prices', { name: 'house', name_pattern: '^house-model', input_per_million: 1, output_per_million: 2 }),
        403,
      );
      expectStatus(
        await system.post('/v1/model_prices', { name: 'house', name_pattern: '^house-model', input_per_million: 1, output_per_million: 2 }),
        403,
        'a system key is not an admin',
      );
      const created = expectStatus(
        await admin.post('/v1/model_prices', { name: 'house', name_pattern: '^house-model', input_per_million: 1, output_per_million: 2 }),
        200,
      ).body.data;
      assert.equal(created.is_built_in, false);
      // house-model-v1: 2000 × 1 + 1000 × 2 per million = 0.004.
      await eventually(async () => close((await trace(traceA)).cost_total, 0.00441 + 0.004, 'trace A with the override'));
      const listed = expectStatus(await member.get('/v1/model_prices'), 200).body.data as any[];
      assert.equal(listed[0].name, 'house', 'overrides first');
      assert.ok(listed.some((model) => model.name === 'gpt-4o-mini' && model.is_built_in && model.input_per_million === 0.15));

      expectStatus(
        await admin.patch(`/v1/model_prices/${created.id}`, {
          name: 'house',
          name_pattern: '^house',
          input_per_million: 3,
          output_per_million: 4,
        }),
        200,
      );
      expectStatus(await admin.delete(`/v1/model_prices/${created.id}`), 204);
      expectStatus(await admin.delete(`/v1/model_prices/${created.id}`), 404);
    });

    it('answers bad price input with a 4xx naming the problem', async () => {
      const body = { name: 'x', name_pattern: '^x$', input_per_million: 1, output_per_million: 1 };
      const bad = async (patch: Record<string, unknown>, status: number, detail: RegExp) => {
        const response = expectStatus(await admin.post('/v1/model_prices', { ...body, ...patch }), status);
        assert.match(response.body.detail, detail);
      };
      await bad({ name_pattern: '([' }, 422, /name_pattern is not a valid regular expression/);
      await bad({ name_pattern: '^(?=gpt)(a+)+$' }, 422, /not a valid regular expression: .*no backreferences or lookaround/);
      await bad({ input_per_million: -1 }, 422, /input_per_million must be a price/);
      await bad({ output_per_million: 1e9 }, 422, /output_per_million must be a price/);
      await bad({ name: '   ' }, 422, /name must be 1 to 200 characters/);
      await bad({ input_per_million: 'cheap' }, 422, /input_per_million/);
      expectStatus(await admin.post('/v1/model_prices', { ...body, name: 'dup' }), 200);
      await bad({ name: 'dup' }, 409, /an override named "dup" exists/);
      const builtIn = (expectStatus(await admin.get('/v1/model_prices'), 200).body.data as any[]).find((model) => model.is_built_in);
      const patched = expectStatus(await admin.patch(`/v1/model_prices/${builtIn.id}`, body), 422);
      assert.match(patched.body.detail, /shipped price/);
      expectStatus(await admin.delete('/v1/model_prices/not-an-id'), 404);
    });
  },
  AUTH_ENV,
);
