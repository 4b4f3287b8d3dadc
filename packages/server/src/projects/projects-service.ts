/** Projects: resolve by id or name, list, create, update the description, delete with all their data. */
import { isUniqueViolation } from '../db/errors.js';
import type { Identifier } from '../shared/identifier.js';
import type { ProjectRecord, ProjectsRepository } from '../db/repositories/projects-repository.js';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '@sightline/common';
import { DEFAULT_PROJECT_NAME } from '../span-model/span-rows.js';

export interface ProjectsServiceDependencies {
  projects: ProjectsRepository;
  /** Called after a project was deleted, so that the ingest writer forgets its cached project ids. */
  onProjectsDeleted: () => void;
  now?: () => string;
}

export type ProjectsService = ReturnType<typeof createProjectsService>;

export function createProjectsService({ projects, onProjectsDeleted, now = () => new Date().toISOString() }: ProjectsServiceDependencies) {
  /** The project named by a Project GlobalID or by its name; 404 otherwise. */
  const resolve = async (identifier: Identifier): Promise<ProjectRecord> => {
    const id = identifier.rowId;
    const project = (id !== null ? await projects.findById(id) : undefined) ?? (await projects.findByName(identifier.text));
    if (!project) throw new NotFoundError(`project ${JSON.stringify(identifier.text)} not found`);
    return project;
  };

  return {
    resolve,

    /** Whether the project exists and is not deleted (a span of a deleted project is gone for readers at once). */
    async isLive(projectId: number): Promise<boolean> {
      return (await projects.findById(projectId)) !== undefined;
    },

    /**
     * Projects newest first; `fromId` is the cursor's row (inclusive). Fetches limit + 1 rows.
     * Experiments' projects are left out unless `includeExperimentProjects`, as in Phoenix.
     */
    list(query: {
      limit: number;
      fromId?: number | undefined;
      nameContains?: string | undefined;
      includeExperimentProjects?: boolean | undefined;
    }): Promise<ProjectRecord[]> {
      const needle = query.nameContains?.toLowerCase();
      return projects.list({
        limit: query.limit + 1,
        fromId: query.fromId,
        nameContains: needle || undefined,
        excludeExperimentProjects: !query.includeExperimentProjects,
      });
    },

    /** Creates an empty project; 409 when the name is taken, 422 when it is blank. */
    async create(input: { name: string; description?: string | null | undefined }): Promise<ProjectRecord> {
      // Ingest trims project names, so a name with surrounding spaces could never receive spans.
      const name = input.name.trim();
      if (name === '') throw new InvalidInputError('name must not be blank');
      try {
        return await projects.insert(name, input.description ?? null, now());
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError(`a project named ${JSON.stringify(name)} already exists`);
        throw error;
      }
    },

    /** Sets the description (the name never changes: spans find their project by name). */
    async update(identifier: Identifier, input: { description?: string | null | undefined }): Promise<ProjectRecord> {
      const project = await resolve(identifier);
      if (input.description === undefined) return project;
      const updated = await projects.updateDescription(project.id, input.description, now());
      if (!updated) throw new NotFoundError(`project ${JSON.stringify(identifier.text)} not found`);
      return updated;
    },

    /**
     * Deletes the project: it disappears at once for every reader and its name is free, and the
     * retention job deletes its traces, spans and annotations in short batches, then the row
     * (docs/api.md, "Deleting projects"). The default project cannot be deleted (403).
     */
    async delete(identifier: Identifier): Promise<void> {
      const project = await resolve(identifier);
      if (project.name === DEFAULT_PROJECT_NAME) throw new ForbiddenError('the default project cannot be deleted');
      const deleted = await projects.markDeleted(project.id, new Date().toISOString());
      onProjectsDeleted();
      if (!deleted) throw new NotFoundError(`project ${JSON.stringify(identifier.text)} not found`);
    },
  };
}
