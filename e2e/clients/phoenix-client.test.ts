/**
 * The real npm package @arizeai/phoenix-client (6.x), pointed at Sightline with a bearer key:
 * project calls, getSpans with filters and paging, logSpanAnnotations / getSpanAnnotations, getTraces.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createClient } from '@arizeai/phoenix-client';
import { getSpanAnnotations, getSpans, logSpanAnnotations } from '@arizeai/phoenix-client/spans';
import { getTraces } from '@arizeai/phoenix-client/traces';
import { describeEachDialect } from '../../packages/server/test/helpers/server.js';
import { AUTH_ENV, setupDefaultAdmin, type TestUser } from '../../packages/server/test/helpers/auth.js';
import { exportSampleTrace, makeExporter } from '../../packages/server/test/helpers/otel.js';

// A stray .env.phoenix must not redirect the client.
process.env.PHOENIX_DISCOVER_CONFIG = 'false';

describeEachDialect(
  '@arizeai/phoenix-client against Sightline',
  (server) => {
    let admin: TestUser;
    let phoenix: ReturnType<typeof createClient>;
    let traceIds: string[];
    before(async () => {
      admin = await setupDefaultAdmin(server().url);
      phoenix = createClient({ options: { baseUrl: server().url, headers: { Authorization: `Bearer ${admin.key}` } } });
      const exporter = makeExporter('http-protobuf', server().url, server().grpcUrl, { authorization: `Bearer ${admin.key}` });
      traceIds = [];
      for (let i = 0; i < 3; i++) {
        const { spans } = await exportSampleTrace(exporter, { 'openinference.project.name': 'phoenix-compat' }, `run${i}`);
        traceIds.push(spans[0]!.spanContext().traceId);
      }
    });

    it('runs the project calls', async () => {
      const created = await phoenix.POST('/v1/projects', { body: { name: 'made-by-phoenix-client', description: 'compat' } });
      assert.equal(created.response.status, 200);
      assert.equal(created.data?.data.name, 'made-by-phoenix-client');
      const listed = await phoenix.GET('/v1/projects');
      const names = listed.data?.data.map((project) => project.name) ?? [];
      assert.ok(names.includes('phoenix-compat') && names.includes('made-by-phoenix-client'));
      const byName = await phoenix.GET('/v1/projects/{project_identifier}', { params: { path: { project_identifier: 'phoenix-compat' } } });
      assert.equal(byName.data?.data.name, 'phoenix-compat');
      const byId = await phoenix.GET('/v1/projects/{project_identifier}', {
        params: { path: { project_identifier: byName.data!.data.id } },
      });
      assert.equal(byId.data?.data.name, 'phoenix-compat');
      const deleted = await phoenix.DELETE('/v1/projects/{project_identifier}', {
        params: { path: { project_identifier: 'made-by-phoenix-client' } },
      });
      assert.equal(deleted.response.status, 204);
    });

    it('runs getSpans with paging and filters', async () => {
      const all = [];
      let cursor: string | null | undefined;
      do {
        const page = await getSpans({ client: phoenix, project: { projectName: 'phoenix-compat' }, limit: 4, cursor });
        all.push(...page.spans);
        cursor = page.nextCursor;
      } while (cursor);
      assert.equal(all.length, 9, 'three traces of three spans, across three pages');
      assert.equal(new Set(all.map((span) => span.context.span_id)).size, 9, 'no span twice');

      const ofOneTrace = await getSpans({ client: phoenix, project: { projectName: 'phoenix-compat' }, traceIds: [traceIds[0]!] });
      assert.equal(ofOneTrace.spans.length, 3);
      assert.ok(ofOneTrace.spans.every((span) => span.context.trace_id === traceIds[0]));
      const llms = await getSpans({ client: phoenix, project: { projectName: 'phoenix-compat' }, spanKind: 'LLM' });
      assert.equal(llms.spans.length, 3);
      const roots = await getSpans({ client: phoenix, project: { projectName: 'phoenix-compat' }, parentId: null });
      assert.equal(roots.spans.length, 3);
      assert.ok(roots.spans.every((span) => span.parent_id === null));
      const errors = await getSpans({ client: phoenix, project: { projectName: 'phoenix-compat' }, statusCode: 'ERROR' });
      assert.deepEqual([...new Set(errors.spans.map((span) => span.name.split(' ')[1]))], ['tool']);
      const byModel = await getSpans({
        client: phoenix,
        project: { projectName: 'phoenix-compat' },
        attributes: { 'llm.model_name': 'gpt-4o-mini' },
      });
      assert.equal(byModel.spans.length, 3);
    });

    it('logs span annotations and reads them back', async () => {
      const { spans } = await getSpans({ client: phoenix, project: { projectName: 'phoenix-compat' }, spanKind: 'LLM' });
      const spanIds = spans.map((span) => span.context.span_id);
      const logged = await logSpanAnnotations({
        client: phoenix,
        sync: true,
        spanAnnotations: spanIds.map((spanId, i) => ({
          spanId,
          name: 'helpfulness',
          label: i === 0 ? 'good' : 'bad',
          score: i === 0 ? 1 : 0,
          annotatorKind: 'LLM' as const,
        })),
      });
      assert.equal(logged.length, 3);
      const read = await getSpanAnnotations({ client: phoenix, project: { projectName: 'phoenix-compat' }, spanIds });
      assert.equal(read.annotations.length, 3);
      const first = read.annotations.find((annotation) => annotation.span_id === spanIds[0]);
      assert.equal(first?.result?.label, 'good');
      assert.equal(first?.annotator_kind, 'LLM');
    });

    it('runs getTraces with spans included', async () => {
      const { traces } = await getTraces({ client: phoenix, project: { projectName: 'phoenix-compat' }, includeSpans: true, limit: 10 });
      assert.deepEqual(new Set(traces.map((t) => t.trace_id)), new Set(traceIds));
      assert.ok(traces.every((t) => (t.spans?.length ?? 0) === 3));
    });

    it('is refused without the key', async () => {
      const anonymous = createClient({ options: { baseUrl: server().url, headers: {} } });
      await assert.rejects(getSpans({ client: anonymous, project: { projectName: 'phoenix-compat' } }), /401/);
    });
  },
  AUTH_ENV,
);
