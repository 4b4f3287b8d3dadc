/** JSON schemas (TypeBox) of the dataset label routes, Phoenix's shapes (docs/datasets.md, "Labels"). */
import { Type } from '@sinclair/typebox';
import { MAX_LABELS_PER_SET, MAX_LABEL_NAME_LENGTH } from '../../datasets/dataset-labels-service.js';
import { Id, Nullable, cursorParam, limitParam } from '../shared/schemas.js';

export const DatasetLabel = Type.Object(
  {
    id: Id('DatasetLabel'),
    name: Type.String(),
    description: Nullable(Type.String()),
    color: Type.String({ description: "A lower-case six-digit hex colour, e.g. '#00cc88'." }),
  },
  { title: 'DatasetLabel' },
);

const name = (description: string) => Type.String({ minLength: 1, maxLength: MAX_LABEL_NAME_LENGTH, description });
const color = (description: string) => Type.String({ maxLength: 7, description });
const description = (text: string) => Nullable(Type.String({ maxLength: 10_000, description: text }));

export const CreateDatasetLabelBody = Type.Object(
  {
    name: name('The name of the label, unique on the server (409 when taken).'),
    color: color("A lower-case six-digit hex colour, e.g. '#00cc88'."),
    description: Type.Optional(description('An optional description.')),
  },
  { title: 'CreateDatasetLabelRequestBody' },
);

export const UpdateDatasetLabelBody = Type.Object(
  {
    name: Type.Optional(Nullable(name('New name (null is refused: a label always has a name).'))),
    color: Type.Optional(Nullable(color('New lower-case hex colour (null is refused).'))),
    description: Type.Optional(description('New description; null clears it.')),
  },
  { title: 'UpdateDatasetLabelRequestBody', description: 'Fields to change; an omitted field is left as it is.' },
);

export const SetDatasetLabelsBody = Type.Object(
  {
    dataset_label_ids: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: MAX_LABELS_PER_SET,
        description: 'Every label the dataset is to carry (DatasetLabel ids); the others are removed; an empty list removes all.',
      }),
    ),
  },
  { title: 'SetDatasetLabelsRequestBody' },
);

export const LabelPath = Type.Object({ label_id: Type.String({ description: 'Dataset label id (base64 "DatasetLabel:<id>").' }) });
export const DatasetIdentifierPath = Type.Object({
  dataset_identifier: Type.String({ description: 'Dataset id (base64 "Dataset:<id>") or the dataset name.' }),
});
export const DatasetLabelPath = Type.Object({ ...DatasetIdentifierPath.properties, ...LabelPath.properties });
export const LabelsQuery = Type.Object({ limit: limitParam, cursor: cursorParam });
