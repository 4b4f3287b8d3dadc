/**
 * Dashboards (docs/dashboards.md) on both databases: the per-minute rollups count exactly the
 * spans stored (an export sent twice counted once), the query API answers from them and from the
 * span scan alike, percentiles stay within the histogram's bound, retention trims the rollups,
 * saved dashboards and the project default round-trip, and bad input is refused with a sentence.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeEachDialect } from '../helpers/server.js';
import { unique } from '../helpers/auth.js';
import { at, BASE_NANOS, expectError, getOk, newSpanId, newTraceId, request, sendSpans, type QuerySpan } from '../helpers/query.js';

const BASE_MS = Number(BASE_NANOS / 1_000_000n);
const iso = (ms: number) => new Date(BASE_MS + ms).toISOString();

async function eventually<T>(check: () => Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describeEachDialect('dashboards', (current) => {
  const url = () => current().url;
  const query = async (body: Record<string, unknown>) => {
    const response = await request(url(), 'POST', '/v1/dashboards/query', {
      start_time: iso(0),
      end_time: iso(180_000),
      bucket: 'none',
      ...body,
    });
    assert.equal(response.status, 200, response.text);
    return response.body.data;
  };
  const total = (data: { series: { group: string | null; total: number | null }[] }, group: string | null = null) =>
    data.series.find((series) => series.group === group)?.total ?? null;

  describe('rollups and queries', () => {
    const project = unique('dash');
    // 30 spans over three minutes: latency (i+1)·10 ms; every 5th fails; names a/b/c; LLM spans
    // (even i) name gpt-4o or claude and carry i tokens; users u0/u1, tenant attribute t0/t1/t2.
    const spans: QuerySpan[] = Array.from({ length: 30 }, (_, i) => ({
      traceId: newTraceId(),
      spanId: newSpanId(),
      name: ['a', 'b', 'c'][i % 3]!,
      kind: i % 2 === 0 ? 'LLM' : 'CHAIN',
      start: at(i * 6000),
      duration: BigInt((i + 1) * 10) * 1_000_000n,
      status: i % 5 === 0 ? 'ERROR' : 'OK',
      attributes: {
        'user.id': `u${i % 2}`,
        'metadata.tenant': `t${i % 3}`,
        ...(i % 2 === 0
          ? {
              'llm.model_name': i % 4 === 0 ? 'gpt-4o' : 'claude',
              'llm.token_count.total': i,
              'llm.token_count.prompt': 1000,
              'llm.token_count.completion': 100,
            }
          : {}),
      },
    }));

    it('counts each stored span once, also when an export is sent twice', async () => {
      const sent = await sendSpans(url(), project, spans);
      // The same spans again (an exporter's retry): stored once, counted once.
      await sendSpans(url(), project, sent.slice(0, 10));
      const fromRollups = await query({ projects: [project], metric: 'span_count', bucket: 'minute' });
      assert.equal(fromRollups.source, 'rollups');
      assert.deepEqual(
        fromRollups.series[0].points.map((point: { value: number }) => point.value),
        [10, 10, 10],
      );
      // A filter that keeps every span reads the spans themselves: the same count.
      const scanned = await query({ projects: [project], metric: 'span_count', filter: "name != 'none'" });
      assert.equal(scanned.source, 'spans');
      assert.equal(total(scanned), 30);
      const stored = await getOk(url(), `/v1/projects/${project}/spans?limit=1000`);
      assert.equal(stored.data.length, 30);
    });

    it('answers every span metric from the rollups, grouped by kind, name, model and status', async () => {
      const byName = await query({ projects: [project], metric: 'span_count', group_by: 'name' });
      assert.deepEqual(byName.series.map((series: { group: string; total: number }) => [series.group, series.total]).sort(), [
        ['a', 10],
        ['b', 10],
        ['c', 10],
      ]);
      assert.equal(total(await query({ projects: [project], metric: 'error_rate' })), 6 / 30);
      const errorsByStatus = await query({ projects: [project], metric: 'span_count', group_by: 'status' });
      assert.equal(total(errorsByStatus, 'ERROR'), 6);
      const tokens = await query({ projects: [project], metric: 'tokens', group_by: 'model' });
      // gpt-4o: i = 0, 4, …, 28 (sum 112); claude: 2, 6, …, 26 (sum 98); CHAIN spans name no model.
      assert.equal(total(tokens, 'gpt-4o'), 112);
      assert.equal(total(tokens, 'claude'), 98);
      // Spans that name no model carry no tokens: no group of their own.
      assert.equal(tokens.series.length, 2);
      const kinds = await query({ projects: [project], metric: 'span_count', group_by: 'span_kind', bucket: 'hour' });
      assert.equal(kinds.series.length, 2);
      assert.equal(kinds.series[0].points.length, 1);
      // Latencies 10 … 300 ms: exact p50 155, p95 285.5, p99 297.1; the histogram's answer within ±19 %.
      for (const [metric, exact] of [
        ['latency_p50', 155],
        ['latency_p95', 285.5],
        ['latency_p99', 297.1],
      ] as const) {
        const fromRollups = total(await query({ projects: [project], metric }))!;
        assert.ok(Math.abs(fromRollups / exact - 1) <= 0.19, `${metric}: ${fromRollups} vs ${exact}`);
        const scanned = total(await query({ projects: [project], metric, filter: "name != 'none'" }))!;
        assert.equal(scanned, fromRollups, `${metric}: the span scan's histogram is the rollups'`);
      }
      // Errors per minute and p95 by name, as time series.
      const errorRate = await query({ projects: [project], metric: 'error_rate', bucket: 'minute' });
      assert.deepEqual(
        errorRate.series[0].points.map((point: { value: number }) => point.value),
        [0.2, 0.2, 0.2],
      );
    });

    it('reads the spans for user, session and attribute groups and for filters, and says so', async () => {
      const byUser = await query({ projects: [project], metric: 'span_count', group_by: 'user' });
      assert.equal(byUser.source, 'spans');
      assert.equal(byUser.series.length, 2);
      const byTenant = await query({ projects: [project], metric: 'tokens', group_by: 'attribute', attribute: 'metadata.tenant' });
      // Tenants t0: i = 0, 6, …, 24 (LLM: 0, 6, 12, 18, 24 → 60); t1: 4, 10, 16, 22, 28 → 80; t2: 2, 8, 14, 20, 26 → 70.
      assert.deepEqual(byTenant.series.map((series: { group: string; total: number }) => [series.group, series.total]).sort(), [
        ['t0', 60],
        ['t1', 80],
        ['t2', 70],
      ]);
      const filtered = await query({ projects: [project], metric: 'span_count', group_by: 'model', filter: "name == 'a'" });
      assert.equal(filtered.source, 'spans');
      assert.equal(total(filtered, 'gpt-4o'), 3);
    });

    it('reads cost from the rollups, once per priced span, and annotation metrics from the annotations', async () => {
      // Every gpt-4o span: 1000 × 2.50 + 100 × 10 per million; the cost job prices them shortly after
      // ingest and adds each cost to its minute's rollups. "claude" matches no shipped price.
      const gpt4o = 8 * 0.0035;
      const cost = await eventually(async () => {
        const data = await query({ projects: [project], metric: 'cost', group_by: 'model' });
        assert.ok(Math.abs((total(data, 'gpt-4o') ?? 0) - gpt4o) < 1e-9, JSON.stringify(data.series));
        return data;
      });
      assert.equal(cost.source, 'rollups');
      assert.deepEqual(
        cost.series.map((series: { group: string | null }) => series.group),
        ['gpt-4o'],
      );
      // By minute (i = 0, 4, 8 | 12, 16 | 20, 24, 28) and by name, from the rollups too.
      const perMinute = await query({ projects: [project], metric: 'cost', bucket: 'minute' });
      assert.equal(perMinute.source, 'rollups');
      const points = perMinute.series[0].points.map((point: { value: number }) => point.value);
      assert.deepEqual(
        points.map((value: number) => Math.round(value / 0.0035)),
        [3, 2, 3],
      );
      const byName = await query({ projects: [project], metric: 'cost', group_by: 'name' });
      // gpt-4o spans by name (i % 3): a 0, 12, 24; b 4, 16, 28; c 8, 20.
      assert.deepEqual(
        byName.series.map((series: { group: string; total: number }) => [series.group, Math.round(series.total / 0.0035)]).sort(),
        [
          ['a', 3],
          ['b', 3],
          ['c', 2],
        ],
      );
      // A filter reads span_costs with the spans: the same sum.
      const filtered = await query({ projects: [project], metric: 'cost', filter: "name != 'none'" });
      assert.equal(filtered.source, 'span_costs');
      assert.ok(Math.abs(total(filtered)! - gpt4o) < 1e-9);

      // A new price makes the job price every span again: only the spans it had not priced are
      // added (claude's 7, at 1 and 2 per million), the others are not counted twice.
      const created = await request(url(), 'POST', '/v1/model_prices', {
        name: unique('claude-house'),
        name_pattern: '^claude$',
        input_per_million: 1,
        output_per_million: 2,
      });
      assert.equal(created.status, 200, created.text);
      try {
        const claude = 7 * 0.0012;
        const repriced = await eventually(async () => {
          const data = await query({ projects: [project], metric: 'cost', group_by: 'model' });
          assert.ok(Math.abs((total(data, 'claude') ?? 0) - claude) < 1e-9, JSON.stringify(data.series));
          return data;
        });
        assert.ok(Math.abs(total(repriced, 'gpt-4o')! - gpt4o) < 1e-9, JSON.stringify(repriced.series));
        assert.ok(Math.abs(total(await query({ projects: [project], metric: 'cost' }))! - gpt4o - claude) < 1e-9);
      } finally {
        await request(url(), 'DELETE', `/v1/model_prices/${created.body.data.id}`);
      }
      const annotations = spans.slice(0, 4).map((span, i) => ({
        span_id: span.spanId,
        name: 'quality',
        annotator_kind: 'HUMAN',
        result: { score: (i + 1) / 5, label: i === 1 ? 'bad' : 'good' },
      }));
      const posted = await request(url(), 'POST', '/v1/span_annotations', { data: annotations });
      assert.equal(posted.status, 200, posted.text);
      const mean = await query({ projects: [project], metric: 'annotation_score_mean', annotation_name: 'quality' });
      assert.equal(mean.source, 'annotations');
      assert.ok(Math.abs(total(mean)! - 0.5) < 1e-9);
      const shares = await query({
        projects: [project],
        metric: 'annotation_label_share',
        annotation_name: 'quality',
        group_by: 'annotation_label',
      });
      assert.equal(total(shares, 'good'), 0.75);
      assert.equal(total(shares, 'bad'), 0.25);
    });

    it('refuses what a query may not say, with a sentence', async () => {
      const post = (body: Record<string, unknown>) =>
        request(url(), 'POST', '/v1/dashboards/query', {
          projects: [project],
          start_time: iso(0),
          end_time: iso(60_000),
          bucket: 'none',
          metric: 'span_count',
          ...body,
        });
      expectError(await post({ metric: 'median' }), 422);
      expectError(await post({ group_by: 'attribute' }), 422, /needs attribute/);
      expectError(await post({ filter: 'name ==' }), 422, /^filter: /);
      expectError(await post({ metric: 'annotation_score_mean' }), 422, /needs annotation_name/);
      expectError(await post({ end_time: iso(-60_000) }), 422, /end_time must be after start_time/);
      expectError(await post({ bucket: 'minute', end_time: iso(3 * 86_400_000) }), 422, /more than 2000 points/);
      expectError(await post({ group_by: 'user', end_time: iso(8 * 86_400_000), bucket: 'day' }), 422, /at most 7 days/);
      expectError(await post({ start_time: 'yesterday' }), 422, /ISO 8601/);
      expectError(await post({ projects: ['no-such-project'] }), 404);
    });
  });

  it('trims the rollups of minutes retention deleted', async () => {
    const project = unique('dash-retention');
    const now = Date.now();
    const nanos = (ms: number) => BigInt(ms) * 1_000_000n;
    await sendSpans(url(), project, [
      { traceId: newTraceId(), start: nanos(now - 5 * 86_400_000) },
      { traceId: newTraceId(), start: nanos(now - 5 * 86_400_000 + 1000) },
      { traceId: newTraceId(), start: nanos(now - 60_000) },
    ]);
    const count = async () =>
      (
        await query({
          projects: [project],
          metric: 'span_count',
          start_time: new Date(now - 6 * 86_400_000).toISOString(),
          end_time: new Date(now).toISOString(),
        })
      ).series[0]?.total ?? 0;
    assert.equal(await count(), 3);
    const put = await request(url(), 'PUT', `/v1/projects/${project}/retention`, { max_days: 2 });
    assert.equal(put.status, 200, put.text);
    const run = await request(url(), 'POST', '/v1/retention/run');
    assert.equal(run.status, 200, run.text);
    assert.equal(await count(), 1);
  });

  it('saves, lists, changes and deletes dashboards, and keeps a project default', async () => {
    const project = unique('dash-crud');
    await sendSpans(url(), project, [{ traceId: newTraceId(), start: at(0) }]);
    const builtIn = (await getOk(url(), `/v1/projects/${project}/default_dashboard`)).data;
    assert.equal(builtIn.id, null);
    assert.ok(builtIn.widgets.length >= 6);
    const widget = { title: 'Slow a', type: 'timeseries', metric: 'latency_p95', filter: "name == 'a'" };
    const created = await request(url(), 'POST', '/v1/dashboards', { project, name: 'Latency', widgets: [widget] });
    assert.equal(created.status, 200, created.text);
    const id = created.body.data.id as string;
    assert.equal(created.body.data.widgets[0].id, 'w1');
    const listed = (await getOk(url(), `/v1/dashboards?project=${project}`)).data;
    assert.deepEqual(
      listed.map((dashboard: { id: string }) => dashboard.id),
      [id],
    );
    const global = await request(url(), 'POST', '/v1/dashboards', {
      name: 'Everything',
      widgets: [{ title: 'Spans', type: 'number', metric: 'span_count', projects: [project] }],
    });
    assert.equal(global.status, 200, global.text);
    assert.equal(global.body.data.project_id, null);
    assert.ok((await getOk(url(), '/v1/dashboards')).data.some((dashboard: { id: string }) => dashboard.id === global.body.data.id));
    const renamed = await request(url(), 'PUT', `/v1/dashboards/${id}`, { name: 'Latency of a' });
    assert.equal(renamed.body.data.name, 'Latency of a');
    assert.equal(renamed.body.data.widgets.length, 1);
    expectError(
      await request(url(), 'PUT', `/v1/dashboards/${id}`, { widgets: [{ ...widget, metric: 'tokens', group_by: 'attribute' }] }),
      422,
      /widget 1 \("Slow a"\): group_by attribute needs attribute/,
    );
    expectError(
      await request(url(), 'POST', '/v1/dashboards', { project, name: 'x', widgets: [{ ...widget, projects: [project] }] }),
      422,
      /global dashboards only/,
    );
    const saved = await request(url(), 'PUT', `/v1/projects/${project}/default_dashboard`, { widgets: [widget] });
    assert.equal(saved.status, 200, saved.text);
    const stored = (await getOk(url(), `/v1/projects/${project}/default_dashboard`)).data;
    assert.equal(stored.id, saved.body.data.id);
    assert.equal(stored.widgets.length, 1);
    assert.equal((await request(url(), 'DELETE', `/v1/dashboards/${stored.id}`)).status, 204);
    assert.equal((await getOk(url(), `/v1/projects/${project}/default_dashboard`)).data.id, null);
    assert.equal((await request(url(), 'DELETE', `/v1/dashboards/${id}`)).status, 204);
    expectError(await request(url(), 'GET', `/v1/dashboards/${id}`), 404);
  });
});
