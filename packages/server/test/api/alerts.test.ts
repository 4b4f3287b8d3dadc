/**
 * Alerts (docs/alerts.md): the window metrics on known spans, the rules' API and its 422s, and
 * the alert job end to end on both databases: a real loopback webhook receiver and a real SMTP
 * server receive the firing and the resolution within one window plus one check interval, a muted
 * rule sends nothing, a receiver answering 500 is tried again and its error recorded.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { DIALECTS } from '../helpers/databases.js';
import { unique } from '../helpers/auth.js';
import { startSmtpServer, type SmtpTestServer } from '../helpers/smtp.js';
import { at, expectError, getOk, newTraceId, request, sendSpans, type QuerySpan } from '../helpers/query.js';

interface Received {
  path: string;
  body: any;
  at: number;
}

/** A loopback HTTP server that keeps every POST; paths starting with /fail answer 500. */
async function startReceiver() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      received.push({ path: req.url ?? '', body: text ? JSON.parse(text) : null, at: Date.now() });
      res.statusCode = (req.url ?? '').startsWith('/fail') ? 500 : 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    received,
    /** Waits for a POST to `path` matching `test`, returning it. */
    async next(path: string, test: (body: any) => boolean, timeoutMs: number): Promise<Received> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.find((item) => item.path === path && test(item.body));
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(`no POST to ${path} within ${timeoutMs} ms (got ${JSON.stringify(received.map((r) => r.path))})`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

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

const close = (actual: number | null, expected: number, what: string) =>
  assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9, `${what}: expected ${expected}, got ${actual}`);
const nowNanos = () => BigInt(Date.now()) * 1_000_000n;
const WINDOW_S = 10;
const INTERVAL_S = 1;
/** What a check may take beyond its interval on a loaded CI machine (the statement, the POST). */
const SLACK_MS = 1500;

for (const dialect of DIALECTS) {
  describe(`alerts [${dialect}]`, { concurrency: true }, () => {
    let server: TestServer;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let smtp: SmtpTestServer;
    const url = () => server.url;
    const hook = (path: string, format: 'json' | 'slack' = 'json') => ({
      type: 'webhook',
      url: `http://127.0.0.1:${receiver.port}${path}`,
      format,
    });
    const createRule = (project: string, body: Record<string, unknown>) =>
      request(url(), 'POST', `/v1/projects/${encodeURIComponent(project)}/alert_rules`, body);
    const getRule = async (id: string) => (await getOk(url(), `/v1/alert_rules/${id}`)).data;

    before(async () => {
      receiver = await startReceiver();
      smtp = await startSmtpServer();
      server = await startTestServer(dialect, {
        SERVICE_ALERT_CHECK_INTERVAL_SECONDS: String(INTERVAL_S),
        SERVICE_ALERT_WEBHOOK_HOSTS: `127.0.0.1:${receiver.port}`,
        SERVICE_ALERT_RETRY_DELAY_MS: '100',
        SERVICE_SMTP_HOSTNAME: '127.0.0.1',
        SERVICE_SMTP_PORT: String(smtp.port),
        SERVICE_SMTP_MAIL_FROM: 'alerts@sightline.test',
        SERVICE_ROOT_URL: 'https://sightline.example.com',
      });
    });
    after(async () => {
      await server?.close();
      await receiver?.close();
      await smtp?.close();
    });

    describe('window metrics', () => {
      const project = unique('metrics-window');
      // Ten spans one second apart in [0 s, 10 s): latency (i+1)·10 ms, i+1 tokens, spans 2 and 4 fail,
      // names alternate a/b; spans 0 and 1 are gpt-4o calls (priced), 0 to 3 annotated "quality".
      const spans: QuerySpan[] = Array.from({ length: 10 }, (_, i) => ({
        traceId: newTraceId(),
        name: i % 2 === 0 ? 'a' : 'b',
        kind: 'LLM',
        start: at(i * 1000),
        duration: BigInt((i + 1) * 10) * 1_000_000n,
        status: i === 2 || i === 4 ? 'ERROR' : 'OK',
        attributes: {
          'llm.token_count.total': i + 1,
          ...(i < 2 ? { 'llm.model_name': 'gpt-4o', 'llm.token_count.prompt': 1000, 'llm.token_count.completion': 100 } : {}),
        },
      }));
      const metric = async (query: string, end = '2025-11-22T00:00:10Z') =>
        (await getOk(url(), `/v1/projects/${encodeURIComponent(project)}/window_metric?window_seconds=10&end_time=${end}&${query}`)).data
          .value as number | null;

      before(async () => {
        const sent = await sendSpans(url(), project, spans);
        const annotations = [
          [0.2, 'good'],
          [0.4, 'bad'],
          [0.6, 'good'],
          [0.8, 'good'],
        ].map(([score, label], i) => ({ span_id: sent[i]!.spanId, name: 'quality', annotator_kind: 'LLM', result: { score, label } }));
        const posted = await request(url(), 'POST', '/v1/span_annotations', { data: annotations });
        assert.equal(posted.status, 200, posted.text);
      });

      it('computes every metric kind over the window, with and without a filter', async () => {
        assert.equal(await metric('metric=span_count'), 10);
        close(await metric('metric=error_rate'), 0.2, 'error rate');
        // Latencies 10..100 ms, continuous percentiles at positions 4.5, 8.55 and 8.91.
        close(await metric('metric=latency_p50'), 55, 'p50');
        close(await metric('metric=latency_p95'), 95.5, 'p95');
        close(await metric('metric=latency_p99'), 99.1, 'p99');
        assert.equal(await metric('metric=tokens'), 55);
        close(await metric('metric=annotation_score_mean&annotation_name=quality'), 0.5, 'score mean');
        close(await metric('metric=annotation_label_share&annotation_name=quality&annotation_label=good'), 0.75, 'label share');
        // gpt-4o: 1000 × 2.50 + 100 × 10 per million, twice; the cost job prices spans shortly after ingest.
        await eventually(async () => close(await metric('metric=cost'), 0.007, 'cost'));
        const a = `filter=${encodeURIComponent("name == 'a'")}`;
        assert.equal(await metric(`metric=span_count&${a}`), 5);
        close(await metric(`metric=error_rate&${a}`), 0.4, 'error rate of a');
        close(await metric(`metric=latency_p50&${a}`), 50, 'p50 of a');
        assert.equal(await metric(`metric=tokens&${a}`), 25);
        close(await metric(`metric=cost&${a}`), 0.0035, 'cost of a');
        close(await metric(`metric=annotation_score_mean&annotation_name=quality&${a}`), 0.4, 'score mean of a');
        // The window is [end − 10 s, end): ending at 5 s it holds spans 0..4.
        assert.equal(await metric('metric=span_count', '2025-11-22T00:00:05Z'), 5);
      });

      it('answers no data for rates, means and percentiles of an empty window, and 0 for counts and sums', async () => {
        const end = '2025-11-21T00:00:00Z';
        assert.equal(await metric('metric=span_count', end), 0);
        assert.equal(await metric('metric=tokens', end), 0);
        assert.equal(await metric('metric=cost', end), 0);
        assert.equal(await metric('metric=error_rate', end), null);
        assert.equal(await metric('metric=latency_p95', end), null);
        assert.equal(await metric('metric=annotation_score_mean&annotation_name=quality', end), null);
        assert.equal(await metric('metric=annotation_label_share&annotation_name=quality&annotation_label=good', end), null);
        // Spans without the annotation: no data either.
        assert.equal(await metric('metric=annotation_score_mean&annotation_name=other'), null);
      });

      it('refuses bad metric parameters with a sentence', async () => {
        const base = `/v1/projects/${encodeURIComponent(project)}/window_metric`;
        expectError(await request(url(), 'GET', `${base}?metric=annotation_score_mean&window_seconds=60`), 422, /needs annotation_name/);
        expectError(
          await request(url(), 'GET', `${base}?metric=span_count&window_seconds=60&filter=${encodeURIComponent('name ==')}`),
          422,
          /^filter: /,
        );
        expectError(await request(url(), 'GET', `${base}?metric=span_count&window_seconds=5`), 422);
        expectError(await request(url(), 'GET', `${base}?metric=median&window_seconds=60`), 422);
      });
    });

    it('creates, lists, changes, mutes and deletes rules, and refuses what a rule may not say', async () => {
      const project = unique('alerts-crud');
      await sendSpans(url(), project, [{ traceId: newTraceId(), start: at(0) }]);
      const body = {
        name: 'slow',
        metric: 'latency_p95',
        comparator: '>',
        threshold: 2000,
        window_seconds: 600,
        filter: 'parent_id is None',
        channels: [hook('/crud', 'slack')],
      };
      const created = await createRule(project, body);
      assert.equal(created.status, 200, created.text);
      const rule = created.body.data;
      assert.deepEqual(
        [
          rule.name,
          rule.metric,
          rule.comparator,
          rule.threshold,
          rule.window_seconds,
          rule.state,
          rule.enabled,
          rule.muted,
          rule.last_value,
        ],
        ['slow', 'latency_p95', '>', 2000, 600, 'ok', true, false, null],
      );
      assert.deepEqual(rule.channels, [hook('/crud', 'slack')]);
      expectError(await createRule(project, body), 409, /already/);
      const listed = await getOk(url(), `/v1/projects/${encodeURIComponent(project)}/alert_rules?limit=1`);
      assert.deepEqual([listed.data.length, listed.data[0].id, listed.next_cursor], [1, rule.id, null]);

      const until = new Date(Date.now() + 3_600_000).toISOString();
      const muted = await request(url(), 'PATCH', `/v1/alert_rules/${rule.id}`, { muted_until: until, enabled: false, threshold: 1500 });
      assert.equal(muted.status, 200, muted.text);
      assert.deepEqual(
        [muted.body.data.muted, muted.body.data.muted_until, muted.body.data.enabled, muted.body.data.threshold],
        [true, until, false, 1500],
      );
      const unmuted = await request(url(), 'PATCH', `/v1/alert_rules/${rule.id}`, { muted_until: null });
      assert.deepEqual([unmuted.body.data.muted, unmuted.body.data.muted_until, unmuted.body.data.name], [false, null, 'slow']);

      // What a rule may not say: each answered 422 with a sentence.
      const bad = (changes: Record<string, unknown>) => createRule(project, { ...body, name: unique('bad'), ...changes });
      expectError(
        await bad({ channels: [{ type: 'webhook', url: 'http://example.com/hook', format: 'json' }] }),
        422,
        /not on this server's list/,
      );
      expectError(
        await bad({ channels: [{ type: 'webhook', url: `https://127.0.0.1:${receiver.port + 1}/x`, format: 'json' }] }),
        422,
        /SERVICE_ALERT_WEBHOOK_HOSTS/,
      );
      expectError(await bad({ filter: "name = = 'x'" }), 422, /^filter: /);
      expectError(await bad({ metric: 'annotation_label_share', annotation_name: 'quality' }), 422, /needs annotation_label/);
      expectError(await bad({ metric: 'span_count', annotation_name: 'quality' }), 422, /annotation metrics only/);
      expectError(await bad({ window_seconds: 8 * 86_400 }), 422);
      expectError(await bad({ comparator: '==' }), 422);
      expectError(await bad({ channels: [{ type: 'email', to: ['not an address'] }] }), 422, /not an email address/);
      expectError(await request(url(), 'PATCH', `/v1/alert_rules/${rule.id}`, { muted_until: 'tomorrow' }), 422, /muted_until/);

      assert.equal((await request(url(), 'DELETE', `/v1/alert_rules/${rule.id}`)).status, 204);
      expectError(await request(url(), 'GET', `/v1/alert_rules/${rule.id}`), 404);
      expectError(await request(url(), 'GET', `/v1/alert_rules/not-an-id/history`), 404);
    });

    it('fires within one window plus one interval to a real webhook (json and Slack bodies), resolves likewise, records history', async () => {
      const project = unique('alerts-webhook');
      const created = await createRule(project, {
        name: 'errors',
        metric: 'error_rate',
        comparator: '>',
        threshold: 0.5,
        window_seconds: WINDOW_S,
        channels: [hook('/json'), hook('/slack', 'slack')],
      });
      assert.equal(created.status, 404, 'the project exists only once it has spans');
      await sendSpans(url(), project, [{ traceId: newTraceId(), start: nowNanos() - 3_600_000_000_000n }]);
      const rule = (
        await createRule(project, {
          name: 'errors',
          metric: 'error_rate',
          comparator: '>',
          threshold: 0.5,
          window_seconds: WINDOW_S,
          channels: [hook('/json'), hook('/slack', 'slack')],
        })
      ).body.data;

      const ruleRowId = Number(Buffer.from(rule.id, 'base64').toString().split(':')[1]);
      const started = Date.now();
      await sendSpans(
        url(),
        project,
        Array.from({ length: 3 }, () => ({ traceId: newTraceId(), start: nowNanos(), status: 'ERROR' as const })),
      );
      const bound = (WINDOW_S + INTERVAL_S) * 1000 + SLACK_MS;
      const fired = await receiver.next('/json', (body) => body.rule.id === ruleRowId && body.state === 'firing', bound);
      assert.ok(fired.at - started <= bound, `fired after ${fired.at - started} ms`);
      assert.deepEqual(
        { ...fired.body, at: typeof fired.body.at, summary: typeof fired.body.summary, link: typeof fired.body.link },
        {
          kind: 'firing',
          state: 'firing',
          rule: {
            id: ruleRowId,
            name: 'errors',
            metric: 'error_rate',
            annotation_name: null,
            annotation_label: null,
            filter: '',
            comparator: '>',
            threshold: 0.5,
            window_seconds: WINDOW_S,
          },
          project: { id: fired.body.project.id, name: project },
          value: 1,
          threshold: 0.5,
          window_seconds: WINDOW_S,
          at: 'string',
          summary: 'string',
          link: 'string',
        },
      );
      assert.match(fired.body.summary, /^\[FIRING\] errors: error rate 1 \(alert when above 0\.5 over 10 s\)/);
      assert.match(fired.body.link, /^https:\/\/sightline\.example\.com\/projects\/[A-Za-z0-9+/=]+\/alerts\/[A-Za-z0-9+/=]+$/);
      const slack = await receiver.next('/slack', (body) => /FIRING/.test(body.text), 2000);
      assert.equal(typeof slack.body.text, 'string');
      assert.ok(Array.isArray(slack.body.blocks) && slack.body.blocks.length === 2);
      assert.equal(slack.body.blocks[0].type, 'section');
      assert.equal(slack.body.blocks[0].text.type, 'mrkdwn');
      assert.match(slack.body.blocks[0].text.text, /^:rotating_light: <https:\/\/sightline\.example\.com\/.+\|errors>/);
      assert.equal(slack.body.blocks[1].type, 'context');
      const firing = await eventually(async () => {
        const current = await getRule(rule.id);
        assert.equal(current.last_delivery_at !== null, true);
        return current;
      });
      assert.deepEqual([firing.state, firing.last_value, firing.last_delivery_error], ['firing', 1, null]);

      // The condition ends: ten OK spans bring the rate to 3/13.
      const ended = Date.now();
      await sendSpans(
        url(),
        project,
        Array.from({ length: 10 }, () => ({ traceId: newTraceId(), start: nowNanos(), status: 'OK' as const })),
      );
      const resolved = await receiver.next('/json', (body) => body.rule.id === ruleRowId && body.state === 'resolved', bound);
      assert.ok(resolved.at - ended <= bound, `resolved after ${resolved.at - ended} ms`);
      close(resolved.body.value, 3 / 13, 'resolved value');
      await receiver.next(
        '/slack',
        (body) => /RESOLVED/.test(body.text) && body.blocks[0].text.text.startsWith(':white_check_mark:'),
        2000,
      );

      const history = await getOk(url(), `/v1/alert_rules/${rule.id}/history`);
      assert.equal(history.data.length, 1);
      const [event] = history.data;
      assert.deepEqual([event.fired_value, event.muted, typeof event.resolved_at], [1, false, 'string']);
      close(event.resolved_value, 3 / 13, 'history resolved value');
      assert.ok(event.fired_at < event.resolved_at);
      assert.equal((await getRule(rule.id)).state, 'ok');
      // One notification per change and channel: nothing sent twice.
      assert.equal(receiver.received.filter((item) => item.path === '/json' && item.body.rule.id === ruleRowId).length, 2);
    });

    it('mails the firing and, once the window passes, the resolution through the SMTP server', async () => {
      const project = unique('alerts-mail');
      await sendSpans(url(), project, [{ traceId: newTraceId(), start: nowNanos() - 3_600_000_000_000n }]);
      const to = `oncall-${dialect}@example.com`;
      const rule = (
        await createRule(project, {
          name: 'busy',
          metric: 'span_count',
          comparator: '>=',
          threshold: 3,
          window_seconds: WINDOW_S,
          channels: [{ type: 'email', to: [to] }],
        })
      ).body.data;
      const started = Date.now();
      await sendSpans(
        url(),
        project,
        Array.from({ length: 3 }, () => ({ traceId: newTraceId(), start: nowNanos() })),
      );
      const bound = (WINDOW_S + INTERVAL_S) * 1000 + SLACK_MS;
      const firing = await smtp.nextMail(to, bound);
      assert.ok(Date.now() - started <= bound + 200, `mailed after ${Date.now() - started} ms`);
      assert.match(firing.subject, /^\[FIRING\] busy: span count 3 \(alert when at or above 3 over 10 s\)/);
      assert.equal(firing.from, 'alerts@sightline.test');
      assert.match(firing.text, /https:\/\/sightline\.example\.com\/projects\//);
      // No more spans: the count falls to 0 once the three leave the window, 10 s after they started.
      const resolved = await smtp.nextMail(to, bound);
      assert.ok(Date.now() - started <= 2 * bound, `resolved after ${Date.now() - started} ms`);
      assert.match(resolved.subject, /^\[RESOLVED\] busy: span count 0/);
      assert.equal((await getRule(rule.id)).state, 'ok');
    });

    it('records the firing of a muted rule and sends nothing; retries a receiver answering 500 and records its error', async () => {
      const project = unique('alerts-muted');
      await sendSpans(url(), project, [{ traceId: newTraceId(), start: nowNanos() - 3_600_000_000_000n }]);
      const common = { metric: 'span_count', comparator: '>', threshold: 0, window_seconds: WINDOW_S };
      const muted = (
        await createRule(project, {
          ...common,
          name: 'muted',
          channels: [hook('/muted')],
          muted_until: new Date(Date.now() + 3_600_000).toISOString(),
        })
      ).body.data;
      const failing = (await createRule(project, { ...common, name: 'failing', channels: [hook('/fail/secret-path?token=abc')] })).body
        .data;
      await sendSpans(url(), project, [{ traceId: newTraceId(), start: nowNanos() }]);
      await eventually(async () => assert.equal((await getRule(muted.id)).state, 'firing'), 5000);
      const failed = await eventually(async () => {
        const current = await getRule(failing.id);
        assert.ok(current.last_delivery_error !== null);
        return current;
      }, 5000);
      assert.equal(failed.state, 'firing');
      assert.match(failed.last_delivery_error, /^webhook http:\/\/127\.0\.0\.1:\d+: answered HTTP 500 \(after 3 tries\)$/);
      assert.doesNotMatch(failed.last_delivery_error, /secret|token/);
      assert.equal(receiver.received.filter((item) => item.path.startsWith('/fail/secret-path')).length, 3, 'three tries');
      const history = await getOk(url(), `/v1/alert_rules/${muted.id}/history`);
      assert.deepEqual([history.data.length, history.data[0].muted, history.data[0].resolved_at], [1, true, null]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.received.filter((item) => item.path === '/muted').length, 0, 'a muted rule sends nothing');
      for (const rule of [muted, failing]) await request(url(), 'PATCH', `/v1/alert_rules/${rule.id}`, { enabled: false });
    });

    it('sends a test notification to every channel and answers how each took it', async () => {
      const project = unique('alerts-test');
      await sendSpans(url(), project, [{ traceId: newTraceId(), start: at(0) }]);
      const to = `test-${dialect}@example.com`;
      const rule = (
        await createRule(project, {
          name: 'tested',
          metric: 'cost',
          comparator: '>',
          threshold: 10,
          window_seconds: 3600,
          enabled: false,
          channels: [hook('/tested'), { type: 'email', to: [to] }, hook('/fail/tested')],
        })
      ).body.data;
      const answer = await request(url(), 'POST', `/v1/alert_rules/${rule.id}/test`);
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(
        answer.body.data.map((result: { ok: boolean; error: string | null }) => [result.ok, result.error]),
        [
          [true, null],
          [true, null],
          [false, `webhook http://127.0.0.1:${receiver.port}: answered HTTP 500`],
        ],
      );
      const posted = await receiver.next('/tested', () => true, 1000);
      assert.deepEqual([posted.body.kind, posted.body.state, posted.body.rule.name], ['test', 'ok', 'tested']);
      const mail = await smtp.nextMail(to, 5000);
      assert.match(mail.subject, /^\[TEST\] tested: cost no data/);
      const none = (await createRule(project, { name: 'silent', metric: 'span_count', comparator: '>', threshold: 1, window_seconds: 60 }))
        .body.data;
      expectError(await request(url(), 'POST', `/v1/alert_rules/${none.id}/test`), 422, /no channel/);
    });
  });
}

describe('alerts without webhook hosts or SMTP [sqlite]', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer('sqlite');
  });
  after(async () => server?.close());

  it('refuses webhook and email channels, saying how an operator enables them', async () => {
    const project = unique('alerts-off');
    await sendSpans(server.url, project, [{ traceId: newTraceId(), start: at(0) }]);
    const body = { name: 'x', metric: 'span_count', comparator: '>', threshold: 1, window_seconds: 60 };
    const path = `/v1/projects/${encodeURIComponent(project)}/alert_rules`;
    expectError(
      await request(server.url, 'POST', path, {
        ...body,
        channels: [{ type: 'webhook', url: 'https://hooks.slack.com/services/x', format: 'slack' }],
      }),
      422,
      /webhook channels are off on this server: .*SERVICE_ALERT_WEBHOOK_HOSTS/,
    );
    expectError(
      await request(server.url, 'POST', path, { ...body, channels: [{ type: 'email', to: ['a@example.com'] }] }),
      422,
      /SMTP.*SERVICE_SMTP_HOSTNAME/,
    );
    assert.equal((await request(server.url, 'POST', path, body)).status, 200, 'a rule without channels records its history only');
  });
});
