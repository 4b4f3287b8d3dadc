/** JSON schemas (TypeBox) of the experiment routes, Phoenix's shapes (docs/experiments.md). */
import { Type } from '@sinclair/typebox';
import { DatasetExample } from '../datasets/datasets-schemas.js';
import { Nullable, StringEnum, cursorParam, limitParam } from '../shared/schemas.js';

const JsonObject = (description: string) => Type.Object({}, { additionalProperties: true, description });
const Time = (description: string) => Type.String({ format: 'date-time', description });

export const Experiment = Type.Object(
  {
    id: Type.String({ description: 'Opaque experiment id (base64 of "Experiment:<row id>").' }),
    dataset_id: Type.String(),
    dataset_version_id: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    repetitions: Type.Integer(),
    metadata: JsonObject('Free-form metadata.'),
    project_name: Nullable(Type.String({ description: 'The project the task runs are traced to.' })),
    created_at: Time('Creation time (UTC).'),
    updated_at: Time('Last change (UTC).'),
    example_count: Type.Integer(),
    successful_run_count: Type.Integer(),
    failed_run_count: Type.Integer(),
    missing_run_count: Type.Integer({ description: 'example_count × repetitions − successful runs.' }),
    annotation_summaries: Type.Optional(
      Type.Array(
        Type.Object(
          {
            annotation_name: Type.String({ description: 'The evaluator.' }),
            mean_score: Nullable(Type.Number({ description: 'Mean of the scores given; null when none had a score.' })),
            count: Type.Integer({ description: 'Evaluations recorded, errors included.' }),
            error_count: Type.Integer(),
          },
          { title: 'ExperimentAnnotationSummary' },
        ),
        { description: 'Per evaluator, by name (Sightline addition).' },
      ),
    ),
    average_run_latency_ms: Type.Optional(
      Nullable(Type.Number({ description: 'Mean latency of the successful runs (Sightline addition).' })),
    ),
  },
  { title: 'Experiment' },
);

const ExperimentRunEvaluation = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    annotator_kind: Type.String(),
    label: Nullable(Type.String()),
    score: Nullable(Type.Number()),
    explanation: Nullable(Type.String()),
    error: Nullable(Type.String()),
  },
  { title: 'ExperimentRunEvaluation' },
);

const ExperimentRunFields = {
  id: Type.String(),
  experiment_id: Type.String(),
  dataset_example_id: Type.String(),
  repetition_number: Type.Integer(),
  start_time: Time('Start of the task (UTC).'),
  end_time: Time('End of the task (UTC).'),
  output: Type.Unknown({ description: "The task's output, as sent." }),
  error: Nullable(Type.String()),
  trace_id: Nullable(Type.String()),
  annotations: Type.Optional(Type.Array(ExperimentRunEvaluation)),
};

export const ExperimentRun = Type.Object(ExperimentRunFields, { title: 'ExperimentRun' });

const TokenCounts = Type.Object(
  { prompt: Type.Integer(), completion: Type.Integer(), total: Type.Integer() },
  { title: 'TokenCounts', description: "Token sums of the run's trace." },
);

export const ComparedRun = Type.Object(
  {
    ...ExperimentRunFields,
    latency_ms: Type.Number({ description: 'end_time − start_time.' }),
    token_counts: Nullable(TokenCounts),
  },
  { title: 'ComparedExperimentRun' },
);

export const ComparisonRow = Type.Object(
  {
    example: DatasetExample,
    runs: Type.Array(Type.Array(ComparedRun), {
      description: "One list per compared experiment, in the order asked: that experiment's runs of this example by repetition.",
    }),
  },
  { title: 'ExperimentComparisonRow' },
);

export const ComparisonQuery = Type.Object({
  experiment_id: Type.Union([Type.String(), Type.Array(Type.String())], {
    description: 'Experiments to compare (repeat the parameter); the first is the base whose examples make the rows.',
  }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: cursorParam,
  filter: Type.Optional(
    StringEnum(['regressed', 'improved', 'failed'] as const, {
      description:
        "Only the examples where another experiment's mean `score_name` is below the base's (regressed) or above it (improved), " +
        'or where a run or an evaluation failed (Sightline addition).',
    }),
  ),
  score_name: Type.Optional(
    Type.String({ minLength: 1, description: 'The evaluator whose score `regressed`, `improved` and `sort=score_delta` compare.' }),
  ),
  sort: Type.Optional(
    StringEnum(['example', 'score_delta'] as const, {
      description:
        'Row order: `example` (default, the examples in order) or `score_delta`: the largest drop of another experiment’s mean ' +
        '`score_name` against the base’s first, examples without a delta last (Sightline addition; needs `score_name` and two experiments).',
    }),
  ),
});

export const CreateExperimentBody = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ maxLength: 256 }))),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
    project_name: Type.Optional(
      Nullable(Type.String({ maxLength: 256, description: 'Project for the task traces (default: generated).' })),
    ),
    repetitions: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 1 })),
    version_id: Type.Optional(Nullable(Type.String({ description: 'Dataset version (default: the latest).' }))),
    splits: Type.Optional(Nullable(Type.Array(Type.String(), { description: 'Accepted and ignored: splits are not supported yet.' }))),
  },
  { additionalProperties: true },
);

export const CreateRunBody = Type.Object(
  {
    dataset_example_id: Type.String(),
    output: Type.Optional(Type.Unknown()),
    repetition_number: Type.Integer({ minimum: 1 }),
    start_time: Type.String({ format: 'date-time' }),
    end_time: Type.String({ format: 'date-time' }),
    trace_id: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    error: Type.Optional(Nullable(Type.String())),
  },
  { additionalProperties: true },
);

export const EvaluationBody = Type.Object(
  {
    experiment_run_id: Type.String(),
    name: Type.String({ minLength: 1, maxLength: 256 }),
    annotator_kind: Type.String({ description: 'LLM, CODE or HUMAN.' }),
    start_time: Type.String({ format: 'date-time' }),
    end_time: Type.String({ format: 'date-time' }),
    result: Type.Optional(
      Nullable(
        Type.Object(
          {
            label: Type.Optional(Nullable(Type.String())),
            score: Type.Optional(Nullable(Type.Number())),
            explanation: Type.Optional(Nullable(Type.String())),
            metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
          },
          { additionalProperties: true },
        ),
      ),
    ),
    error: Type.Optional(Nullable(Type.String())),
    trace_id: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true },
);

export const IncompleteRun = Type.Object(
  { dataset_example: DatasetExample, repetition_numbers: Type.Array(Type.Integer()) },
  { title: 'IncompleteExperimentRun' },
);
export const IncompleteEvaluation = Type.Object(
  { experiment_run: ExperimentRun, dataset_example: DatasetExample, evaluation_names: Type.Array(Type.String()) },
  { title: 'IncompleteExperimentEvaluation' },
);

export const UpdateExperimentBody = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ maxLength: 256, description: 'New name (null or blank is refused).' }))),
    description: Type.Optional(Nullable(Type.String({ maxLength: 10_000, description: 'New description; null clears it.' }))),
    metadata: Type.Optional(
      Nullable(Type.Object({}, { additionalProperties: true, description: 'New metadata, replacing the old whole (null is refused).' })),
    ),
  },
  { title: 'UpdateExperimentRequestBody', description: 'Fields to change; an omitted field is left as it is.' },
);
export const ExperimentPath = Type.Object({ experiment_id: Type.String({ description: 'Experiment id (base64 "Experiment:<id>").' }) });
export const DatasetIdPath = Type.Object({ dataset_id: Type.String({ description: 'Dataset id (base64 "Dataset:<id>") or name.' }) });
export const PageQuery = Type.Object({ limit: limitParam, cursor: cursorParam });
export const IncompleteEvaluationsQuery = Type.Object({
  limit: limitParam,
  cursor: cursorParam,
  evaluation_name: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
});
