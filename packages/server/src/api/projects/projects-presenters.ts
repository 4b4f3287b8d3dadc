/** Response shape of a project; the database shape never leaks past it. */
import type { ProjectRecord } from '../../db/repositories/projects-repository.js';
import { toGlobalId } from '../shared/global-id.js';

export function presentProject(project: ProjectRecord) {
  return {
    id: toGlobalId('Project', project.id),
    name: project.name,
    description: project.description,
    created_at: project.createdAt,
    updated_at: project.updatedAt,
  };
}
