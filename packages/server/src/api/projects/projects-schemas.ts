/** Response schema of a project (Phoenix's Project plus timestamps). */
import { Type } from '@sinclair/typebox';
import { Id, Nullable } from '../shared/schemas.js';

export const Project = Type.Object(
  {
    id: Id('Project'),
    name: Type.String(),
    description: Nullable(Type.String()),
    created_at: Type.String({ format: 'date-time', description: 'Sightline addition.' }),
    updated_at: Type.String({ format: 'date-time', description: 'Sightline addition.' }),
  },
  { title: 'Project' },
);
