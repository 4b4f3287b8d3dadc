/**
 * Annotation configs and their assignment to projects (docs/annotations.md, "Configs"):
 * Phoenix's routes and shapes, tag `annotation_configs`.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { InvalidInputError } from '@sightline/common';
import type {
  AnnotationConfigInput,
  AnnotationConfigRecord,
  AnnotationConfigsService,
} from '../../annotations/annotation-configs-service.js';
import { identifier } from '../shared/global-id.js';
import { DEFAULT_LIMIT } from '../shared/pagination.js';
import { configGlobalId, configIdentifier, configRowId, presentAnnotationConfig } from './annotation-configs-presenters.js';
import {
  AnnotationConfig,
  ConfigPath,
  CreateAnnotationConfigData,
  SetProjectAnnotationConfigsRequestBody,
} from './annotation-configs-schemas.js';
import { errors, limitParam, Page, ProjectPath } from '../shared/schemas.js';

/** The body in the service's terms: only the fields of the config's type. */
function toInput(body: Static<typeof CreateAnnotationConfigData>): AnnotationConfigInput {
  const input: AnnotationConfigInput = {
    name: body.name,
    type: body.type,
    description: body.description ?? null,
    optimizationDirection: body.optimization_direction ?? null,
    values: [],
    lowerBound: null,
    upperBound: null,
    threshold: null,
  };
  if (body.type === 'CATEGORICAL')
    return { ...input, values: body.values.map((value) => ({ label: value.label, score: value.score ?? null })) };
  const bounds = { lowerBound: body.lower_bound ?? null, upperBound: body.upper_bound ?? null };
  if (body.type === 'CONTINUOUS') return { ...input, ...bounds };
  return { ...input, ...bounds, threshold: body.threshold ?? null };
}

const PageQuery = Type.Object({
  cursor: Type.Optional(Type.String({ description: 'The next_cursor of the previous page (a config id); an invalid cursor answers 422.' })),
  limit: limitParam,
});

/** The row id a cursor points at, or undefined for the first page; 422 for a bad cursor. */
function cursorOf(cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const id = configRowId(cursor);
  if (id === null) throw new InvalidInputError(`invalid cursor "${cursor.slice(0, 60)}"`);
  return id;
}

/** A page fetched with limit + 1 rows, in Phoenix's envelope. */
function pageOf(rows: AnnotationConfigRecord[], limit: number) {
  const next = rows.length > limit ? rows[limit] : undefined;
  return { data: rows.slice(0, limit).map(presentAnnotationConfig), next_cursor: next ? configGlobalId(next) : null };
}

const List = Page(AnnotationConfig);
const One = Type.Object({ data: AnnotationConfig });

export async function annotationConfigsRoutes(instance: FastifyInstance, { configs }: { configs: AnnotationConfigsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['annotation_configs'];

  app.get(
    '/v1/annotation_configs',
    {
      schema: {
        tags,
        operationId: 'listAnnotationConfigs',
        summary: 'List annotation configurations',
        description: 'Every annotation config, newest first, keyset-paginated.',
        querystring: PageQuery,
        response: { 200: List, ...errors(422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      return pageOf(await configs.list({ limit, fromId: cursorOf(request.query.cursor) }), limit);
    },
  );

  app.post(
    '/v1/annotation_configs',
    {
      schema: {
        tags,
        operationId: 'createAnnotationConfig',
        summary: 'Create an annotation configuration',
        description:
          'A categorical (labels with scores), continuous (a score within bounds) or free-form config. 409 when the name is taken; ' +
          '422 for the name "note", no or duplicate labels, or a lower bound not below the upper one.',
        body: CreateAnnotationConfigData,
        response: { 200: One, ...errors(409, 422) },
      },
    },
    async (request) => ({ data: presentAnnotationConfig(await configs.create(toInput(request.body))) }),
  );

  app.get(
    '/v1/annotation_configs/:config_identifier',
    {
      schema: {
        tags,
        operationId: 'getAnnotationConfig',
        summary: 'Get an annotation configuration by ID or name',
        params: ConfigPath,
        response: { 200: One, ...errors(404, 422) },
      },
    },
    async (request) => ({ data: presentAnnotationConfig(await configs.resolve(configIdentifier(request.params.config_identifier))) }),
  );

  app.put(
    '/v1/annotation_configs/:config_identifier',
    {
      schema: {
        tags,
        operationId: 'updateAnnotationConfig',
        summary: 'Update an annotation configuration',
        description: 'Replaces the name and every setting (the type may change). Annotations already written are not re-checked.',
        params: ConfigPath,
        body: CreateAnnotationConfigData,
        response: { 200: One, ...errors(404, 409, 422) },
      },
    },
    async (request) => ({
      data: presentAnnotationConfig(await configs.update(configIdentifier(request.params.config_identifier), toInput(request.body))),
    }),
  );

  app.delete(
    '/v1/annotation_configs/:config_identifier',
    {
      schema: {
        tags,
        operationId: 'deleteAnnotationConfig',
        summary: 'Delete an annotation configuration',
        description: 'Deletes the config and its project assignments and answers what it was; annotations of its name stay.',
        params: ConfigPath,
        response: { 200: One, ...errors(404, 422) },
      },
    },
    async (request) => ({ data: presentAnnotationConfig(await configs.delete(configIdentifier(request.params.config_identifier))) }),
  );

  app.get(
    '/v1/projects/:project_identifier/annotation_configs',
    {
      schema: {
        tags,
        operationId: 'getProjectAnnotationConfigs',
        summary: 'List annotation configurations assigned to a project',
        params: ProjectPath,
        querystring: PageQuery,
        response: { 200: List, ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await configs.listForProject(identifier('Project', request.params.project_identifier), {
        limit,
        fromId: cursorOf(request.query.cursor),
      });
      return pageOf(rows, limit);
    },
  );

  app.put(
    '/v1/projects/:project_identifier/annotation_configs',
    {
      schema: {
        tags,
        operationId: 'setProjectAnnotationConfigs',
        summary: 'Replace the set of annotation configurations assigned to a project',
        description: 'The project ends with exactly these configs. 422 for an id that is not an existing config.',
        params: ProjectPath,
        body: SetProjectAnnotationConfigsRequestBody,
        response: { 200: List, ...errors(404, 422) },
      },
    },
    async (request) => {
      const given = request.body.annotation_config_ids;
      const rows = await configs.setForProject(identifier('Project', request.params.project_identifier), given.map(configRowId), given);
      return { data: rows.map(presentAnnotationConfig), next_cursor: null };
    },
  );

  const ProjectConfigPath = Type.Object({ ...ProjectPath.properties, ...ConfigPath.properties });

  app.put(
    '/v1/projects/:project_identifier/annotation_configs/:config_identifier',
    {
      schema: {
        tags,
        operationId: 'assignAnnotationConfigToProject',
        summary: 'Assign an annotation configuration to a project',
        description: 'Idempotent: assigning again answers the config. Project and config by id or name.',
        params: ProjectConfigPath,
        response: { 200: One, ...errors(404, 422) },
      },
    },
    async (request) => ({
      data: presentAnnotationConfig(
        await configs.assign(identifier('Project', request.params.project_identifier), configIdentifier(request.params.config_identifier)),
      ),
    }),
  );

  app.delete(
    '/v1/projects/:project_identifier/annotation_configs/:config_identifier',
    {
      schema: {
        tags,
        operationId: 'unassignAnnotationConfigFromProject',
        summary: 'Unassign an annotation configuration from a project',
        description: 'Idempotent; the config itself stays. Project and config by id or name.',
        params: ProjectConfigPath,
        response: { 204: Type.Null({ description: 'Unassigned' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await configs.unassign(identifier('Project', request.params.project_identifier), configIdentifier(request.params.config_identifier));
      return reply.code(204).send(null);
    },
  );
}
