/** `/v1/user` (the caller) and `/v1/users` (admin user management). */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { UsersService } from '../../auth/users-service.js';
import { InvalidInputError, NotFoundError } from '@sightline/common';
import { fromGlobalId } from '../shared/global-id.js';
import { PageQuery, DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { presentUser } from './users-presenters.js';
import { requireUser } from '../shared/principal.js';
import { User, Viewer, NoContent } from '../auth/auth-schemas.js';
import { errors, Page } from '../shared/schemas.js';
import { passwordGuessRateLimit } from '../shared/rate-limits.js';
import type { Config } from '../../config.js';

const UserId = Type.Object({ user_id: Type.String() });

function userIdOf(value: string): number {
  const id = fromGlobalId('User', value);
  if (id === null) throw new NotFoundError('user not found');
  return id;
}

export async function usersRoutes(instance: FastifyInstance, { users, config }: { users: UsersService; config: Config }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['users'];

  app.get(
    '/v1/user',
    {
      schema: {
        tags,
        summary: 'The authenticated user (viewer)',
        operationId: 'getViewer',
        response: { 200: Type.Object({ data: Viewer }), ...errors() },
      },
    },
    async (request) => {
      const principal = request.principal;
      if (principal.kind === 'anonymous') return { data: { auth_method: 'ANONYMOUS' as const } };
      if (principal.kind === 'system') return { data: { auth_method: 'SYSTEM' as const, role: 'system' as const } };
      return { data: presentUser(await users.get(principal.user.id)) };
    },
  );

  app.patch(
    '/v1/user',
    {
      config: passwordGuessRateLimit(config),
      schema: {
        tags,
        summary: 'Change your own username, or your password (with the current one)',
        operationId: 'updateViewer',
        response: { 200: Type.Object({ data: User }), ...errors(409, 422) },
        body: Type.Object(
          {
            username: Type.Optional(Type.String()),
            password: Type.Optional(Type.String()),
            current_password: Type.Optional(Type.String()),
          },
          { additionalProperties: true },
        ),
      },
    },
    async (request) => {
      const body = request.body as { username?: string; password?: string; current_password?: string; email?: unknown };
      if (body.email !== undefined) throw new InvalidInputError('email cannot be changed');
      const user = await users.updateSelf(requireUser(request), {
        username: body.username,
        password: body.password,
        currentPassword: body.current_password,
      });
      return { data: presentUser(user) };
    },
  );

  app.get(
    '/v1/users',
    {
      schema: {
        tags,
        summary: 'List active users',
        operationId: 'getUsers',
        querystring: PageQuery,
        response: { 200: Page(User), ...errors(422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      return pageAnswer('User', await users.list(limit + 1, cursorId('User', request.query.cursor)), limit, presentUser);
    },
  );

  app.post(
    '/v1/users',
    {
      schema: {
        tags,
        summary: 'Create a user',
        operationId: 'createUser',
        response: { 201: Type.Object({ data: User }), ...errors(409, 422) },
        body: Type.Object({
          user: Type.Object({
            email: Type.String({ description: 'Trimmed and lower-cased; unique; never changes.' }),
            username: Type.String({ description: '1 to 100 characters after trimming; unique.' }),
            role: Type.String({ description: '`admin` or `member`, in any case.', examples: ['admin', 'member'] }),
            auth_method: Type.Optional(
              Type.String({
                description: '`LOCAL` (default), `OAUTH2` or `LDAP` (signs in with POST /auth/ldap/login, matched by email), in any case.',
                examples: ['LOCAL', 'OAUTH2', 'LDAP'],
              }),
            ),
            password: Type.Optional(Type.String({ description: '8 to 256 characters, not all whitespace (LOCAL users only).' })),
          }),
          send_welcome_email: Type.Optional(Type.Boolean()),
        }),
      },
    },
    async (request, reply) => {
      const { user } = request.body;
      const created = await users.create({
        email: user.email,
        username: user.username,
        role: user.role,
        authMethod: user.auth_method ?? 'LOCAL',
        password: user.password,
      });
      return reply.code(201).send({ data: presentUser(created) });
    },
  );

  app.get(
    '/v1/users/:user_id',
    {
      schema: {
        tags,
        summary: 'Read a user',
        operationId: 'getUser',
        params: UserId,
        response: { 200: Type.Object({ data: User }), ...errors(404) },
      },
    },
    async (request) => ({
      data: presentUser(await users.read(requireUser(request), userIdOf(request.params.user_id))),
    }),
  );

  app.patch(
    '/v1/users/:user_id',
    {
      schema: {
        tags,
        summary: "Change a user's username, password or role",
        operationId: 'updateUser',
        response: { 200: Type.Object({ data: User }), ...errors(404, 409, 422) },
        params: UserId,
        body: Type.Object(
          {
            username: Type.Optional(Type.String({ description: '1 to 100 characters after trimming; unique.' })),
            password: Type.Optional(
              Type.String({ description: '8 to 256 characters, not all whitespace; the user must change it at next login.' }),
            ),
            role: Type.Optional(Type.String({ description: '`admin` or `member`, in any case.', examples: ['admin', 'member'] })),
          },
          { additionalProperties: true },
        ),
      },
    },
    async (request) => {
      const body = request.body as { username?: string; password?: string; role?: string; email?: unknown };
      const updated = await users.update(requireUser(request), userIdOf(request.params.user_id), body);
      return { data: presentUser(updated) };
    },
  );

  app.delete(
    '/v1/users/:user_id',
    {
      schema: {
        tags,
        summary: 'Delete a user for good',
        operationId: 'deleteUser',
        params: UserId,
        response: { 204: NoContent('Deleted'), ...errors(404, 409) },
      },
    },
    async (request, reply) => {
      await users.delete(requireUser(request), userIdOf(request.params.user_id));
      return reply.code(204).send(null);
    },
  );
}
