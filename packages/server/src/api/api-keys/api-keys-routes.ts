/** User and system API keys. */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ApiKeysService, CreatedApiKey } from '../../auth/api-keys-service.js';
import { NotFoundError } from '@sightline/common';
import { fromGlobalId } from '../shared/global-id.js';
import { DEFAULT_LIMIT, PageQuery, cursorId, pageAnswer } from '../shared/pagination.js';
import { presentApiKey, presentUserApiKey } from '../users/users-presenters.js';
import { requireUser } from '../shared/principal.js';
import { errors, Nullable, Page } from '../shared/schemas.js';
import { ApiKey, CreatedApiKey as CreatedApiKeySchema, NoContent, UserApiKey } from '../auth/auth-schemas.js';

const KeyId = Type.Object({ api_key_id: Type.String() });
const CreateKeyBody = Type.Object({
  data: Type.Object({
    name: Type.String(),
    // Nullable, not a union with Null: the validator would coerce null to "".
    description: Type.Optional(Nullable(Type.String())),
    expires_at: Type.Optional(Nullable(Type.String())),
  }),
});

function keyIdOf(value: string): number {
  const id = fromGlobalId('ApiKey', value);
  if (id === null) throw new NotFoundError('API key not found');
  return id;
}

const created = (key: CreatedApiKey) => ({ data: { ...presentApiKey(key), key: key.key } });

export async function apiKeysRoutes(instance: FastifyInstance, { apiKeys }: { apiKeys: ApiKeysService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['api_keys'];

  app.get(
    '/v1/user/api_keys',
    {
      schema: {
        tags,
        summary: 'Your user API keys',
        operationId: 'getUserApiKeys',
        response: { 200: Type.Object({ data: Type.Array(ApiKey) }), ...errors() },
      },
    },
    async (request) => ({
      data: (await apiKeys.listOwn(requireUser(request))).map(presentApiKey),
    }),
  );

  app.post(
    '/v1/user/api_keys',
    {
      schema: {
        tags,
        summary: 'Create a user API key (the key is shown once)',
        operationId: 'createUserApiKey',
        body: CreateKeyBody,
        response: { 201: Type.Object({ data: CreatedApiKeySchema }), ...errors(422) },
      },
    },
    async (request, reply) => {
      const { name, description, expires_at } = request.body.data;
      return reply.code(201).send(created(await apiKeys.createUserKey(requireUser(request), { name, description, expiresAt: expires_at })));
    },
  );

  app.delete(
    '/v1/user/api_keys/:api_key_id',
    {
      schema: {
        tags,
        summary: 'Delete a user API key (yours; admins: anyone’s)',
        operationId: 'deleteUserApiKey',
        params: KeyId,
        response: { 204: NoContent('Deleted'), ...errors(404) },
      },
    },
    async (request, reply) => {
      await apiKeys.deleteUserKey(requireUser(request), keyIdOf(request.params.api_key_id));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/users/api_keys',
    {
      schema: {
        tags,
        summary: 'Every user API key with its owner',
        operationId: 'getAllUserApiKeys',
        querystring: PageQuery,
        response: { 200: Page(UserApiKey), ...errors(422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      return pageAnswer(
        'ApiKey',
        await apiKeys.listUserKeys(limit + 1, cursorId('ApiKey', request.query.cursor)),
        limit,
        presentUserApiKey,
      );
    },
  );

  app.get(
    '/v1/system/api_keys',
    {
      schema: {
        tags,
        summary: 'System API keys',
        operationId: 'getSystemApiKeys',
        response: { 200: Type.Object({ data: Type.Array(ApiKey) }), ...errors() },
      },
    },
    async () => ({
      data: (await apiKeys.listSystem()).map(presentApiKey),
    }),
  );

  app.post(
    '/v1/system/api_keys',
    {
      schema: {
        tags,
        summary: 'Create a system API key (the key is shown once)',
        operationId: 'createSystemApiKey',
        body: CreateKeyBody,
        response: { 201: Type.Object({ data: CreatedApiKeySchema }), ...errors(422) },
      },
    },
    async (request, reply) => {
      const { name, description, expires_at } = request.body.data;
      return reply
        .code(201)
        .send(created(await apiKeys.createSystemKey(requireUser(request), { name, description, expiresAt: expires_at })));
    },
  );

  app.delete(
    '/v1/system/api_keys/:api_key_id',
    {
      schema: {
        tags,
        summary: 'Delete a system API key',
        operationId: 'deleteSystemApiKey',
        params: KeyId,
        response: { 204: NoContent('Deleted'), ...errors(404) },
      },
    },
    async (request, reply) => {
      await apiKeys.deleteSystemKey(keyIdOf(request.params.api_key_id));
      return reply.code(204).send(null);
    },
  );
}
