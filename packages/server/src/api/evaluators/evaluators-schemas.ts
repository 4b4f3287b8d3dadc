/** JSON schemas (TypeBox) of the evaluator routes (docs/evaluators.md). */
import { Type } from '@sinclair/typebox';
import { CodeEvaluatorDefinitionSchema } from '../../evaluators/code-evaluators.js';
import { LlmJudgeDefinitionSchema } from '../../evaluators/llm-judge.js';
import { MAX_EVALUATOR_NAME_LENGTH } from '../../evaluators/evaluators-service.js';
import { Id, Nullable, cursorParam, limitParam } from '../shared/schemas.js';

export const EvaluatorDefinition = Type.Union([LlmJudgeDefinitionSchema, CodeEvaluatorDefinitionSchema], {
  title: 'EvaluatorDefinition',
  description: 'What the evaluator does: an LLM judge (`type: llm_judge`) or one of the built-in code evaluators.',
});

const Kind = Type.Union([Type.Literal('LLM'), Type.Literal('CODE')], {
  description: 'LLM for a judge, CODE for a built-in code evaluator: the annotator kind of the evaluations it makes.',
});

export const Evaluator = Type.Object(
  {
    id: Id('Evaluator'),
    name: Type.String({ description: 'Unique; the name of the evaluations it makes.' }),
    description: Nullable(Type.String()),
    kind: Kind,
    version: Type.Integer({ minimum: 1, description: 'The current version: 1, then one more for each change of its definition.' }),
    version_id: Id('EvaluatorVersion'),
    definition: EvaluatorDefinition,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Evaluator' },
);

export const EvaluatorVersion = Type.Object(
  {
    id: Id('EvaluatorVersion'),
    version: Type.Integer({ minimum: 1 }),
    definition: EvaluatorDefinition,
    created_at: Type.String({ format: 'date-time' }),
  },
  { title: 'EvaluatorVersion' },
);

const Name = Type.String({ minLength: 1, maxLength: MAX_EVALUATOR_NAME_LENGTH, description: 'Unique among evaluators.' });
const Description = Nullable(Type.String({ maxLength: 10_000 }));

export const CreateEvaluatorBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    // Checked by the service, which names the field that is wrong in a sentence (422).
    definition: Type.Unknown({ description: 'An EvaluatorDefinition.' }),
  },
  { title: 'CreateEvaluatorRequestBody' },
);

export const UpdateEvaluatorBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    definition: Type.Optional(Type.Unknown({ description: 'An EvaluatorDefinition; a different one adds a version.' })),
  },
  { title: 'UpdateEvaluatorRequestBody' },
);

export const EvaluationItemBody = Type.Object(
  {
    input: Type.Optional(Type.Unknown({ description: 'The input (text or JSON).' })),
    output: Type.Optional(Type.Unknown({ description: 'The output to evaluate (text or JSON).' })),
    reference: Type.Optional(Type.Unknown({ description: 'The expected output.' })),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    latency_ms: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
    total_tokens: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
    cost_usd: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
  },
  { title: 'EvaluationItem' },
);

export const ExampleItemBody = Type.Object(
  {
    dataset_id: Type.String({ description: 'The dataset (its id or name).' }),
    example_id: Type.String({
      description: 'An example of it (base64 "DatasetExample:<id>"): its input, and its output as the reference.',
    }),
    output: Type.Optional(Type.Unknown({ description: 'The output to evaluate against the example.' })),
  },
  { title: 'ExampleEvaluationItem' },
);

export const SpanItemBody = Type.Object(
  {
    span_id: Type.String({
      pattern: '^[0-9a-fA-F]{16}$',
      description: 'A span (its OTel id): its input.value and output.value, metadata, latency, tokens and cost; no reference.',
    }),
  },
  { title: 'SpanEvaluationItem' },
);

export const TraceItemBody = Type.Object(
  {
    trace_id: Type.String({
      pattern: '^[0-9a-fA-F]{32}$',
      description: "A trace (its OTel id): its root span, with the whole trace's cost.",
    }),
  },
  { title: 'TraceEvaluationItem' },
);

/**
 * The kinds with a required key first, the item given whole last; none refuses unknown keys,
 * since the request validator strips them while it tries each kind in turn and the next kind
 * would then see the item without them.
 */
export const TryItemBody = Type.Union([SpanItemBody, TraceItemBody, ExampleItemBody, EvaluationItemBody]);

export const TryDefinitionBody = Type.Object(
  { definition: Type.Unknown({ description: 'An EvaluatorDefinition, not saved.' }), item: TryItemBody },
  { title: 'TryEvaluatorRequestBody' },
);
export const TrySavedBody = Type.Object({ item: TryItemBody }, { title: 'TrySavedEvaluatorRequestBody' });

const JudgeMessage = Type.Object({ role: Type.String(), content: Type.String() });

export const TryResult = Type.Object(
  {
    label: Nullable(Type.String()),
    score: Nullable(Type.Number()),
    explanation: Type.String(),
    prompt: Nullable(Type.Array(JudgeMessage, { description: "A judge's messages as sent (null for a code evaluator)." })),
    answer: Nullable(Type.String({ description: "A judge's raw answer (null for a code evaluator)." })),
  },
  { title: 'EvaluatorTryResult' },
);

export const JudgeTemplate = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    definition: Type.Omit(LlmJudgeDefinitionSchema, ['model']),
  },
  { title: 'JudgeTemplate' },
);

export const EvaluatorPath = Type.Object({
  evaluator_id: Type.String({ description: 'The evaluator: its id (base64 "Evaluator:<id>") or its name.' }),
});
export const DatasetPath = Type.Object({ dataset_id: Type.String({ description: 'The dataset: its id or its name.' }) });
export const DatasetEvaluatorPath = Type.Object({ ...DatasetPath.properties, ...EvaluatorPath.properties });
export const ListQuery = Type.Object({ limit: limitParam, cursor: cursorParam });
