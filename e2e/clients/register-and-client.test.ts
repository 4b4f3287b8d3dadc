/** register() sends traces and our typed client reads them back, with auth on, on both databases. */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { register } from '@sightline/otel';
import { SightlineError, createClient } from '@sightline/client';
import { describeEachDialect } from '../../packages/server/test/helpers/server.js';
import { AUTH_ENV, setupDefaultAdmin, type TestUser } from '../../packages/server/test/helpers/auth.js';

describeEachDialect(
  'register() and @sightline/client',
  (server) => {
    let admin: TestUser;
    before(async () => {
      admin = await setupDefaultAdmin(server().url);
    });

    it('round-trips a trace: register() exports with the API key, the client reads spans, trace and summary', async () => {
      const provider = register({ projectName: 'e2e-register', endpoint: server().url, apiKey: admin.key, batch: false, global: false });
      const tracer = provider.getTracer('e2e');
      const root = tracer.startSpan('answer question', { attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': 'hi' } });
      const child = tracer.startSpan(
        'chat completion',
        {
          attributes: {
            'openinference.span.kind': 'LLM',
            'llm.model_name': 'gpt-4o-mini',
            'llm.token_count.prompt': 11,
            'llm.token_count.completion': 7,
          },
        },
        trace.setSpan(context.active(), root),
      );
      child.setStatus({ code: SpanStatusCode.OK });
      child.end();
      root.end();
      await provider.shutdown();
      const traceId = root.spanContext().traceId;

      const client = createClient({ baseUrl: server().url, apiKey: admin.key });
      const spans = [];
      for await (const span of client.spans.all('e2e-register', { trace_id: [traceId] })) spans.push(span);
      assert.deepEqual(spans.map((span) => span.name).sort(), ['answer question', 'chat completion']);
      const llm = spans.find((span) => span.name === 'chat completion')!;
      assert.equal(llm.parent_id, root.spanContext().spanId);
      assert.equal(llm.span_kind, 'LLM');
      assert.equal(llm.token_count_total, 18);
      assert.equal(llm.attributes['llm.model_name'], 'gpt-4o-mini');

      const detail = await client.traces.get('e2e-register', traceId);
      assert.equal(detail.spans.length, 2);
      const projects = await client.projects.list();
      assert.ok(projects.data.some((project) => project.name === 'e2e-register'));
      const summary = await client.projects.summary('e2e-register');
      assert.equal(summary.span_count, 2);
      assert.equal(summary.token_count_total, 18);

      const created = await client.annotations.annotateSpans([
        { span_id: llm.context.span_id, name: 'correctness', annotator_kind: 'HUMAN', result: { label: 'correct', score: 1 } },
      ]);
      assert.equal(created.length, 1);
      const listed = await client.annotations.listForSpans('e2e-register', [llm.context.span_id]);
      assert.equal(listed.data[0]?.result?.label, 'correct');
    });

    it('reads SERVICE_COLLECTOR_ENDPOINT and SERVICE_API_KEY, and reports refusals as SightlineError', async () => {
      const env = { SERVICE_COLLECTOR_ENDPOINT: `${server().url}/v1/traces`, SERVICE_API_KEY: admin.key };
      const viewer = await createClient({ env }).viewer();
      assert.equal('email' in viewer ? viewer.email : undefined, 'admin@localhost');

      const provider = register({ projectName: 'from-env', batch: false, global: false, env });
      provider.getTracer('e2e').startSpan('env span').end();
      await provider.shutdown();
      const page = await createClient({ env }).spans.page('from-env');
      assert.deepEqual(
        page.data.map((span) => span.name),
        ['env span'],
      );

      await assert.rejects(createClient({ baseUrl: server().url, env: {} }).projects.list(), (error: unknown) => {
        assert.ok(error instanceof SightlineError);
        assert.equal(error.status, 401);
        return true;
      });
      await assert.rejects(createClient({ baseUrl: server().url, apiKey: admin.key }).projects.get('no-such-project'), (error: unknown) => {
        assert.ok(error instanceof SightlineError);
        assert.equal(error.status, 404);
        return true;
      });
    });

    it('with a wrong key, register() delivers nothing', async () => {
      const provider = register({
        projectName: 'wrong-key',
        endpoint: server().url,
        apiKey: 'sk-sl-wrongwrongwrongwrongwrongwrong',
        batch: false,
        global: false,
      });
      provider.getTracer('e2e').startSpan('lost').end();
      await provider.shutdown();
      const projects = await createClient({ baseUrl: server().url, apiKey: admin.key }).projects.list();
      assert.ok(!projects.data.some((project) => project.name === 'wrong-key'));
    });
  },
  AUTH_ENV,
);
