/** `/v1/experiments/{experiment_id}/tags`: the tags an experiment owns; Phoenix-compatible (docs/experiments.md, "Tags"). */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ExperimentTagRecord } from '../../db/repositories/experiment-tags-repository.js';
import type { ExperimentTagsService } from '../../experiments/experiment-tags-service.js';
import { identifier, toGlobalId } from '../shared/global-id.js';
import { DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { callerUserId } from '../shared/principal.js';
import { errors, Page } from '../shared/schemas.js';
import { ExperimentTag, SetExperimentTagBody, TagPath, TagsPath, TagsQuery } from './experiment-tags-schemas.js';

const experimentOf = (params: { experiment_id: string }) => identifier('Experiment', params.experiment_id);
const presentTag = (tag: ExperimentTagRecord) => ({
  id: toGlobalId('ExperimentTag', tag.id),
  name: tag.name,
  description: tag.description,
});

export async function experimentTagsRoutes(instance: FastifyInstance, { tags: service }: { tags: ExperimentTagsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['experiments'];

  app.get(
    '/v1/experiments/:experiment_id/tags',
    {
      schema: {
        tags,
        operationId: 'listExperimentTags',
        summary: 'List the tags applied to an experiment',
        description:
          'The tags this experiment owns now, by name; paged like every list (`limit`, `cursor`, `next_cursor`: Sightline additions).',
        params: TagsPath,
        querystring: TagsQuery,
        response: { 200: Page(ExperimentTag), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await service.list(experimentOf(request.params), { limit, fromTagId: cursorId('ExperimentTag', request.query.cursor) });
      return pageAnswer('ExperimentTag', rows, limit, presentTag);
    },
  );

  app.post(
    '/v1/experiments/:experiment_id/tags',
    {
      schema: {
        tags,
        operationId: 'setExperimentTag',
        summary: 'Assign a tag to an experiment',
        description:
          'A tag names one experiment of a dataset at a time: assigning one that another experiment of the dataset has moves it here. ' +
          'Assigning it again replaces its description.',
        params: TagsPath,
        body: SetExperimentTagBody,
        response: { 200: Type.Object({ data: ExperimentTag }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const tag = await service.set(experimentOf(request.params), {
        name: request.body.name,
        description: request.body.description ?? null,
        userId: callerUserId(request),
      });
      return { data: presentTag(tag) };
    },
  );

  app.delete(
    '/v1/experiments/:experiment_id/tags/:tag_identifier',
    {
      schema: {
        tags,
        operationId: 'deleteExperimentTag',
        summary: 'Remove a tag from an experiment',
        description: 'Idempotent, and never takes a tag from another experiment: if this experiment does not own the tag, nothing changes.',
        params: TagPath,
        response: { 204: Type.Null({ description: 'Removed (or was not there)' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await service.remove(experimentOf(request.params), identifier('ExperimentTag', request.params.tag_identifier));
      return reply.code(204).send(null);
    },
  );
}
