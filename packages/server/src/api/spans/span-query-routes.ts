/** POST /v1/spans: Phoenix's span query (querySpans), what phoenix-client's get_spans_dataframe calls. */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { SpanQueryService } from '../../spans/span-query-service.js';
import { MAX_SPAN_QUERIES, MAX_SPAN_QUERY_LIMIT } from '../../spans/span-query-service.js';
import { identifier } from '../shared/global-id.js';
import { errors, Nullable } from '../shared/schemas.js';
import { presentSpanTables } from './span-query-presenters.js';

const QueryPart = (description: string) => Type.Optional(Nullable(Type.Object({}, { additionalProperties: true, description })));

const SpanQueryBody = Type.Object(
  {
    select: QueryPart('Columns to read: `{name: {key: projection}}`; a projection is a span column or an attribute name.'),
    filter: QueryPart('`{condition: "..."}`: the condition spans must meet (docs/api.md, "Span queries").'),
    explode: QueryPart(
      '`{key, kwargs?, primary_index_key?}`: a row per object of the list attribute `key`, indexed by (primary index, position).',
    ),
    concat: QueryPart("`{key, kwargs?, separator?}`: the list attribute `key` (or the kwargs' element fields) joined into text columns."),
    rename: QueryPart('`{column: new name}`.'),
    index: QueryPart('`{key: projection}`: the index column (default context.span_id).'),
  },
  { title: 'SpanQuery', additionalProperties: true },
);

const QuerySpansBody = Type.Object(
  {
    queries: Type.Array(SpanQueryBody, { minItems: 1, maxItems: MAX_SPAN_QUERIES, description: 'One result table per query.' }),
    start_time: Type.Optional(Nullable(Type.String({ description: 'Inclusive lower bound on start time (ISO 8601).' }))),
    end_time: Type.Optional(Nullable(Type.String({ description: 'Exclusive upper bound on start time (ISO 8601).' }))),
    stop_time: Type.Optional(Nullable(Type.String({ description: 'Deprecated name of end_time.' }))),
    limit: Type.Integer({ minimum: 1, maximum: MAX_SPAN_QUERY_LIMIT, default: 1000, description: 'Spans read per query, newest first.' }),
    root_spans_only: Type.Optional(Nullable(Type.Boolean({ description: 'Only root spans.' }))),
    orphan_span_as_root_span: Type.Boolean({
      default: true,
      description: 'With root_spans_only: also spans whose parent is not stored.',
    }),
    project_name: Type.Optional(Nullable(Type.String({ description: 'Deprecated: the project_name query parameter.' }))),
  },
  { title: 'QuerySpansRequestBody' },
);

const QuerySpansQuery = Type.Object({
  project_name: Type.Optional(Type.String({ description: 'The project (default: `default`).' })),
  project_id: Type.Optional(Type.String({ description: 'The project by Project GlobalID or name (a Sightline addition).' })),
});

export async function spanQueryRoutes(instance: FastifyInstance, { spanQuery }: { spanQuery: SpanQueryService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/spans',
    {
      schema: {
        tags: ['spans'],
        operationId: 'querySpans',
        summary: 'Query spans with the query DSL',
        description:
          "Phoenix's span query: each query reads up to `limit` spans of the project (newest first) that meet its condition " +
          'and answers one part of a multipart/mixed body, a pandas table-schema JSON document (docs/api.md, "Span queries").',
        querystring: QuerySpansQuery,
        body: QuerySpansBody,
        // A multipart/mixed text: typed as unknown so the string is sent as it is.
        response: { 200: Type.Unsafe<unknown>({ type: 'string' }), ...errors(404, 422, 503) },
      },
    },
    async (request, reply) => {
      const { query, body } = request;
      const project =
        query.project_id !== undefined
          ? identifier('Project', query.project_id)
          : { text: query.project_name || body.project_name || 'default', rowId: null };
      const tables = await spanQuery.query(project, {
        queries: body.queries,
        startTime: body.start_time ?? undefined,
        endTime: body.end_time ?? body.stop_time ?? undefined,
        limit: body.limit,
        rootSpansOnly: body.root_spans_only ?? undefined,
        orphanSpanAsRootSpan: body.orphan_span_as_root_span,
      });
      const answer = presentSpanTables(tables);
      return reply.type(answer.contentType).send(answer.body);
    },
  );
}
