/** GET /v1/projects/{p}/summary and /timeseries: counts, errors, percentiles and tokens, exact on known data. */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect } from '../helpers/server.js';
import { unique } from '../helpers/auth.js';
import { exportSampleTrace, makeExporter } from '../helpers/otel.js';
import { at, expectError, getOk, newSpanId, newTraceId, request, sendSpans, type QuerySpan } from '../helpers/query.js';

const MINUTE = 60_000;
const close = (actual: number | null, expected: number, what: string) =>
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9, `${what}: expected ${expected}, got ${actual}`);

describeEachDialect('project metrics API', (server) => {
  const url = () => server().url;
  let project = '';

  // Ten traces, one a minute: a CHAIN root of (i+1)·10 ms and an LLM child with (i+1)·10 prompt and
  // i+1 completion tokens; models alternate gpt/claude, the last has none; children 2 and 5 fail.
  before(async () => {
    project = unique('metrics');
    const spans: QuerySpan[] = [];
    for (let i = 0; i < 10; i++) {
      const traceId = newTraceId();
      const rootId = newSpanId();
      spans.push({
        traceId,
        spanId: rootId,
        name: 'root',
        kind: 'CHAIN',
        start: at(i * MINUTE),
        duration: BigInt((i + 1) * 10) * 1_000_000n,
      });
      spans.push({
        traceId,
        parentSpanId: rootId,
        name: 'llm',
        kind: 'LLM',
        start: at(i * MINUTE + 1),
        status: i === 2 || i === 5 ? 'ERROR' : 'OK',
        attributes: {
          ...(i < 9 ? { 'llm.model_name': i % 2 === 0 ? 'gpt' : 'claude' } : {}),
          'llm.token_count.prompt': (i + 1) * 10,
          'llm.token_count.completion': i + 1,
        },
      });
      if (i === 0) spans.push({ traceId, parentSpanId: rootId, name: 'tool', kind: 'TOOL', start: at(2) });
    }
    await sendSpans(url(), project, spans);
  });
  const base = () => `/v1/projects/${encodeURIComponent(project)}`;

  it('summarises all time: counts, error rate, root latency p50/p99, tokens, kinds and models', async () => {
    const { data } = await getOk(url(), `${base()}/summary`);
    const projectId = (await getOk(url(), base())).data.id;
    const { latency_ms_p50, latency_ms_p99, error_rate, ...exact } = data;
    assert.deepEqual(exact, {
      project_id: projectId,
      start_time: null,
      end_time: null,
      // 21 spans: read one by one (more than 20,000 would be read from the rollups, db/project-summary-rollups.test.ts).
      approximate: false,
      span_count: 21,
      trace_count: 10,
      error_count: 2,
      token_count_prompt: 550,
      token_count_completion: 55,
      token_count_total: 605,
      // Models "gpt" and "claude" match no price (docs/costs.md).
      cost_prompt: 0,
      cost_completion: 0,
      cost_total: 0,
      span_kinds: [
        { span_kind: 'CHAIN', span_count: 10, error_count: 0 },
        { span_kind: 'LLM', span_count: 10, error_count: 2 },
        { span_kind: 'TOOL', span_count: 1, error_count: 0 },
      ],
      models: [
        { model_name: 'gpt', span_count: 5, token_count_prompt: 250, token_count_completion: 25, token_count_total: 275 },
        { model_name: 'claude', span_count: 4, token_count_prompt: 200, token_count_completion: 20, token_count_total: 220 },
        { model_name: null, span_count: 1, token_count_prompt: 100, token_count_completion: 10, token_count_total: 110 },
      ],
    });
    close(error_rate, 2 / 21, 'error rate');
    // Root latencies 10, 20, ..., 100 ms: continuous percentiles at positions 4.5 and 8.91.
    close(latency_ms_p50, 55, 'p50');
    close(latency_ms_p99, 99.1, 'p99');
  });

  it('summarises a time range (start inclusive, end exclusive)', async () => {
    const { data } = await getOk(url(), `${base()}/summary?start_time=2025-11-22T00:03:00Z&end_time=2025-11-22T00:06:00Z`);
    assert.equal(data.start_time, '2025-11-22T00:03:00.000000000Z');
    assert.equal(data.end_time, '2025-11-22T00:06:00.000000000Z');
    assert.deepEqual([data.span_count, data.trace_count, data.error_count], [6, 3, 1]);
    assert.deepEqual([data.token_count_prompt, data.token_count_completion, data.token_count_total], [150, 15, 165]);
    close(data.latency_ms_p50, 50, 'p50');
    close(data.latency_ms_p99, 59.8, 'p99');
    assert.deepEqual(
      data.models.map((model: { model_name: string }) => model.model_name),
      ['claude', 'gpt'],
    );
  });

  it('summarises an empty range with zeros and null percentiles', async () => {
    const { data } = await getOk(url(), `${base()}/summary?start_time=2030-01-01T00:00:00Z`);
    assert.deepEqual(
      [
        data.span_count,
        data.trace_count,
        data.error_count,
        data.error_rate,
        data.latency_ms_p50,
        data.latency_ms_p99,
        data.token_count_total,
      ],
      [0, 0, 0, 0, null, null, 0],
    );
    assert.deepEqual([data.span_kinds, data.models], [[], []]);
  });

  it('counts a real exporter trace: only its root span enters the latency', async () => {
    const name = unique('metrics-otel');
    await exportSampleTrace(makeExporter('grpc', url(), server().grpcUrl), { 'service.name': name }, 'm');
    const { data } = await getOk(url(), `/v1/projects/${encodeURIComponent(name)}/summary`);
    assert.deepEqual([data.span_count, data.trace_count, data.error_count, data.token_count_total], [3, 1, 1, 150]);
    close(data.latency_ms_p50, 2876.543211, 'p50');
    close(data.latency_ms_p99, 2876.543211, 'p99');
    assert.deepEqual(data.models, [
      { model_name: 'gpt-4o-mini', span_count: 1, token_count_prompt: 120, token_count_completion: 30, token_count_total: 150 },
    ]);
  });

  it('buckets the figures by interval, listing empty buckets', async () => {
    const { data } = await getOk(url(), `${base()}/timeseries?start_time=2025-11-22T00:00:00Z&end_time=2025-11-22T00:12:00Z&interval=2m`);
    assert.equal(data.interval_seconds, 120);
    assert.equal(data.start_time, '2025-11-22T00:00:00.000000000Z');
    assert.equal(data.end_time, '2025-11-22T00:12:00.000000000Z');
    assert.equal(data.buckets.length, 6);
    assert.deepEqual(
      data.buckets.map((bucket: { start_time: string; end_time: string }) => [bucket.start_time, bucket.end_time]),
      [0, 2, 4, 6, 8, 10].map((m) => [
        `2025-11-22T00:${String(m).padStart(2, '0')}:00.000000000Z`,
        `2025-11-22T00:${String(m + 2).padStart(2, '0')}:00.000000000Z`,
      ]),
    );
    assert.deepEqual(
      data.buckets.map((bucket: Record<string, number>) => [
        bucket.span_count,
        bucket.trace_count,
        bucket.error_count,
        bucket.token_count_prompt,
        bucket.token_count_completion,
        bucket.token_count_total,
      ]),
      [
        [5, 2, 0, 30, 3, 33],
        [4, 2, 1, 70, 7, 77],
        [4, 2, 1, 110, 11, 121],
        [4, 2, 0, 150, 15, 165],
        [4, 2, 0, 190, 19, 209],
        [0, 0, 0, 0, 0, 0],
      ],
    );
    // Two root latencies per bucket, (2b+1)·10 and (2b+2)·10 ms: p50 the mean, p99 at 0.99 of the way.
    for (let b = 0; b < 5; b++) {
      close(data.buckets[b].latency_ms_p50, (2 * b + 1) * 10 + 5, `bucket ${b} p50`);
      close(data.buckets[b].latency_ms_p99, (2 * b + 1) * 10 + 9.9, `bucket ${b} p99`);
    }
    assert.deepEqual([data.buckets[5].latency_ms_p50, data.buckets[5].latency_ms_p99], [null, null]);
  });

  it('aligns the first bucket to a multiple of the interval and accepts seconds or durations', async () => {
    const query = 'start_time=2025-11-22T00:00:30Z&end_time=2025-11-22T00:03:00Z';
    const seconds = await getOk(url(), `${base()}/timeseries?${query}&interval=60`);
    assert.equal(seconds.data.start_time, '2025-11-22T00:00:00.000000000Z');
    assert.deepEqual(
      seconds.data.buckets.map((bucket: { trace_count: number }) => bucket.trace_count),
      [1, 1, 1],
    );
    assert.deepEqual((await getOk(url(), `${base()}/timeseries?${query}&interval=1m`)).data, seconds.data);
    assert.deepEqual((await getOk(url(), `${base()}/timeseries?${query}&interval=60s`)).data, seconds.data);
    const hourly = await getOk(url(), `${base()}/timeseries?${query}&interval=1h`);
    assert.deepEqual(
      hourly.data.buckets.map((bucket: { span_count: number; start_time: string }) => [bucket.start_time, bucket.span_count]),
      [['2025-11-22T00:00:00.000000000Z', 7]],
    );
  });

  it('picks an interval giving at most 120 buckets, and defaults to the 24 hours before now', async () => {
    const auto = await getOk(url(), `${base()}/timeseries?start_time=2025-11-22T00:00:00Z&end_time=2025-11-22T00:10:00Z`);
    assert.equal(auto.data.interval_seconds, 10);
    assert.equal(auto.data.buckets.length, 60);
    assert.equal(
      auto.data.buckets.reduce((sum: number, bucket: { span_count: number }) => sum + bucket.span_count, 0),
      21,
    );
    const before = Date.now();
    const recent = await getOk(url(), `${base()}/timeseries?interval=1h`);
    const end = Date.parse(recent.data.end_time);
    assert.ok(end >= before - 1 && end <= Date.now() + 1, `end_time ${recent.data.end_time} is now`);
    assert.ok(recent.data.buckets.length === 24 || recent.data.buckets.length === 25);
    assert.ok(Date.parse(recent.data.start_time) <= end - 24 * 3600_000);
  });

  it('answers 422 for bad intervals, times and too many buckets, and 404 for an unknown project', async () => {
    for (const interval of ['0', 'abc', '1.5m', '-5', '5w']) {
      expectError(await request(url(), 'GET', `${base()}/timeseries?interval=${interval}`), 422, /interval/);
    }
    expectError(await request(url(), 'GET', `${base()}/timeseries?interval=1s`), 422, /buckets/);
    expectError(await request(url(), 'GET', `${base()}/timeseries?start_time=2025-11-22T00:10:00Z&end_time=2025-11-22T00:00:00Z`), 422);
    expectError(await request(url(), 'GET', `${base()}/summary?end_time=later`), 422, /end_time/);
    expectError(await request(url(), 'GET', `/v1/projects/${unique('none')}/summary`), 404);
    expectError(await request(url(), 'GET', `/v1/projects/${unique('none')}/timeseries`), 404);
  });
});
