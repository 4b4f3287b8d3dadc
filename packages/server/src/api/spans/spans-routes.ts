/** `/v1/projects/{p}/spans` (Phoenix's getSpans) and `/v1/spans/{span_identifier}` (one span). */
import { identifier } from '../shared/global-id.js';
import type { FastifyInstance } from 'fastify';
import { Type, type TSchema, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { SpanSubmissionService } from '../../spans/span-submission-service.js';
import type { SpansService } from '../../spans/spans-service.js';
import { annotationFilters, listWindow } from '../shared/list-query.js';
import { presentOtlpSpan, presentSpan, presentSpanDetail } from './spans-presenters.js';
import { stringifyExact } from '../shared/exact-json.js';
import {
  annotationFilterParams,
  cursorParam,
  endTimeParam,
  errors,
  limitParam,
  Nullable,
  orderParam,
  Page,
  ProjectPath,
  SpanKindParam,
  startTimeParam,
  StatusCodeParam,
  textFilterParams,
} from '../shared/schemas.js';
import { OtlpSpan, Span, SpanDetail } from './spans-schemas.js';

const repeated = <T extends TSchema>(item: T, description: string) => Type.Optional(Type.Array(item, { description }));

export const SpanListQuery = Type.Object({
  limit: limitParam,
  cursor: cursorParam,
  order: orderParam,
  start_time: startTimeParam,
  end_time: endTimeParam,
  trace_id: repeated(Type.String(), 'Only spans of these traces (OpenTelemetry trace ids; repeat the parameter).'),
  span_id: repeated(Type.String(), 'Only these spans (OpenTelemetry span ids; repeat the parameter).'),
  parent_id: Type.Optional(
    Type.String({ description: 'Only children of this span (OpenTelemetry span id); the literal `null` selects root spans.' }),
  ),
  name: repeated(Type.String(), 'Only spans with one of these names.'),
  span_kind: repeated(SpanKindParam, 'Only spans of these OpenInference kinds.'),
  status_code: repeated(StatusCodeParam, 'Only spans with these status codes.'),
  attribute: repeated(
    Type.String(),
    'Attribute filter `key:value`, split at the first colon; repeat to AND several. The value matches the attribute as a string, ' +
      'and also as a number or boolean when it reads as one (`llm.token_count.prompt:120`, `llm.streaming:true`); a JSON-quoted ' +
      'value (`user.id:"123"`) matches only the string. A missing colon, empty key or value, or a null, list or object value answers 422.',
  ),
  ...annotationFilterParams('spans'),
  ...textFilterParams('spans'),
});

/** Phoenix's spanSearch parameters: getSpans' without span_kind, order and the annotation filters. */
const OtlpSpanSearchQuery = Type.Object({
  cursor: cursorParam,
  limit: limitParam,
  start_time: startTimeParam,
  end_time: endTimeParam,
  trace_id: SpanListQuery.properties.trace_id,
  span_id: SpanListQuery.properties.span_id,
  parent_id: SpanListQuery.properties.parent_id,
  name: SpanListQuery.properties.name,
  status_code: SpanListQuery.properties.status_code,
  attribute: SpanListQuery.properties.attribute,
});

/** A span as phoenix-client's logSpans sends it (Phoenix's Span); formats are checked by the service, naming the span. */
const SpanInput = Type.Object(
  {
    id: Type.Optional(Type.String({ description: 'Ignored (the server assigns ids).' })),
    name: Type.String(),
    context: Type.Object({
      trace_id: Type.String({ description: 'OpenTelemetry trace id, 32 hex digits.' }),
      span_id: Type.String({ description: 'OpenTelemetry span id, 16 hex digits.' }),
    }),
    span_kind: Type.String({ description: 'OpenInference span kind; unknown kinds are stored as UNKNOWN.' }),
    parent_id: Type.Optional(Nullable(Type.String({ description: 'OpenTelemetry span id of the parent; null for a root span.' }))),
    start_time: Type.String({ description: 'ISO 8601 (UTC when no offset is given).' }),
    end_time: Type.String({ description: 'ISO 8601; not before start_time.' }),
    status_code: Type.String({ description: 'OK, ERROR or UNSET (anything else is stored as UNSET).' }),
    status_message: Type.Optional(Type.String({ default: '' })),
    attributes: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Attributes under dotted keys.' })),
    events: Type.Optional(
      Type.Array(
        Type.Object({
          name: Type.String(),
          timestamp: Type.String({ description: 'ISO 8601.' }),
          attributes: Type.Optional(Type.Object({}, { additionalProperties: true })),
        }),
      ),
    ),
  },
  { title: 'SpanInput' },
);

export async function spansRoutes(
  instance: FastifyInstance,
  { spans, spanSubmission }: { spans: SpansService; spanSubmission: SpanSubmissionService },
) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['spans'];

  app.get(
    '/v1/projects/:project_identifier/spans',
    {
      schema: {
        tags,
        operationId: 'getSpans',
        summary: 'List spans with simple filters (no DSL)',
        description:
          'Spans of a project, newest first (start_time, then id; `order=asc` for oldest first), keyset-paginated. ' +
          'Filters combine with AND; repeated values of one filter combine with OR.',
        params: ProjectPath,
        querystring: SpanListQuery,
        response: { 200: Page(Span), ...errors(404, 422) },
      },
    },
    async (request) => {
      const query = request.query;
      const result = await spans.list(identifier('Project', request.params.project_identifier), {
        ...listWindow(query),
        ...annotationFilters(query),
        traceIds: query.trace_id,
        spanIds: query.span_id,
        parentId: query.parent_id,
        names: query.name,
        spanKinds: query.span_kind,
        statusCodes: query.status_code,
        attributes: query.attribute,
        search: query.search,
        filter: query.filter,
      });
      return { data: result.spans.map(presentSpan), next_cursor: result.nextCursor };
    },
  );

  app.get(
    '/v1/projects/:project_identifier/span_attribute_keys',
    {
      schema: {
        tags,
        operationId: 'listSpanAttributeKeys',
        summary: 'Attribute keys of recent spans (Sightline addition)',
        description:
          "The sorted attribute keys of the project's 2,000 newest spans (at most 500) that a `filter` condition can test: " +
          'what the UI offers to complete. Long OpenInference lists (messages, documents) are not among them.',
        params: ProjectPath,
        response: { 200: Type.Object({ data: Type.Array(Type.String()) }, { title: 'SpanAttributeKeys' }), ...errors(404) },
      },
    },
    async (request) => ({ data: await spans.attributeKeys(identifier('Project', request.params.project_identifier)) }),
  );

  app.get(
    '/v1/projects/:project_identifier/spans/otlpv1',
    {
      schema: {
        tags,
        operationId: 'spanSearch',
        summary: 'Search spans with simple filters (no DSL)',
        description:
          "The spans of getSpans, with the same filters (less span_kind) and order (newest first), in Phoenix's OTLP/JSON-like " +
          'shape: snake_case, hex ids, times as integer nanoseconds, attributes as key/value pairs. Keyset-paginated.',
        params: ProjectPath,
        querystring: OtlpSpanSearchQuery,
        response: { 200: Page(OtlpSpan), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const result = await spans.list(identifier('Project', request.params.project_identifier), {
        ...listWindow(query),
        traceIds: query.trace_id,
        spanIds: query.span_id,
        parentId: query.parent_id,
        names: query.name,
        statusCodes: query.status_code,
        attributes: query.attribute,
      });
      // Written by hand so that nanosecond times keep every digit (JavaScript numbers would round them).
      const body = stringifyExact({ next_cursor: result.nextCursor, data: result.spans.map(presentOtlpSpan) });
      // A string with a JSON content type is sent as it is (the schema above documents it).
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  app.get(
    '/v1/spans/:span_identifier',
    {
      schema: {
        tags,
        operationId: 'getSpan',
        summary: 'Get a span by ID or OpenTelemetry span id',
        description:
          'One span with all its attributes and events, and the id of its project (Sightline route; Phoenix has only DELETE here).',
        params: Type.Object({
          span_identifier: Type.String({ description: 'Span id (base64 "Span:<id>") or OpenTelemetry span id (16 hex digits).' }),
        }),
        response: { 200: Type.Object({ data: SpanDetail }), ...errors(404, 422) },
      },
    },
    async (request) => ({ data: presentSpanDetail(await spans.get(identifier('Span', request.params.span_identifier))) }),
  );

  app.post(
    '/v1/projects/:project_identifier/spans',
    {
      schema: {
        tags,
        operationId: 'createSpans',
        summary: 'Create spans',
        description:
          'Stores the spans in the project (a project id, or a name: a new name creates the project), all or nothing: a span id ' +
          'already stored or repeated, or a malformed span, refuses the whole request with 400 naming each. Answers 202 once the ' +
          'spans are committed (through the same write path as OTLP ingest).',
        params: ProjectPath,
        body: Type.Object({ data: Type.Array(SpanInput, { maxItems: 10_000 }) }),
        response: {
          202: Type.Object(
            {
              total_received: Type.Integer(),
              total_queued: Type.Integer({ description: 'Spans stored (all of them, or the request fails).' }),
            },
            { title: 'CreateSpansResponseBody' },
          ),
          ...errors(400, 404, 422, 503),
        },
      },
    },
    async (request, reply) => {
      const result = await spanSubmission.create(identifier('Project', request.params.project_identifier), request.body.data);
      return reply.code(202).send({ total_received: result.totalReceived, total_queued: result.totalQueued });
    },
  );

  app.delete(
    '/v1/spans/:span_identifier',
    {
      schema: {
        tags,
        operationId: 'deleteSpan',
        summary: 'Delete a span by span_identifier',
        description:
          'Deletes only this span and its annotations; its children stay (as orphans), and a trace left without spans is deleted. ' +
          'Admins and system keys only (docs/api.md, "Permissions").',
        params: Type.Object({
          span_identifier: Type.String({ description: 'Span id (base64 "Span:<id>") or OpenTelemetry span id (16 hex digits).' }),
        }),
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await spans.delete(identifier('Span', request.params.span_identifier));
      return reply.code(204).send(null);
    },
  );
}
