/** `/v1/prompts` and `/v1/prompt_versions`: prompt management, Phoenix-compatible (docs/prompts.md). */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { PromptsService } from '../../prompts/prompts-service.js';
import { identifier } from '../shared/global-id.js';
import { callerUserId } from '../shared/principal.js';
import { DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { presentPrompt, presentPromptVersion, presentPromptVersionTag } from './prompts-presenters.js';
import {
  CreatePromptRequestBody,
  PatchPromptRequestBody,
  Prompt,
  PromptPath,
  PromptVersion,
  PromptVersionPath,
  PromptVersionTag,
  PromptVersionTagData,
} from './prompts-schemas.js';
import { cursorParam, errors, limitParam, Page } from '../shared/schemas.js';

const PageQuerystring = Type.Object({ limit: limitParam, cursor: cursorParam });
const TagPath = Type.Object({ tag_name: Type.String({ description: 'Tag name (an identifier, e.g. "production").' }) });
const promptOf = (params: { prompt_identifier: string }) => identifier('Prompt', params.prompt_identifier);
const versionOf = (params: { prompt_version_id: string }) => identifier('PromptVersion', params.prompt_version_id);

export async function promptsRoutes(instance: FastifyInstance, { prompts }: { prompts: PromptsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['prompts'];
  const versionResponse = { 200: Type.Object({ data: PromptVersion }), ...errors(404, 422) };

  app.get(
    '/v1/prompts',
    {
      schema: {
        tags,
        operationId: 'getPrompts',
        summary: 'List all prompts',
        description: 'Prompts newest first (by id), keyset-paginated.',
        querystring: PageQuerystring,
        response: { 200: Page(Prompt), ...errors(422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await prompts.list({ limit, fromId: cursorId('Prompt', request.query.cursor) });
      return pageAnswer('Prompt', rows, limit, presentPrompt);
    },
  );

  app.post(
    '/v1/prompts',
    {
      schema: {
        tags,
        operationId: 'postPromptVersion',
        summary: 'Create a prompt, or a new version of it',
        description:
          'Body `{prompt, version}` (not wrapped in `data`). Creates the prompt when no prompt has that name (with its description ' +
          'and metadata), then stores the version as its newest; an existing prompt keeps its description and metadata. ' +
          'Answers the new version. 422 names what is wrong: the name, the template type, format or a malformed template.',
        body: CreatePromptRequestBody,
        response: { 200: Type.Object({ data: PromptVersion }), ...errors(422) },
      },
    },
    async (request) => {
      const { version } = await prompts.create(request.body, callerUserId(request));
      return { data: presentPromptVersion(version) };
    },
  );

  app.patch(
    '/v1/prompts/:prompt_identifier',
    {
      schema: {
        tags,
        operationId: 'patchPrompt',
        summary: 'Update prompt metadata',
        description: 'Sets the description (null clears it) and/or replaces the metadata; at least one is needed. Versions never change.',
        params: PromptPath,
        body: PatchPromptRequestBody,
        response: { 200: Type.Object({ data: Prompt }), ...errors(404, 422) },
      },
    },
    async (request) => ({ data: presentPrompt(await prompts.update(promptOf(request.params), request.body)) }),
  );

  app.delete(
    '/v1/prompts/:prompt_identifier',
    {
      schema: {
        tags,
        operationId: 'deletePrompt',
        summary: 'Delete a prompt',
        description: 'Deletes the prompt with all its versions and tags.',
        params: PromptPath,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await prompts.delete(promptOf(request.params));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/prompts/:prompt_identifier/versions',
    {
      schema: {
        tags,
        operationId: 'listPromptVersions',
        summary: 'List prompt versions',
        description: 'Versions of the prompt newest first, keyset-paginated.',
        params: PromptPath,
        querystring: PageQuerystring,
        response: { 200: Page(PromptVersion), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await prompts.listVersions(promptOf(request.params), {
        limit,
        fromId: cursorId('PromptVersion', request.query.cursor),
      });
      return pageAnswer('PromptVersion', rows, limit, presentPromptVersion);
    },
  );

  app.get(
    '/v1/prompts/:prompt_identifier/latest',
    {
      schema: {
        tags,
        operationId: 'getPromptVersionLatest',
        summary: 'Get latest prompt version',
        params: PromptPath,
        response: versionResponse,
      },
    },
    async (request) => ({ data: presentPromptVersion(await prompts.latest(promptOf(request.params))) }),
  );

  app.get(
    '/v1/prompts/:prompt_identifier/tags/:tag_name',
    {
      schema: {
        tags,
        operationId: 'getPromptVersionByTagName',
        summary: 'Get prompt version by tag',
        description: 'The version of the prompt that the tag names; 404 when the prompt has no such tag.',
        params: Type.Composite([PromptPath, TagPath]),
        response: versionResponse,
      },
    },
    async (request) => ({
      data: presentPromptVersion(await prompts.byTag(promptOf(request.params), request.params.tag_name)),
    }),
  );

  app.get(
    '/v1/prompt_versions/:prompt_version_id',
    {
      schema: {
        tags,
        operationId: 'getPromptVersionByPromptVersionId',
        summary: 'Get prompt version by ID',
        params: PromptVersionPath,
        response: versionResponse,
      },
    },
    async (request) => ({ data: presentPromptVersion(await prompts.version(versionOf(request.params))) }),
  );

  app.get(
    '/v1/prompt_versions/:prompt_version_id/tags',
    {
      schema: {
        tags,
        operationId: 'getPromptVersionTags',
        summary: 'List prompt version tags',
        description: 'Tags naming this version, newest first, keyset-paginated.',
        params: PromptVersionPath,
        querystring: PageQuerystring,
        response: {
          200: Page(PromptVersionTag),
          ...errors(404, 422),
        },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await prompts.listTags(versionOf(request.params), {
        limit,
        fromId: cursorId('PromptVersionTag', request.query.cursor),
      });
      return pageAnswer('PromptVersionTag', rows, limit, presentPromptVersionTag);
    },
  );

  app.post(
    '/v1/prompt_versions/:prompt_version_id/tags',
    {
      schema: {
        tags,
        operationId: 'createPromptVersionTag',
        summary: 'Add tag to prompt version',
        description:
          'A tag names one version of a prompt at a time: setting a tag the prompt already has on another version moves it here.',
        params: PromptVersionPath,
        body: PromptVersionTagData,
        response: { 204: Type.Null({ description: 'Tag set' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await prompts.setTag(versionOf(request.params), request.body, callerUserId(request));
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/v1/prompt_versions/:prompt_version_id/tags/:tag_name',
    {
      schema: {
        tags,
        operationId: 'deletePromptVersionTag',
        summary: 'Delete a tag from a prompt version',
        description: "The tag is looked up among the tags of the version's prompt.",
        params: Type.Composite([PromptVersionPath, TagPath]),
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await prompts.deleteTag(versionOf(request.params), request.params.tag_name);
      return reply.code(204).send(null);
    },
  );
}
