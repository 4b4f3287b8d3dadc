/** `/v1/projects/{p}/saved_views`: a project's named searches and filters (docs/search.md, "Saved views"; Sightline addition). */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { SavedViewRecord } from '../../db/repositories/saved-views-repository.js';
import { MAX_VIEW_NAME_CHARS, MAX_VIEW_QUERY_CHARS, SAVED_VIEW_PAGES, type SavedViewsService } from '../../spans/saved-views-service.js';
import { identifier, toGlobalId } from '../shared/global-id.js';
import { DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { callerUserId } from '../shared/principal.js';
import { cursorParam, errors, limitParam, Page, ProjectPath, StringEnum } from '../shared/schemas.js';

const SavedView = Type.Object(
  {
    id: Type.String({ description: 'Opaque SavedView id.' }),
    name: Type.String(),
    page: StringEnum(SAVED_VIEW_PAGES, { description: 'The list the view applies to.' }),
    query: Type.String({ description: "The list's query string: q (search words), filter (a span condition), sort, order…" }),
    created_at: Type.String({ description: 'ISO 8601.' }),
  },
  { title: 'SavedView' },
);

const SaveViewBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: MAX_VIEW_NAME_CHARS,
      description: 'Unique in the project; saving again under it replaces the view.',
    }),
    page: StringEnum(SAVED_VIEW_PAGES),
    query: Type.String({ maxLength: MAX_VIEW_QUERY_CHARS, description: 'A query string such as `q=refund&filter=latency_ms+%3E+2000`.' }),
  },
  { title: 'SaveViewBody' },
);

const present = (view: SavedViewRecord) => ({
  id: toGlobalId('SavedView', view.id),
  name: view.name,
  page: view.page as (typeof SAVED_VIEW_PAGES)[number],
  query: view.query,
  created_at: view.createdAt,
});

export async function savedViewsRoutes(instance: FastifyInstance, { views }: { views: SavedViewsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['projects'];

  app.get(
    '/v1/projects/:project_identifier/saved_views',
    {
      schema: {
        tags,
        operationId: 'listSavedViews',
        summary: "List a project's saved views",
        description: 'Newest first, keyset-paginated.',
        params: ProjectPath,
        querystring: Type.Object({ limit: limitParam, cursor: cursorParam }),
        response: { 200: Page(SavedView), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await views.list(identifier('Project', request.params.project_identifier), {
        limit,
        fromId: cursorId('SavedView', request.query.cursor),
      });
      return pageAnswer('SavedView', rows, limit, present);
    },
  );

  app.post(
    '/v1/projects/:project_identifier/saved_views',
    {
      schema: {
        tags,
        operationId: 'saveView',
        summary: 'Save a view of a project',
        description: "Checks the view's search and filter, then saves it under its name (replacing a view of that name).",
        params: ProjectPath,
        body: SaveViewBody,
        response: { 200: Type.Object({ data: SavedView }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const view = await views.save(identifier('Project', request.params.project_identifier), {
        ...request.body,
        userId: callerUserId(request),
      });
      return { data: present(view) };
    },
  );

  app.delete(
    '/v1/projects/:project_identifier/saved_views/:view_id',
    {
      schema: {
        tags,
        operationId: 'deleteSavedView',
        summary: 'Delete a saved view',
        params: Type.Object({ ...ProjectPath.properties, view_id: Type.String({ description: 'SavedView id.' }) }),
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await views.delete(identifier('Project', request.params.project_identifier), identifier('SavedView', request.params.view_id));
      return reply.code(204).send(null);
    },
  );
}
