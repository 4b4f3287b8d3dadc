/** `/v1/dataset_labels` and the labels of a dataset (`/v1/datasets/{dataset_identifier}/labels`); Phoenix-compatible (docs/datasets.md, "Labels"). */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { DatasetLabelsService } from '../../datasets/dataset-labels-service.js';
import { identifier } from '../shared/global-id.js';
import { DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { callerUserId } from '../shared/principal.js';
import { errors, Page } from '../shared/schemas.js';
import { presentLabel } from './dataset-labels-presenters.js';
import {
  CreateDatasetLabelBody,
  DatasetIdentifierPath,
  DatasetLabel,
  DatasetLabelPath,
  LabelPath,
  LabelsQuery,
  SetDatasetLabelsBody,
  UpdateDatasetLabelBody,
} from './dataset-labels-schemas.js';

const labelOf = (params: { label_id: string }) => identifier('DatasetLabel', params.label_id);
const datasetOf = (params: { dataset_identifier: string }) => identifier('Dataset', params.dataset_identifier);

export async function datasetLabelsRoutes(instance: FastifyInstance, { labels }: { labels: DatasetLabelsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['datasets'];
  const one = Type.Object({ data: DatasetLabel });
  const list = Type.Object({ data: Type.Array(DatasetLabel) });

  app.get(
    '/v1/dataset_labels',
    {
      schema: {
        tags,
        operationId: 'listDatasetLabels',
        summary: 'List dataset labels',
        description: 'Newest first, keyset-paginated.',
        querystring: LabelsQuery,
        response: { 200: Page(DatasetLabel), ...errors(422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await labels.list({ limit, fromId: cursorId('DatasetLabel', request.query.cursor) });
      return pageAnswer('DatasetLabel', rows, limit, presentLabel);
    },
  );

  app.post(
    '/v1/dataset_labels',
    {
      schema: {
        tags,
        operationId: 'createDatasetLabel',
        summary: 'Create a dataset label',
        body: CreateDatasetLabelBody,
        response: { 201: one, ...errors(409, 422) },
      },
    },
    async (request, reply) => {
      const { name, color, description } = request.body;
      const label = await labels.create({ name, color, description: description ?? null, userId: callerUserId(request) });
      return reply.code(201).send({ data: presentLabel(label) });
    },
  );

  app.get(
    '/v1/dataset_labels/:label_id',
    {
      schema: {
        tags,
        operationId: 'getDatasetLabel',
        summary: 'Get a dataset label by ID',
        params: LabelPath,
        response: { 200: one, ...errors(404, 422) },
      },
    },
    async (request) => ({ data: presentLabel(await labels.get(labelOf(request.params))) }),
  );

  app.patch(
    '/v1/dataset_labels/:label_id',
    {
      schema: {
        tags,
        operationId: 'updateDatasetLabel',
        summary: 'Update a dataset label by ID',
        description: 'Changes only the fields sent; null clears the description and is refused for name and color.',
        params: LabelPath,
        body: UpdateDatasetLabelBody,
        response: { 200: one, ...errors(404, 409, 422) },
      },
    },
    async (request) => ({ data: presentLabel(await labels.update(labelOf(request.params), request.body)) }),
  );

  app.delete(
    '/v1/dataset_labels/:label_id',
    {
      schema: {
        tags,
        operationId: 'deleteDatasetLabel',
        summary: 'Delete a dataset label by ID',
        description: 'Also takes the label off every dataset that carries it.',
        params: LabelPath,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await labels.delete(labelOf(request.params));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/datasets/:dataset_identifier/labels',
    {
      schema: {
        tags,
        operationId: 'listDatasetLabelsForDataset',
        summary: 'List the labels applied to a dataset',
        description: 'Newest label first, keyset-paginated (`limit`, `cursor` and `next_cursor` are Sightline additions).',
        params: DatasetIdentifierPath,
        querystring: LabelsQuery,
        response: { 200: Page(DatasetLabel), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await labels.listForDataset(datasetOf(request.params), {
        limit,
        fromId: cursorId('DatasetLabel', request.query.cursor),
      });
      return pageAnswer('DatasetLabel', rows, limit, presentLabel);
    },
  );

  app.put(
    '/v1/datasets/:dataset_identifier/labels',
    {
      schema: {
        tags,
        operationId: 'setDatasetLabelsForDataset',
        summary: 'Replace the set of labels applied to a dataset',
        description: 'Labels sent and not applied are added, labels applied and not sent are removed; answers every label now applied.',
        params: DatasetIdentifierPath,
        body: SetDatasetLabelsBody,
        response: { 200: list, ...errors(404, 422) },
      },
    },
    async (request) => {
      const ids = (request.body.dataset_label_ids ?? []).map((id) => identifier('DatasetLabel', id));
      return { data: (await labels.set(datasetOf(request.params), ids)).map(presentLabel) };
    },
  );

  app.put(
    '/v1/datasets/:dataset_identifier/labels/:label_id',
    {
      schema: {
        tags,
        operationId: 'addDatasetLabelToDataset',
        summary: 'Apply a label to a dataset',
        description: 'Idempotent: applying a label already applied answers the label.',
        params: DatasetLabelPath,
        response: { 200: one, ...errors(404, 422) },
      },
    },
    async (request) => ({ data: presentLabel(await labels.apply(datasetOf(request.params), labelOf(request.params))) }),
  );

  app.delete(
    '/v1/datasets/:dataset_identifier/labels/:label_id',
    {
      schema: {
        tags,
        operationId: 'removeDatasetLabelFromDataset',
        summary: 'Remove a label from a dataset',
        description: 'Idempotent: removing a label that is not applied does nothing. The label itself stays.',
        params: DatasetLabelPath,
        response: { 204: Type.Null({ description: 'Removed' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await labels.remove(datasetOf(request.params), labelOf(request.params));
      return reply.code(204).send(null);
    },
  );
}
