/** `/v1/projects`: list, create, read, update and delete projects (Phoenix-compatible). */
import { identifier } from '../shared/global-id.js';
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ProjectsService } from '../../projects/projects-service.js';
import { DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { errors, limitParam, Nullable, Page, ProjectPath } from '../shared/schemas.js';
import { presentProject } from './projects-presenters.js';
import { Project } from './projects-schemas.js';

export async function projectsRoutes(instance: FastifyInstance, { projects }: { projects: ProjectsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['projects'];

  app.get(
    '/v1/projects',
    {
      schema: {
        tags,
        operationId: 'getProjects',
        summary: 'List all projects',
        description: 'Projects newest first (by id), keyset-paginated.',
        querystring: Type.Object({
          limit: limitParam,
          cursor: Type.Optional(
            Type.String({ description: 'The next_cursor of the previous page (a Project id); an invalid cursor answers 422.' }),
          ),
          name_contains: Type.Optional(Type.String({ description: 'Only projects whose name contains this text (case-insensitive).' })),
          include_experiment_projects: Type.Optional(
            Type.Boolean({ default: false, description: "Also list the projects that hold experiments' task traces." }),
          ),
          include_dataset_evaluator_projects: Type.Optional(
            Type.Boolean({ default: false, description: 'Accepted for Phoenix compatibility; no effect yet.' }),
          ),
        }),
        response: { 200: Page(Project), ...errors(422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await projects.list({
        limit,
        fromId: cursorId('Project', request.query.cursor),
        nameContains: request.query.name_contains,
        includeExperimentProjects: request.query.include_experiment_projects,
      });
      return pageAnswer('Project', rows, limit, presentProject);
    },
  );

  app.post(
    '/v1/projects',
    {
      schema: {
        tags,
        operationId: 'createProject',
        summary: 'Create a new project',
        description: 'Body `{name, description?}` (not wrapped in `data`, as in Phoenix). 409 when the name is taken.',
        body: Type.Object({ name: Type.String({ minLength: 1 }), description: Type.Optional(Nullable(Type.String())) }),
        response: { 200: Type.Object({ data: Project }), ...errors(409, 422) },
      },
    },
    async (request) => ({ data: presentProject(await projects.create(request.body)) }),
  );

  app.get(
    '/v1/projects/:project_identifier',
    {
      schema: {
        tags,
        operationId: 'getProject',
        summary: 'Get project by ID or name',
        params: ProjectPath,
        response: { 200: Type.Object({ data: Project }), ...errors(404, 422) },
      },
    },
    async (request) => ({ data: presentProject(await projects.resolve(identifier('Project', request.params.project_identifier))) }),
  );

  app.put(
    '/v1/projects/:project_identifier',
    {
      schema: {
        tags,
        operationId: 'updateProject',
        summary: 'Update a project by ID or name',
        description: 'Sets the description (null clears it; absent leaves it). The name cannot change.',
        params: ProjectPath,
        body: Type.Object({ description: Type.Optional(Nullable(Type.String())) }),
        response: { 200: Type.Object({ data: Project }), ...errors(404, 422) },
      },
    },
    async (request) => ({
      data: presentProject(await projects.update(identifier('Project', request.params.project_identifier), request.body)),
    }),
  );

  app.delete(
    '/v1/projects/:project_identifier',
    {
      schema: {
        tags,
        operationId: 'deleteProject',
        summary: 'Delete a project by ID or name',
        description: 'Deletes the project with all its traces, spans and annotations. The default project cannot be deleted (403).',
        params: ProjectPath,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await projects.delete(identifier('Project', request.params.project_identifier));
      return reply.code(204).send(null);
    },
  );
}
