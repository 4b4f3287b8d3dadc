/** `/v1/datasets/{dataset_identifier}/splits`: create, change and delete dataset splits; Phoenix-compatible (docs/datasets.md, "Splits"). */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { DatasetSplitWithCount, DatasetSplitsService } from '../../datasets/dataset-splits-service.js';
import { identifier, toGlobalId } from '../shared/global-id.js';
import { callerUserId } from '../shared/principal.js';
import { errors } from '../shared/schemas.js';
import {
  CreateDatasetSplitBody,
  DatasetSplit,
  DatasetSplitPath,
  DatasetSplitsPath,
  UpdateDatasetSplitBody,
} from './dataset-splits-schemas.js';

const datasetOf = (params: { dataset_identifier: string }) => identifier('Dataset', params.dataset_identifier);
const splitOf = (params: { split_id: string }) => identifier('DatasetSplit', params.split_id);
const examples = (ids: string[] | undefined) => ids?.map((id) => identifier('DatasetExample', id));

function presentSplit(split: DatasetSplitWithCount) {
  return {
    id: toGlobalId('DatasetSplit', split.id),
    name: split.name,
    description: split.description,
    color: split.color,
    metadata: split.metadata,
    example_count: split.exampleCount,
    created_at: split.createdAt,
    updated_at: split.updatedAt,
  };
}

export async function datasetSplitsRoutes(instance: FastifyInstance, { splits }: { splits: DatasetSplitsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['datasets'];
  const one = Type.Object({ data: DatasetSplit });

  app.post(
    '/v1/datasets/:dataset_identifier/splits',
    {
      schema: {
        tags,
        operationId: 'createDatasetSplit',
        summary: 'Create a dataset split',
        description: 'Optionally seeded with examples of the dataset (`example_ids`); 409 when the name is taken.',
        params: DatasetSplitsPath,
        body: CreateDatasetSplitBody,
        response: { 201: one, ...errors(404, 409, 422) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const split = await splits.create(datasetOf(request.params), {
        name: body.name,
        description: body.description,
        color: body.color,
        metadata: body.metadata,
        examples: examples(body.example_ids),
        userId: callerUserId(request),
      });
      return reply.code(201).send({ data: presentSplit(split) });
    },
  );

  app.patch(
    '/v1/datasets/:dataset_identifier/splits/:split_id',
    {
      schema: {
        tags,
        operationId: 'updateDatasetSplit',
        summary: 'Update a dataset split',
        description: 'Changes the fields sent, adds `add_example_ids` then removes `remove_example_ids` (examples of this dataset).',
        params: DatasetSplitPath,
        body: UpdateDatasetSplitBody,
        response: { 200: one, ...errors(404, 409, 422) },
      },
    },
    async (request) => {
      const body = request.body;
      const split = await splits.update(datasetOf(request.params), splitOf(request.params), {
        name: body.name,
        description: body.description,
        color: body.color,
        metadata: body.metadata,
        addExamples: examples(body.add_example_ids),
        removeExamples: examples(body.remove_example_ids),
      });
      return { data: presentSplit(split) };
    },
  );

  app.delete(
    '/v1/datasets/:dataset_identifier/splits/:split_id',
    {
      schema: {
        tags,
        operationId: 'deleteDatasetSplit',
        summary: 'Delete a dataset split',
        description: 'The split goes (its name is server-wide, so from every dataset); the examples stay.',
        params: DatasetSplitPath,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await splits.delete(datasetOf(request.params), splitOf(request.params));
      return reply.code(204).send(null);
    },
  );
}
