/** `POST /v1/span_annotations` (annotateSpans) and `GET /v1/projects/{p}/span_annotations` (Phoenix-compatible). */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { SpanAnnotationsService } from '../query/span-annotations-service.js';
import { DEFAULT_LIMIT, cursorId, page } from './pagination.js';
import { presentSpanAnnotation } from './query-presenters.js';
import { Nullable, ProjectPath, SpanAnnotation, SpanAnnotationData, errors, limitParam } from './query-schemas.js';
import { toGlobalId, identifier } from './global-id.js';

export async function spanAnnotationsRoutes(instance: FastifyInstance, { spanAnnotations }: { spanAnnotations: SpanAnnotationsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['annotations'];

  app.post(
    '/v1/span_annotations',
    {
      schema: {
        tags: ['spans'],
        operationId: 'annotateSpans',
        summary: 'Create span annotations',
        description:
          'Creates each annotation, or updates the one with the same name, span and identifier. Always synchronous: the ids are ' +
          'returned in request order whatever `sync` says. All or nothing: 404 when a span does not exist; the name "note" is reserved (422).',
        querystring: Type.Object({
          sync: Type.Optional(
            Type.Boolean({ default: false, description: 'Accepted for Phoenix compatibility; writes are always synchronous.' }),
          ),
        }),
        body: Type.Object({ data: Type.Array(SpanAnnotationData) }),
        response: {
          200: Type.Object({ data: Type.Array(Type.Object({ id: Type.String() }, { title: 'InsertedSpanAnnotation' })) }),
          ...errors(404, 422),
        },
      },
    },
    async (request) => {
      const principal = request.principal;
      const userId = principal?.kind === 'user' ? principal.user.id : null;
      const ids = await spanAnnotations.annotate(request.body.data, userId);
      return { data: ids.map((id) => ({ id: toGlobalId('SpanAnnotation', id) })) };
    },
  );

  app.get(
    '/v1/projects/:project_identifier/span_annotations',
    {
      schema: {
        tags,
        operationId: 'listSpanAnnotationsBySpanIds',
        summary: 'Get span annotations filtered by span_ids and/or identifier.',
        description:
          "Annotations of the project's spans, newest first, keyset-paginated. At least one of span_ids or identifier is required " +
          '(422); at most 1000 of each. 404 when only span_ids are given and none of them is a span of the project.',
        params: ProjectPath,
        querystring: Type.Object({
          span_ids: Type.Optional(Type.Array(Type.String(), { description: 'OpenTelemetry span ids (repeat the parameter).' })),
          identifier: Type.Optional(
            Type.Array(Type.String({ minLength: 1 }), { description: 'Annotation identifiers (repeat the parameter).' }),
          ),
          include_annotation_names: Type.Optional(Type.Array(Type.String(), { description: 'Only annotations with these names.' })),
          exclude_annotation_names: Type.Optional(Type.Array(Type.String(), { description: 'No annotations with these names.' })),
          cursor: Type.Optional(
            Type.String({ description: 'The next_cursor of the previous page (a SpanAnnotation id); an invalid cursor answers 422.' }),
          ),
          limit: limitParam,
        }),
        response: { 200: Type.Object({ data: Type.Array(SpanAnnotation), next_cursor: Nullable(Type.String()) }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await spanAnnotations.list(identifier('Project', request.params.project_identifier), {
        ...request.query,
        limit,
        fromId: cursorId('SpanAnnotation', request.query.cursor),
      });
      const result = page('SpanAnnotation', rows, limit);
      return { data: result.rows.map(presentSpanAnnotation), next_cursor: result.nextCursor };
    },
  );
}
