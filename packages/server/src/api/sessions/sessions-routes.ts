/** Sessions (docs/sessions.md): list a project's, get one, delete one or many (Phoenix-compatible). */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { SessionsService } from '../../sessions/sessions-service.js';
import { identifier } from '../shared/global-id.js';
import { DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { errors, limitParam, Page, ProjectPath, StringEnum } from '../shared/schemas.js';
import { presentSession } from './sessions-presenters.js';
import { DeleteSessionsBody, Session, SessionPath } from './sessions-schemas.js';

export async function sessionsRoutes(instance: FastifyInstance, { sessions }: { sessions: SessionsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['sessions'];

  app.get(
    '/v1/projects/:project_identifier/sessions',
    {
      schema: {
        tags,
        operationId: 'listProjectSessions',
        summary: 'List sessions for a project',
        description:
          'Sessions of the project in id order (oldest first unless `order=desc`), or by start time with `sort=start_time` or last ' +
          'activity with `sort=end_time` (Sightline additions), keyset-paginated, each with its traces, token sums, cost, error spans, ' +
          'trace count, duration, first input and last output.',
        params: ProjectPath,
        querystring: Type.Object({
          cursor: Type.Optional(
            Type.String({ description: 'The next_cursor of the previous page (a ProjectSession id); an invalid cursor answers 422.' }),
          ),
          limit: limitParam,
          order: Type.Optional(StringEnum(['asc', 'desc'] as const, { description: 'Ascending (the default) or descending.' })),
          sort: Type.Optional(
            StringEnum(['id', 'start_time', 'end_time'] as const, {
              description:
                'By session id, i.e. when ingest first saw the session (the default, as Phoenix), by when it started, or by its last ' +
                'activity, the end of its latest trace (Sightline additions).',
            }),
          ),
          user_id: Type.Optional(
            Type.String({ maxLength: 512, description: 'Only sessions with a trace of this user.id (Sightline addition).' }),
          ),
        }),
        response: { 200: Page(Session), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await sessions.list(identifier('Project', request.params.project_identifier), {
        limit,
        order: request.query.order,
        sort: request.query.sort,
        fromId: cursorId('ProjectSession', request.query.cursor),
        userId: request.query.user_id,
      });
      return pageAnswer('ProjectSession', rows, limit, presentSession);
    },
  );

  app.get(
    '/v1/sessions/:session_identifier',
    {
      schema: {
        tags,
        operationId: 'getSession',
        summary: 'Get session by ID or session_id',
        description:
          'One session with its traces in start order. A session.id text held by sessions of several projects answers 409: use the id.',
        params: SessionPath,
        response: { 200: Type.Object({ data: Session }), ...errors(404, 409, 422) },
      },
    },
    async (request) => ({ data: presentSession(await sessions.get(identifier('ProjectSession', request.params.session_identifier))) }),
  );

  app.delete(
    '/v1/sessions/:session_identifier',
    {
      schema: {
        tags,
        operationId: 'deleteSession',
        summary: 'Delete a session by identifier',
        description:
          'Deletes the session with its traces, their spans and annotations. Admins and system keys only (docs/api.md, "Permissions").',
        params: SessionPath,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404, 409, 422) },
      },
    },
    async (request, reply) => {
      await sessions.delete(identifier('ProjectSession', request.params.session_identifier));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/sessions/delete',
    {
      schema: {
        tags,
        operationId: 'deleteSessions',
        summary: 'Bulk delete sessions',
        description:
          'Deletes every named session with its traces; unknown identifiers are skipped. All identifiers must be of one kind ' +
          '(ids or session.id texts). Admins and system keys only (docs/api.md, "Permissions").',
        body: DeleteSessionsBody,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(409, 422) },
      },
    },
    async (request, reply) => {
      await sessions.deleteMany(request.body.session_identifiers.map((value) => identifier('ProjectSession', value)));
      return reply.code(204).send(null);
    },
  );
}
