/** Model prices behind the cost figures: the shipped list and the admins' overrides (docs/costs.md). */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ModelRecord } from '../../db/repositories/costs-repository.js';
import type { CostsService, ModelInput } from '../../costs/costs-service.js';
import { identifier, toGlobalId } from '../shared/global-id.js';
import { Nullable, errors } from '../shared/schemas.js';

const Price = (description: string) => Type.Number({ minimum: 0, description });

const ModelPrice = Type.Object(
  {
    id: Type.String({ description: 'base64 "GenerativeModel:<id>".' }),
    name: Type.String(),
    provider: Nullable(Type.String({ description: 'llm.provider this price is for (null: any provider).' })),
    name_pattern: Type.String({ description: 'Regular expression matched case-insensitively against llm.model_name.' }),
    is_built_in: Type.Boolean({ description: 'Shipped with Sightline (read-only); overrides win over shipped prices.' }),
    input_per_million: Price('USD per million prompt tokens.'),
    output_per_million: Price('USD per million completion tokens.'),
    cache_read_per_million: Nullable(Price('USD per million cached prompt tokens read (null: the input price).')),
    cache_write_per_million: Nullable(Price('USD per million prompt tokens written to the cache (null: the input price).')),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'ModelPrice' },
);

const ModelPriceBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  provider: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  name_pattern: Type.String({ minLength: 1, maxLength: 500 }),
  input_per_million: Type.Number(),
  output_per_million: Type.Number(),
  cache_read_per_million: Type.Optional(Nullable(Type.Number())),
  cache_write_per_million: Type.Optional(Nullable(Type.Number())),
});

const ModelPath = Type.Object({ model_id: Type.String({ description: 'A model price id (base64 "GenerativeModel:<id>").' }) });

function presentModel(model: ModelRecord) {
  return {
    id: toGlobalId('GenerativeModel', model.id),
    name: model.name,
    provider: model.provider,
    name_pattern: model.namePattern,
    is_built_in: model.isBuiltIn,
    input_per_million: model.inputPerMillion,
    output_per_million: model.outputPerMillion,
    cache_read_per_million: model.cacheReadPerMillion,
    cache_write_per_million: model.cacheWritePerMillion,
    created_at: model.createdAt,
    updated_at: model.updatedAt,
  };
}

const inputOf = (body: typeof ModelPriceBody.static): ModelInput => ({
  name: body.name,
  provider: body.provider,
  namePattern: body.name_pattern,
  inputPerMillion: body.input_per_million,
  outputPerMillion: body.output_per_million,
  cacheReadPerMillion: body.cache_read_per_million,
  cacheWritePerMillion: body.cache_write_per_million,
});

export async function modelPricesRoutes(instance: FastifyInstance, { costs }: { costs: CostsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['model_prices'];
  const modelOf = (params: { model_id: string }) => identifier('GenerativeModel', params.model_id);

  app.get(
    '/v1/model_prices',
    {
      schema: {
        tags,
        operationId: 'listModelPrices',
        summary: 'Model prices: overrides first, then the shipped prices',
        response: { 200: Type.Object({ data: Type.Array(ModelPrice) }), ...errors() },
      },
    },
    async () => ({ data: (await costs.list()).map(presentModel) }),
  );

  app.post(
    '/v1/model_prices',
    {
      schema: {
        tags,
        operationId: 'createModelPrice',
        summary: 'Add a price override (admins)',
        description: 'Overrides win over shipped prices for the model names their pattern matches. Spans without a price yet are priced.',
        body: ModelPriceBody,
        response: { 200: Type.Object({ data: ModelPrice }), ...errors(409, 422) },
      },
    },
    async (request) => ({ data: presentModel(await costs.create(inputOf(request.body))) }),
  );

  app.patch(
    '/v1/model_prices/:model_id',
    {
      schema: {
        tags,
        operationId: 'updateModelPrice',
        summary: 'Change a price override (admins; shipped prices are read-only)',
        params: ModelPath,
        body: ModelPriceBody,
        response: { 200: Type.Object({ data: ModelPrice }), ...errors(404, 409, 422) },
      },
    },
    async (request) => ({ data: presentModel(await costs.update(modelOf(request.params), inputOf(request.body))) }),
  );

  app.delete(
    '/v1/model_prices/:model_id',
    {
      schema: {
        tags,
        operationId: 'deleteModelPrice',
        summary: 'Delete a price override (admins)',
        params: ModelPath,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await costs.delete(modelOf(request.params));
      return reply.code(204).send(null);
    },
  );
}
