/** JSON schemas (TypeBox) of the experiment tag routes, Phoenix's shapes (docs/experiments.md, "Tags"). */
import { Type } from '@sinclair/typebox';
import { Id, Nullable, cursorParam, limitParam } from '../shared/schemas.js';

export const ExperimentTag = Type.Object(
  {
    id: Id('ExperimentTag'),
    name: Type.String({ description: 'The name of the tag.' }),
    description: Nullable(Type.String({ description: 'The description of the tag.' })),
  },
  { title: 'ExperimentTag' },
);

export const SetExperimentTagBody = Type.Object(
  {
    name: Type.String({
      maxLength: 1024,
      description:
        "The tag to assign, e.g. 'baseline' (lower-case letters, digits, '-' and '_'); if another experiment of the same dataset has it, it moves here.",
    }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10_000, description: 'Replaces any description the tag had.' }))),
  },
  { title: 'SetExperimentTagRequestBody' },
);

export const TagsPath = Type.Object({ experiment_id: Type.String({ description: 'Experiment id (base64 "Experiment:<id>").' }) });
export const TagPath = Type.Object({
  ...TagsPath.properties,
  tag_identifier: Type.String({ description: 'The tag: its id (base64 "ExperimentTag:<id>") or its name.' }),
});
export const TagsQuery = Type.Object({ limit: limitParam, cursor: cursorParam });
