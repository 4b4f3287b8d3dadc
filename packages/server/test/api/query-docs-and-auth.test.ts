/** The query routes in the OpenAPI document, and their access rule with auth on: any valid credential, system keys included. */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachDialect } from '../helpers/server.js';
import {
  AUTH_ENV,
  anonymous,
  bearerClient,
  createActiveUser,
  createSystemKey,
  expectStatus,
  sessionOf,
  setupDefaultAdmin,
  unique,
  type TestUser,
} from '../helpers/auth.js';
import { at, newTraceId, otlpJson } from '../helpers/query.js';

/** Every route of the query API with its Phoenix-style operationId. */
const ROUTES: [method: string, path: string, operationId: string][] = [
  ['get', '/v1/projects', 'getProjects'],
  ['post', '/v1/projects', 'createProject'],
  ['get', '/v1/projects/{project_identifier}', 'getProject'],
  ['put', '/v1/projects/{project_identifier}', 'updateProject'],
  ['delete', '/v1/projects/{project_identifier}', 'deleteProject'],
  ['get', '/v1/projects/{project_identifier}/summary', 'getProjectSummary'],
  ['get', '/v1/projects/{project_identifier}/timeseries', 'getProjectTimeseries'],
  ['get', '/v1/projects/{project_identifier}/spans', 'getSpans'],
  ['get', '/v1/spans/{span_identifier}', 'getSpan'],
  ['get', '/v1/projects/{project_identifier}/traces', 'listProjectTraces'],
  ['get', '/v1/projects/{project_identifier}/traces/{trace_identifier}', 'getTrace'],
  ['post', '/v1/span_annotations', 'annotateSpans'],
  ['get', '/v1/projects/{project_identifier}/span_annotations', 'listSpanAnnotationsBySpanIds'],
];

interface Operation {
  operationId?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Record<string, unknown> }[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses?: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
}

describeEachDialect('query API documentation', (server) => {
  it('lists every query route in the OpenAPI document with its operationId, parameters and response schema', async () => {
    const document = (await (await fetch(`${server().url}/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    const operationIds = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.operationId),
    );
    for (const [method, path, operationId] of ROUTES) {
      const operation = document.paths[path]?.[method];
      assert.ok(operation, `${method.toUpperCase()} ${path} is documented`);
      assert.equal(operation.operationId, operationId, `${method.toUpperCase()} ${path}`);
      assert.equal(operationIds.filter((id) => id === operationId).length, 1, `${operationId} is unique`);
      assert.ok(operation.tags?.length, `${operationId} has a tag`);
      const success = operation.responses?.[method === 'delete' ? '204' : '200'];
      assert.ok(success, `${operationId} documents its success response`);
      if (method !== 'delete') assert.ok(success.content?.['application/json']?.schema, `${operationId} has a response schema`);
      for (const status of ['401', '422']) assert.ok(operation.responses?.[status], `${operationId} documents ${status}`);
      for (const name of path.match(/\{(\w+)\}/g) ?? []) {
        const parameter = operation.parameters?.find((candidate) => candidate.in === 'path' && `{${candidate.name}}` === name);
        assert.ok(parameter?.required, `${operationId} documents path parameter ${name}`);
      }
    }
    const spans = document.paths['/v1/projects/{project_identifier}/spans']!.get!;
    const queryNames = spans
      .parameters!.filter((parameter) => parameter.in === 'query')
      .map((parameter) => parameter.name)
      .sort();
    assert.deepEqual(queryNames, [
      'annotation',
      'annotation_score',
      'attribute',
      'cursor',
      'end_time',
      'filter',
      'limit',
      'name',
      'order',
      'parent_id',
      'search',
      'span_id',
      'span_kind',
      'start_time',
      'status_code',
      'trace_id',
    ]);
    const limit = spans.parameters!.find((parameter) => parameter.name === 'limit')!.schema!;
    assert.deepEqual([limit.minimum, limit.maximum, limit.default], [1, 1000, 100]);
    // The list names its items' shape: a $ref to the Span component, which holds the fields.
    const schemas = (document as unknown as { components: { schemas: Record<string, unknown> } }).components.schemas;
    const listSchema = JSON.stringify(spans.responses!['200']!.content!['application/json']!.schema);
    assert.ok(listSchema.includes('"#/components/schemas/Span"'), `the span list refers to the Span component: ${listSchema}`);
    for (const name of ['User', 'Project', 'Span', 'TraceData', 'SpanAnnotation', 'ApiKey', 'ErrorBody']) {
      assert.ok(schemas[name], `components.schemas names ${name}`);
    }
    const spanSchema = JSON.stringify(schemas.Span) + JSON.stringify(schemas.SpanContext);
    for (const field of [
      'context',
      'trace_id',
      'latency_ms',
      'token_count_prompt',
      'token_count_completion',
      'token_count_total',
      'events',
    ]) {
      assert.ok(spanSchema.includes(`"${field}"`), `the Span schema documents ${field}`);
    }
    const annotate = document.paths['/v1/span_annotations']!.post!;
    const annotateBody = JSON.stringify(annotate.requestBody?.content['application/json']?.schema);
    assert.ok(annotateBody.includes('"#/components/schemas/SpanAnnotationData"'), annotateBody);
    assert.ok(JSON.stringify(schemas.SpanAnnotationData).includes('annotator_kind'));
  });
});

describeEachDialect(
  'query API with authentication',
  (server) => {
    let admin: TestUser;
    let member: TestUser;
    let systemKey: string;
    const project = unique('auth-project');
    let spanId = '';

    before(async () => {
      admin = await setupDefaultAdmin(server().url);
      systemKey = (await createSystemKey(sessionOf(server().url, admin))).key;
      member = await createActiveUser(server().url, sessionOf(server().url, admin), 'member');
      const body = otlpJson(project, [{ traceId: newTraceId(), start: at(0), name: 'secured' }]);
      spanId = body.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.spanId;
      const response = await fetch(`${server().url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${systemKey}` },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 200);
    });

    it('answers 401 on every query route without a credential', async () => {
      const client = anonymous(server().url);
      for (const [method, path] of ROUTES) {
        const concrete = path
          .replace('{project_identifier}', encodeURIComponent(project))
          .replace('{span_identifier}', spanId)
          .replace('{trace_identifier}', newTraceId());
        const response = await client.request(
          method.toUpperCase(),
          concrete,
          method === 'get' || method === 'delete' ? {} : { body: { data: [], name: 'x' } },
        );
        expectStatus(response, 401, `${method.toUpperCase()} ${path}`);
      }
      expectStatus(await bearerClient(server().url, 'sk-sl-not-a-key').get('/v1/projects'), 401);
    });

    it('lets a system key, a member key and an admin session read and write project data; deleting a project is not for members', async () => {
      for (const [client, deletes] of [
        [bearerClient(server().url, systemKey), 204],
        [bearerClient(server().url, member.key), 403],
        [sessionOf(server().url, admin), 204],
      ] as const) {
        const projects = expectStatus(await client.get('/v1/projects'), 200).body.data as { name: string }[];
        assert.ok(projects.some((candidate) => candidate.name === project));
        const spans = expectStatus(await client.get(`/v1/projects/${encodeURIComponent(project)}/spans`), 200).body.data as {
          name: string;
        }[];
        assert.deepEqual(
          spans.map((span) => span.name),
          ['secured'],
        );
        expectStatus(await client.get(`/v1/spans/${spanId}`), 200);
        expectStatus(await client.get(`/v1/projects/${encodeURIComponent(project)}/summary`), 200);
        const created = expectStatus(await client.post('/v1/projects', { name: unique('made-with-auth') }), 200);
        expectStatus(await client.request('DELETE', `/v1/projects/${created.body.data.id}`), deletes);
      }
    });

    it('records the annotating user: null for a system key, the key owner for a user key', async () => {
      const annotate = async (token: string, name: string) =>
        expectStatus(
          await bearerClient(server().url, token).post('/v1/span_annotations', {
            data: [{ span_id: spanId, name, annotator_kind: 'HUMAN', result: { score: 1 } }],
          }),
          200,
        );
      await annotate(systemKey, 'by-system');
      await annotate(member.key, 'by-member');
      const rows = expectStatus(
        await bearerClient(server().url, systemKey).get(`/v1/projects/${encodeURIComponent(project)}/span_annotations?span_ids=${spanId}`),
        200,
      ).body.data as { name: string; user_id: string | null }[];
      assert.deepEqual(
        rows.map((row) => [row.name, row.user_id]),
        [
          ['by-member', member.id],
          ['by-system', null],
        ],
      );
    });
  },
  AUTH_ENV,
);
