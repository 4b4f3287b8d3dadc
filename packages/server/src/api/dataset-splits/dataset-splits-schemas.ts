/** JSON schemas (TypeBox) of the dataset split routes, Phoenix's shapes (docs/datasets.md, "Splits"). */
import { Type } from '@sinclair/typebox';
import { MAX_SPLIT_EXAMPLES_PER_REQUEST, MAX_SPLIT_NAME_LENGTH } from '../../datasets/dataset-splits-service.js';
import { Id, JsonObject, Nullable } from '../shared/schemas.js';

export const DatasetSplit = Type.Object(
  {
    id: Id('DatasetSplit'),
    name: Type.String(),
    description: Nullable(Type.String()),
    color: Type.String(),
    metadata: JsonObject('Free-form metadata.'),
    example_count: Type.Integer({ description: 'Examples of the dataset named in the path that the split holds.' }),
    created_at: Type.String({ format: 'date-time', description: 'Creation time (UTC).' }),
    updated_at: Type.String({ format: 'date-time', description: 'Last change of the name, description, colour or metadata (UTC).' }),
  },
  { title: 'DatasetSplit' },
);

const exampleIds = (description: string) =>
  Type.Array(Type.String(), {
    maxItems: MAX_SPLIT_EXAMPLES_PER_REQUEST,
    description: `${description} At most ${MAX_SPLIT_EXAMPLES_PER_REQUEST}.`,
  });
const name = (description: string) => Type.String({ maxLength: MAX_SPLIT_NAME_LENGTH + 64, description });
const color = (description: string) => Type.String({ maxLength: 64, description });
const text = (description: string) => Nullable(Type.String({ maxLength: 10_000, description }));

export const CreateDatasetSplitBody = Type.Object(
  {
    name: name('A name unique on the server (surrounding spaces are trimmed; 409 when taken).'),
    description: Type.Optional(text('An optional description.')),
    color: Type.Optional(Nullable(color(`A colour such as "#33c5e8" (the default).`))),
    metadata: Type.Optional(JsonObject('Free-form metadata (default {}).')),
    example_ids: Type.Optional(exampleIds('DatasetExample ids of this dataset to put in the split.')),
  },
  { title: 'CreateDatasetSplitRequestBody' },
);

export const UpdateDatasetSplitBody = Type.Object(
  {
    name: Type.Optional(Nullable(name('A new unique name (null or blank is refused).'))),
    description: Type.Optional(text('A new description; null clears it.')),
    color: Type.Optional(Nullable(color('A new colour (null or blank is refused).'))),
    metadata: Type.Optional(Nullable(JsonObject('New metadata, replacing the old; null leaves it.'))),
    add_example_ids: Type.Optional(exampleIds('DatasetExample ids of this dataset to add (one already in the split is ignored).')),
    remove_example_ids: Type.Optional(exampleIds('DatasetExample ids to remove; an id in both lists ends up removed.')),
  },
  { title: 'UpdateDatasetSplitRequestBody', description: 'Fields to change; an omitted field is left as it is.' },
);

export const DatasetSplitsPath = Type.Object({
  dataset_identifier: Type.String({ description: 'Dataset id (base64 "Dataset:<id>") or the dataset name.' }),
});
export const DatasetSplitPath = Type.Object({
  ...DatasetSplitsPath.properties,
  split_id: Type.String({ description: 'Dataset split id (base64 "DatasetSplit:<id>").' }),
});
