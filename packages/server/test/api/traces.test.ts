/** GET /v1/projects/{p}/traces (Phoenix's listProjectTraces) and GET /v1/projects/{p}/traces/{trace}. */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import { Type } from '@fastify/type-provider-typebox';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import { TraceDetail } from '../../src/api/traces/traces-schemas.js';
import { describeEachDialect } from '../helpers/server.js';
import { unique } from '../helpers/auth.js';
import { exportSampleTrace, makeExporter } from '../helpers/otel.js';
import { at, collectPages, expectError, getOk, newSpanId, newTraceId, request, sendSpans } from '../helpers/query.js';

interface TraceSpan {
  id: string;
  span_id: string;
  parent_id: string | null;
  name: string;
  span_kind: string;
  status_code: string;
  start_time: string;
  end_time: string;
  latency_ms: number;
}

interface ApiTrace {
  id: string;
  trace_id: string;
  project_id: string;
  start_time: string;
  end_time: string;
  latency_ms: number;
  token_count_prompt: number;
  token_count_completion: number;
  token_count_total: number;
  span_count: number;
  error_count: number;
  root_span: TraceSpan | null;
  spans?: TraceSpan[];
}

const rowidOf = (id: string) => Number(/^\w+:(\d+)$/.exec(Buffer.from(id, 'base64').toString())![1]);

describeEachDialect('traces API', (server) => {
  const url = () => server().url;

  it('lists a trace sent by a real exporter with token sums, counts, root span and (on request) its spans', async () => {
    const project = unique('traces-otel');
    const { spans } = await exportSampleTrace(makeExporter('http-protobuf', url(), server().grpcUrl), { 'service.name': project }, 'tr');
    const traceId = spans[0]!.spanContext().traceId;
    // The cost job prices the LLM span (gpt-4o-mini, 120 + 30 tokens) about a second later: wait for it.
    let plain = await getOk(url(), `/v1/projects/${encodeURIComponent(project)}/traces`);
    for (let attempt = 0; attempt < 100 && plain.data[0]?.cost_total === null; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      plain = await getOk(url(), `/v1/projects/${encodeURIComponent(project)}/traces`);
    }
    assert.equal(plain.next_cursor, null);
    assert.equal(plain.data.length, 1);
    const { cost_prompt, cost_completion, cost_total, ...trace } = plain.data[0] as ApiTrace & Record<`cost_${string}`, number>;
    // 120 × 0.15 and 30 × 0.60 USD per million tokens (docs/costs.md).
    for (const [actual, expected] of [
      [cost_prompt, 0.000018],
      [cost_completion, 0.000018],
      [cost_total, 0.000036],
    ] as const) {
      assert.ok(typeof actual === 'number' && Math.abs(actual - expected) < 1e-12, `cost ${actual} ≠ ${expected}`);
    }
    const projectId = (await getOk(url(), `/v1/projects/${encodeURIComponent(project)}`)).data.id;
    const root = spans.find((span) => span.name === 'tr agent')!;
    assert.deepEqual(
      { ...trace, id: undefined, root_span: { ...trace.root_span, id: undefined } },
      {
        id: undefined,
        trace_id: traceId,
        project_id: projectId,
        start_time: '2025-11-22T00:00:00.123456789Z',
        end_time: '2025-11-22T00:00:03.000000000Z',
        latency_ms: 2876.543211,
        token_count_prompt: 120,
        token_count_completion: 30,
        token_count_total: 150,
        span_count: 3,
        error_count: 1,
        input: 'What is the weather?',
        output: null,
        root_span: {
          id: undefined,
          span_id: root.spanContext().spanId,
          parent_id: null,
          name: 'tr agent',
          span_kind: 'CHAIN',
          status_code: 'OK',
          start_time: '2025-11-22T00:00:00.123456789Z',
          end_time: '2025-11-22T00:00:03.000000000Z',
          latency_ms: 2876.543211,
        },
      },
    );
    assert.match(Buffer.from(trace.id, 'base64').toString(), /^Trace:\d+$/);
    assert.equal('spans' in trace, false, 'no spans unless asked for');

    const withSpans = (await getOk(url(), `/v1/projects/${encodeURIComponent(project)}/traces?include_spans=true`)).data[0] as ApiTrace;
    assert.deepEqual(
      withSpans.spans!.map((span) => [span.name, span.span_kind, span.status_code, span.parent_id]),
      [
        ['tr agent', 'CHAIN', 'OK', null],
        ['tr llm', 'LLM', 'UNSET', root.spanContext().spanId],
        ['tr tool', 'TOOL', 'ERROR', root.spanContext().spanId],
      ],
    );
    assert.equal(withSpans.spans![1]!.start_time, '2025-11-22T00:00:00.223456789Z');
    assert.equal(withSpans.spans![1]!.latency_ms, 1776.54321);
    const {
      spans: _,
      cost_prompt: _p,
      cost_completion: _c,
      cost_total: _t,
      ...rest
    } = withSpans as ApiTrace & Record<`cost_${string}`, number>;
    assert.deepEqual(rest, trace);
  });

  const data = { project: '', traces: [] as { traceId: string; start: bigint; latencyMs: number }[] };
  before(async () => {
    data.project = unique('traces');
    // Twelve traces: starts 0, 0, 0, 100, 100, ... ms (ties), latencies all different.
    for (let i = 0; i < 12; i++) {
      const traceId = newTraceId();
      const start = at(Math.floor(i / 3) * 100);
      const latencyMs = [7, 3, 11, 5, 2, 13, 1, 17, 19, 23, 29, 31][i]!;
      const rootId = newSpanId();
      await sendSpans(url(), data.project, [
        { traceId, spanId: rootId, name: `root${i}`, kind: 'AGENT', start, duration: BigInt(latencyMs) * 1_000_000n },
        {
          traceId,
          parentSpanId: rootId,
          name: 'llm',
          kind: 'LLM',
          start: start + 1000n,
          duration: 500_000n,
          status: i % 4 === 0 ? 'ERROR' : 'OK',
          attributes: { 'llm.token_count.prompt': i, 'llm.token_count.completion': 2 * i },
        },
      ]);
      data.traces.push({ traceId, start, latencyMs });
    }
  });
  const path = () => `/v1/projects/${encodeURIComponent(data.project)}/traces`;

  it('opens a trace of 33,000 spans: the first 2,000 in full, sums over all (SQLite took 32,766 bound parameters at most)', async () => {
    const project = unique('huge-trace');
    const traceId = newTraceId();
    const total = 33_000;
    const rootId = newSpanId();
    for (let sent = 0; sent < total; sent += 5500) {
      const spans = Array.from({ length: Math.min(5500, total - sent) }, (_, index) => {
        const n = sent + index;
        return n === 0
          ? { traceId, spanId: rootId, start: at(0), name: 'root', kind: 'CHAIN' }
          : { traceId, parentSpanId: rootId, start: at(n), name: 'step', kind: 'LLM', attributes: { 'llm.token_count.prompt': 2 } };
      });
      await sendSpans(url(), project, spans);
    }
    const detail = await getOk(url(), `/v1/projects/${encodeURIComponent(project)}/traces/${traceId}`);
    assert.equal(detail.data.span_count, total);
    assert.equal(detail.data.token_count_prompt, 2 * (total - 1), 'sums count every span');
    assert.equal(detail.data.spans.length, 2_000);
    assert.equal(detail.data.spans_truncated, true);
    assert.equal(detail.data.spans[0].name, 'root', 'the first spans by start time');
    assert.equal(detail.data.root_span.span_id, rootId);
  });

  it('sorts newest first (start, then id), or by latency, in either order, and sums each trace', async () => {
    const all = (await getOk(url(), `${path()}?limit=100`)).data as ApiTrace[];
    assert.equal(all.length, 12);
    const expected = data.traces
      .map((trace, i) => ({ ...trace, i }))
      .sort((a, b) => (a.start === b.start ? b.i - a.i : a.start > b.start ? -1 : 1))
      .map((trace) => trace.traceId);
    assert.deepEqual(
      all.map((trace) => trace.trace_id),
      expected,
      'ties in start time: later-inserted first',
    );
    const asc = (await getOk(url(), `${path()}?order=asc`)).data as ApiTrace[];
    assert.deepEqual(
      asc.map((trace) => trace.trace_id),
      [...expected].reverse(),
    );
    const byLatency = (await getOk(url(), `${path()}?sort=latency_ms`)).data as ApiTrace[];
    assert.deepEqual(
      byLatency.map((trace) => trace.latency_ms),
      [31, 29, 23, 19, 17, 13, 11, 7, 5, 3, 2, 1],
    );
    const byLatencyAsc = (await getOk(url(), `${path()}?sort=latency_ms&order=asc`)).data as ApiTrace[];
    assert.deepEqual(
      byLatencyAsc.map((trace) => trace.latency_ms),
      [1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31],
    );
    for (const trace of all) {
      const i = data.traces.findIndex((candidate) => candidate.traceId === trace.trace_id);
      assert.equal(trace.token_count_prompt, i);
      assert.equal(trace.token_count_completion, 2 * i);
      assert.equal(trace.token_count_total, 3 * i);
      assert.equal(trace.span_count, 2);
      assert.equal(trace.error_count, i % 4 === 0 ? 1 : 0);
      assert.equal(trace.root_span?.name, `root${i}`);
    }
  });

  it('pages through every sort and order without duplicates or gaps', async () => {
    for (const query of ['', 'order=asc', 'sort=latency_ms', 'sort=latency_ms&order=asc', 'include_spans=true']) {
      const whole = (await getOk(url(), `${path()}?${query}`)).data as ApiTrace[];
      for (const limit of [1, 5, 12]) {
        const { items, pages } = await collectPages<ApiTrace>(url(), `${path()}?${query}`, limit);
        assert.deepEqual(
          items.map((trace) => trace.id),
          whole.map((trace) => trace.id),
          `${query} limit ${limit}`,
        );
        assert.equal(pages, Math.ceil(12 / limit));
      }
    }
    const first = await getOk(url(), `${path()}?sort=latency_ms&limit=2`);
    expectError(await request(url(), 'GET', `${path()}?cursor=${first.next_cursor}`), 422, /invalid cursor/);
    expectError(await request(url(), 'GET', `${path()}?sort=latency_ms&order=asc&cursor=${first.next_cursor}`), 422, /invalid cursor/);
  });

  it('filters on trace start time (start inclusive, end exclusive)', async () => {
    const ids = async (query: string) =>
      ((await getOk(url(), `${path()}?${query}`)).data as ApiTrace[]).map((trace) => trace.trace_id).sort();
    const expected = (from: number, to: number) =>
      data.traces
        .filter((trace) => trace.start >= at(from) && trace.start < at(to))
        .map((trace) => trace.traceId)
        .sort();
    assert.equal(expected(100, 300).length, 6);
    assert.deepEqual(await ids('start_time=2025-11-22T00:00:00.100Z&end_time=2025-11-22T00:00:00.300Z'), expected(100, 300));
    assert.deepEqual(await ids('start_time=2025-11-22T00:00:00.100000001Z'), expected(101, 10_000));
    assert.deepEqual(await ids('end_time=2025-11-22T00:00:00.000000001Z'), expected(0, 1));
    expectError(await request(url(), 'GET', `${path()}?start_time=noon`), 422, /start_time/);
    expectError(await request(url(), 'GET', `${path()}?end_time=2025-11-22T00:00:00Z&start_time=2025-11-22T00:00:01Z`), 422);
  });

  it('validates limit, sort, order and include_spans, and answers 404 for an unknown project', async () => {
    const tooManySessions = Array.from({ length: 101 }, (_, i) => `session_identifier=s${i}`).join('&');
    for (const query of ['limit=0', 'limit=1001', 'sort=name', 'order=up', 'include_spans=maybe', tooManySessions]) {
      expectError(await request(url(), 'GET', `${path()}?${query}`), 422);
    }
    // Sessions are recorded now (docs/sessions.md): an unknown one filters to nothing.
    assert.deepEqual((await getOk(url(), `${path()}?session_identifier=s1`)).data, []);
    expectError(await request(url(), 'GET', `/v1/projects/${unique('none')}/traces`), 404);
  });

  it('returns one trace with every span in full, by OpenTelemetry id or GlobalID, only in its own project', async () => {
    const project = unique('trace-detail');
    const traceId = newTraceId();
    const rootId = newSpanId();
    await sendSpans(url(), project, [
      { traceId, spanId: rootId, name: 'root', kind: 'CHAIN', start: at(0, 5n), duration: 9_000_000n },
      {
        traceId,
        parentSpanId: rootId,
        name: 'second',
        kind: 'LLM',
        start: at(2),
        attributes: { 'llm.token_count.prompt': 4, 'llm.token_count.completion': 6 },
      },
      { traceId, parentSpanId: rootId, name: 'first', kind: 'TOOL', start: at(1), status: 'ERROR', attributes: { 'tool.name': 'grep' } },
    ]);
    const detail = await getOk(url(), `/v1/projects/${encodeURIComponent(project)}/traces/${traceId}`);
    const trace = detail.data;
    assert.equal(trace.trace_id, traceId);
    assert.equal(trace.start_time, '2025-11-22T00:00:00.000000005Z');
    assert.equal(trace.end_time, '2025-11-22T00:00:00.009000005Z');
    assert.deepEqual(
      [trace.span_count, trace.error_count, trace.token_count_prompt, trace.token_count_completion, trace.token_count_total],
      [3, 1, 4, 6, 10],
    );
    assert.equal(trace.root_span.span_id, rootId);
    assert.deepEqual(
      trace.spans.map((span: { name: string }) => span.name),
      ['root', 'first', 'second'],
    );
    const spans = await getOk(url(), `/v1/projects/${encodeURIComponent(project)}/spans?trace_id=${traceId}&order=asc`);
    // The trace view adds each span's cost (none here: the LLM span names no model).
    assert.deepEqual(
      trace.spans.map((span: { cost_total: number | null }) => span.cost_total),
      [null, null, null],
    );
    assert.equal(trace.cost_total, null);
    assert.deepEqual(
      trace.spans.map(({ cost_total: _, ...span }: { cost_total: unknown }) => span),
      spans.data,
      'the same full span shape as the span list',
    );
    assert.deepEqual(trace.spans[1].attributes, { 'tool.name': 'grep' });

    const listed = (await getOk(url(), `/v1/projects/${encodeURIComponent(project)}/traces`)).data[0] as ApiTrace;
    assert.deepEqual(await getOk(url(), `/v1/projects/${encodeURIComponent(project)}/traces/${listed.id}`), detail);
    assert.deepEqual(await getOk(url(), `/v1/projects/${listed.project_id}/traces/${traceId.toUpperCase()}`), detail);
    const { spans: _, spans_truncated: truncated, ...summary } = trace;
    assert.equal(truncated, false, 'a trace of a few spans is whole');
    assert.deepEqual(summary, listed);

    expectError(await request(url(), 'GET', `/v1/projects/${encodeURIComponent(data.project)}/traces/${traceId}`), 404, /not found/);
    expectError(await request(url(), 'GET', `/v1/projects/${encodeURIComponent(project)}/traces/${newTraceId()}`), 404);
    expectError(await request(url(), 'GET', `/v1/projects/${encodeURIComponent(project)}/traces/${toGlobalId('Trace', 999999)}`), 404);
    expectError(
      await request(url(), 'GET', `/v1/projects/${encodeURIComponent(project)}/traces/${toGlobalId('Span', rowidOf(listed.id))}`),
      404,
    );
    expectError(await request(url(), 'GET', `/v1/projects/${encodeURIComponent(project)}/traces/abc`), 404);
    expectError(await request(url(), 'GET', `/v1/projects/${unique('none')}/traces/${traceId}`), 404);
  });

  it("answers the trace page with exactly the bytes its schema's serializer writes (http/bulk-json.ts)", async () => {
    const project = unique('trace-bytes');
    const traceId = newTraceId();
    const rootId = newSpanId();
    await sendSpans(url(), project, [
      {
        traceId,
        spanId: rootId,
        name: 'réponse',
        kind: 'CHAIN',
        start: at(0),
        attributes: { 'input.value': 'Grüße, 世界 🌍 "quoted" \\ back', 'output.value': 'x'.repeat(5_000), metadata: '{"a":[1,2]}' },
        events: [{ name: 'exception', time: at(0, 3n), attributes: { 'exception.message': 'ça a échoué', count: 2 } }],
      },
      {
        traceId,
        parentSpanId: rootId,
        name: 'llm',
        kind: 'LLM',
        start: at(1),
        attributes: { 'llm.token_count.prompt': 3, flag: true, ratio: 0.25 },
      },
    ]);
    const response = await fetch(`${url()}/v1/projects/${encodeURIComponent(project)}/traces/${traceId}`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/);
    const bytes = Buffer.from(await response.arrayBuffer());
    assert.equal(Number(response.headers.get('content-length')), bytes.length);
    const text = bytes.toString('utf8');
    const schemaSerializer = SerializerSelector()(undefined, {})({ schema: Type.Object({ data: TraceDetail }) } as never);
    assert.equal(text, schemaSerializer(JSON.parse(text)), 'the schema would drop or change nothing');
    assert.equal(JSON.parse(text).data.spans[0].attributes['input.value'], 'Grüße, 世界 🌍 "quoted" \\ back');
    // An error of the same route is still JSON.
    expectError(await request(url(), 'GET', `/v1/projects/${encodeURIComponent(project)}/traces/${newTraceId()}`), 404, /not found/);
  });

  it('reports a trace without a stored root span with root_span null', async () => {
    const project = unique('rootless');
    const traceId = newTraceId();
    await sendSpans(url(), project, [{ traceId, parentSpanId: newSpanId(), name: 'orphan', start: at(0) }]);
    const [trace] = (await getOk(url(), `/v1/projects/${encodeURIComponent(project)}/traces`)).data as ApiTrace[];
    assert.equal(trace!.root_span, null);
    assert.equal(trace!.span_count, 1);
    assert.equal((await getOk(url(), `/v1/projects/${encodeURIComponent(project)}/traces/${traceId}`)).data.root_span, null);
  });
});
