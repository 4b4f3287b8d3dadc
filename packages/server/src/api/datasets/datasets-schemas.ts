/** JSON schemas (TypeBox) of the dataset routes, Phoenix's shapes (docs/datasets.md). */
import { Type } from '@sinclair/typebox';
import { UPLOAD_ACTIONS } from '../../datasets/datasets-service.js';
import { MAX_LIMIT } from '../shared/pagination.js';
import { Nullable, cursorParam, limitParam } from '../shared/schemas.js';

const JsonObject = (description: string) => Type.Object({}, { additionalProperties: true, description });
const Time = (description: string) => Type.String({ format: 'date-time', description });

export const Dataset = Type.Object(
  {
    id: Type.String({ description: 'Opaque dataset id (base64 of "Dataset:<row id>").' }),
    name: Type.String(),
    description: Nullable(Type.String()),
    metadata: JsonObject('Free-form metadata.'),
    created_at: Time('Creation time (UTC).'),
    updated_at: Time('Time of the latest version (UTC).'),
    example_count: Type.Integer({ description: 'Examples at the latest version.' }),
  },
  { title: 'Dataset' },
);

export const DatasetVersion = Type.Object(
  {
    version_id: Type.String({ description: 'Opaque version id (base64 of "DatasetVersion:<row id>").' }),
    description: Nullable(Type.String()),
    metadata: JsonObject('Free-form metadata of the upload that made the version.'),
    created_at: Time('Creation time (UTC).'),
    example_count: Type.Integer({ description: 'Examples the version holds (Sightline addition).' }),
  },
  { title: 'DatasetVersion' },
);

export const DatasetExample = Type.Object(
  {
    id: Type.String({ description: "The caller's example id when the upload gave one, else node_id." }),
    node_id: Type.String({ description: 'Opaque example id (base64 of "DatasetExample:<row id>").' }),
    input: JsonObject('Input of the example.'),
    output: JsonObject('Expected output.'),
    metadata: JsonObject('Metadata.'),
    updated_at: Time('When the example took these values (UTC).'),
    source: Type.Optional(
      Nullable(Type.Object({ span_id: Type.String(), span_node_id: Type.String() }, { title: 'DatasetExampleSource' })),
    ),
  },
  { title: 'DatasetExample' },
);

export const ListDatasetExamplesData = Type.Object(
  {
    dataset_id: Type.String(),
    version_id: Type.String(),
    filtered_splits: Type.Optional(Type.Array(Type.String(), { description: 'The names of the splits filtered by (only with `split`).' })),
    examples: Type.Array(DatasetExample),
  },
  { title: 'ListDatasetExamplesData' },
);

export const UploadDatasetData = Type.Object(
  {
    dataset_id: Type.String(),
    version_id: Type.String(),
    num_created_examples: Type.Integer(),
    num_updated_examples: Type.Integer(),
    num_deleted_examples: Type.Integer(),
  },
  { title: 'UploadDatasetData' },
);

const objects = (description: string) => Type.Array(Type.Object({}, { additionalProperties: true }), { description });
const optionalIds = (description: string) =>
  Type.Optional(Type.Array(Nullable(Type.String({ minLength: 1, maxLength: 1024 })), { description }));

/** The JSON upload (Phoenix's `createDataset` and `appendDatasetExamples` send this). */
export const UploadDatasetBody = Type.Object(
  {
    action: Type.Optional(
      Type.Unsafe<(typeof UPLOAD_ACTIONS)[number]>({
        type: 'string',
        enum: [...UPLOAD_ACTIONS],
        default: 'create',
        description:
          'create (409 if the name exists), append (new version with more examples), update (the dataset becomes exactly these examples).',
      }),
    ),
    name: Type.String({ minLength: 1, maxLength: 256 }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    inputs: objects('One input object per example.'),
    outputs: Type.Optional(objects('Expected outputs, one per example (default {}).')),
    metadata: Type.Optional(objects('Metadata, one object per example (default {}).')),
    splits: Type.Optional(
      Type.Array(Type.Unknown(), {
        description: 'Accepted and ignored: put examples into splits with the /v1/datasets/{id}/splits routes.',
      }),
    ),
    span_ids: optionalIds('The OpenTelemetry span id each example was made from, or null.'),
    example_ids: optionalIds("The caller's stable id of each example, or null."),
  },
  { additionalProperties: true },
);

/** The answer of deleting an example: the new version, which holds the dataset's other examples (Sightline addition). */
export const DeleteDatasetExampleData = Type.Object(
  {
    dataset_id: Type.String(),
    version_id: Type.String({ description: 'The new version, without the example (older versions still hold it).' }),
    example_count: Type.Integer({ description: 'Examples the new version holds.' }),
  },
  { title: 'DeleteDatasetExampleData' },
);

export const UploadQuery = Type.Object({ sync: Type.Optional(Type.Boolean({ description: 'Accepted; uploads are always synchronous.' })) });
export const DatasetPath = Type.Object({ id: Type.String({ description: 'Dataset id (base64 "Dataset:<id>") or the dataset name.' }) });
export const DatasetExamplePath = Type.Object({
  id: Type.String({ description: 'Dataset id (base64 "Dataset:<id>") or the dataset name.' }),
  example_id: Type.String({ description: 'The example\'s node_id (base64 "DatasetExample:<id>") or its id (the caller\'s example id).' }),
});
export const DatasetListQuery = Type.Object({
  limit: limitParam,
  cursor: cursorParam,
  name: Type.Optional(Type.String({ description: 'Exact name.' })),
});
export const VersionsQuery = Type.Object({ limit: limitParam, cursor: cursorParam });
export const ExamplesQuery = Type.Object({
  version_id: Type.Optional(Type.String({ description: 'Version to read (default: the latest).' })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_LIMIT,
      description: `Page size, 1 to ${MAX_LIMIT}; without it every example is sent (what Phoenix's clients expect).`,
    }),
  ),
  cursor: cursorParam,
  split: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Only the examples in one of these splits (DatasetSplit ids or names; repeat for several); an unknown one answers 404.',
    }),
  ),
});
