/**
 * Saved views (docs/search.md, "Saved views"): a project's named list options (search words,
 * filter condition, sort…) as the UI's address holds them. Their search and filter are checked
 * when saved, so a view never fails when it is opened.
 */
import { InvalidInputError, NotFoundError } from '@sightline/common';
import type { SavedViewRecord, SavedViewsRepository } from '../db/repositories/saved-views-repository.js';
import type { Identifier } from '../shared/identifier.js';
import { parseTextFilters } from './text-filters.js';
import type { ProjectsService } from '../projects/projects-service.js';

export const SAVED_VIEW_PAGES = ['traces', 'spans', 'sessions'] as const;
export type SavedViewPage = (typeof SAVED_VIEW_PAGES)[number];

export const MAX_VIEW_NAME_CHARS = 100;
export const MAX_VIEW_QUERY_CHARS = 4_000;

export type SavedViewsService = ReturnType<typeof createSavedViewsService>;

export function createSavedViewsService(deps: { views: SavedViewsRepository; projects: ProjectsService; now?: () => string }) {
  const { views, projects, now = () => new Date().toISOString() } = deps;
  return {
    /** Saves the view under its name, replacing the project's view of that name. */
    async save(
      projectIdentifier: Identifier,
      input: { name: string; page: SavedViewPage; query: string; userId: number | null },
    ): Promise<SavedViewRecord> {
      const name = input.name.trim();
      if (name === '' || name.length > MAX_VIEW_NAME_CHARS)
        throw new InvalidInputError(`a view's name must be 1 to ${MAX_VIEW_NAME_CHARS} characters`);
      const query = input.query.replace(/^\?/, '');
      if (query.length > MAX_VIEW_QUERY_CHARS)
        throw new InvalidInputError(`a view's query is longer than ${MAX_VIEW_QUERY_CHARS} characters`);
      const params = new URLSearchParams(query);
      try {
        parseTextFilters({ search: params.get('q') ?? undefined, filter: params.get('filter') ?? undefined });
      } catch (error) {
        if (error instanceof InvalidInputError) throw new InvalidInputError(`the view cannot be saved: ${error.message}`);
        throw error;
      }
      const project = await projects.resolve(projectIdentifier);
      return views.upsert({ projectId: project.id, userId: input.userId, name, page: input.page, query }, now());
    },

    async list(projectIdentifier: Identifier, page: { limit: number; fromId?: number | undefined }): Promise<SavedViewRecord[]> {
      const project = await projects.resolve(projectIdentifier);
      return views.list(project.id, { limit: page.limit + 1, fromId: page.fromId });
    },

    async delete(projectIdentifier: Identifier, viewIdentifier: Identifier): Promise<void> {
      const project = await projects.resolve(projectIdentifier);
      if (viewIdentifier.rowId === null || !(await views.delete(project.id, viewIdentifier.rowId)))
        throw new NotFoundError(`saved view ${JSON.stringify(viewIdentifier.text)} not found in this project`);
    },
  };
}
