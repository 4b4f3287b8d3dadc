/** Request and response schemas of annotation configs (Phoenix's shapes, tag `annotation_configs`). */
import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../shared/schemas.js';

const OPTIMIZATION_DIRECTIONS = ['MINIMIZE', 'MAXIMIZE', 'NONE'] as const;
const Direction = StringEnum(OPTIMIZATION_DIRECTIONS, { description: 'Whether higher or lower scores are better.' });
const name = Type.String({
  minLength: 1,
  description: 'Unique name; annotations of this name are checked against the config. "note" is reserved.',
});
const description = Type.Optional(Nullable(Type.String()));
const bound = (side: string) => Type.Optional(Nullable(Type.Number({ description: `${side} bound of the score (inclusive).` })));
const Id = Type.String({ description: 'Opaque id: base64 of "CategoricalAnnotationConfig:<row id>" (or Continuous…, Freeform…).' });

export const CategoricalAnnotationValue = Type.Object(
  { label: Type.String({ minLength: 1 }), score: Type.Optional(Nullable(Type.Number())) },
  { title: 'CategoricalAnnotationValue' },
);

const categorical = {
  name,
  type: Type.Literal('CATEGORICAL'),
  description,
  optimization_direction: Direction,
  values: Type.Array(CategoricalAnnotationValue, {
    description: 'The labels an annotation may carry (at least one, unique), with their scores.',
  }),
};
const continuous = {
  name,
  type: Type.Literal('CONTINUOUS'),
  description,
  optimization_direction: Direction,
  lower_bound: bound('Lower'),
  upper_bound: bound('Upper'),
};
const freeform = {
  name,
  type: Type.Literal('FREEFORM'),
  description,
  optimization_direction: Type.Optional(
    Type.Unsafe<(typeof OPTIMIZATION_DIRECTIONS)[number] | null>({ type: ['string', 'null'], enum: [...OPTIMIZATION_DIRECTIONS, null] }),
  ),
  threshold: Type.Optional(Nullable(Type.Number())),
  lower_bound: bound('Lower'),
  upper_bound: bound('Upper'),
};

export const CategoricalAnnotationConfigData = Type.Object(categorical, { title: 'CategoricalAnnotationConfigData' });
export const ContinuousAnnotationConfigData = Type.Object(continuous, { title: 'ContinuousAnnotationConfigData' });
export const FreeformAnnotationConfigData = Type.Object(freeform, { title: 'FreeformAnnotationConfigData' });

/** The body of create and update: one config of any type, told apart by `type`. */
export const CreateAnnotationConfigData = Type.Union([
  CategoricalAnnotationConfigData,
  ContinuousAnnotationConfigData,
  FreeformAnnotationConfigData,
]);

export const AnnotationConfig = Type.Union([
  Type.Object({ ...categorical, id: Id }, { title: 'CategoricalAnnotationConfig' }),
  Type.Object({ ...continuous, id: Id }, { title: 'ContinuousAnnotationConfig' }),
  Type.Object({ ...freeform, id: Id }, { title: 'FreeformAnnotationConfig' }),
]);

export const ConfigPath = Type.Object({
  config_identifier: Type.String({ description: 'Annotation config id (base64 "<Type>AnnotationConfig:<id>") or name.' }),
});

export const SetProjectAnnotationConfigsRequestBody = Type.Object(
  {
    annotation_config_ids: Type.Array(Type.String(), {
      description: 'Every config id the project should have; others are unassigned, an empty list clears all.',
    }),
  },
  { title: 'SetProjectAnnotationConfigsRequestBody' },
);
