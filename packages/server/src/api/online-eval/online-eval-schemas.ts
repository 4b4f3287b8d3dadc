/** JSON schemas (TypeBox) of the online evaluation routes (docs/online-evaluation.md). */
import { Type } from '@sinclair/typebox';
import { MAX_BACKFILL_HOURS, MAX_RULE_EVALUATORS } from '../../evaluators/online-rules-service.js';
import { Id, Nullable, StringEnum, cursorParam, limitParam } from '../shared/schemas.js';

const Target = StringEnum(['span', 'trace', 'session'] as const, {
  description:
    'What the rule evaluates: spans the filter matches, traces whose root span it matches (annotations on the trace), or ' +
    'sessions once they have had no new turn for `session_idle_minutes` (annotations on the session).',
});

const RuleEvaluator = Type.Object({
  id: Id('Evaluator'),
  name: Type.String({ description: "The evaluator's name: the name of the annotations it makes." }),
  kind: StringEnum(['LLM', 'CODE'] as const),
  version: Type.Integer({ description: 'Its current version, which the next evaluations use.' }),
});

export const OnlineEvalRule = Type.Object(
  {
    id: Id('OnlineEvalRule'),
    project_id: Id('Project'),
    name: Type.String(),
    target: Target,
    filter: Type.String({ description: 'A span condition in the span query syntax (docs/api.md, "Span queries"); empty: every span.' }),
    sampling_rate: Type.Number({ description: 'The share of what the filter matches that is evaluated, by a hash of the item id.' }),
    session_idle_minutes: Nullable(
      Type.Integer({ description: 'Session rules: minutes without a new turn before a session is evaluated.' }),
    ),
    rate_limit_per_minute: Nullable(Type.Integer({ description: 'Most evaluations per minute; the rest wait their turn.' })),
    daily_cost_limit_usd: Nullable(
      Type.Number({ description: 'Most judge spending per UTC day; what the rule samples past it that day is skipped (and listed).' }),
    ),
    enabled: Type.Boolean(),
    evaluators: Type.Array(RuleEvaluator),
    queue_id: Nullable(Id('AnnotationQueue')),
    queue_when_score_below: Nullable(
      Type.Number({ description: 'Only items an evaluator scored below this go to the queue; null: every item evaluated.' }),
    ),
    backfilling: Type.Boolean({ description: 'A backfill is in progress.' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'OnlineEvalRule' },
);

const EvaluatorRef = Type.String({ minLength: 1, description: 'An evaluator: its id (base64 "Evaluator:<id>") or its name.' });
const fields = {
  name: Type.String({ minLength: 1, maxLength: 128, description: 'Unique in the project.' }),
  filter: Type.Optional(Type.String({ maxLength: 4096 })),
  sampling_rate: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1, description: 'Default 1: every matching item.' })),
  session_idle_minutes: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1440 }))),
  rate_limit_per_minute: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100_000 }))),
  daily_cost_limit_usd: Type.Optional(Nullable(Type.Number({ exclusiveMinimum: 0 }))),
  enabled: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  evaluators: Type.Array(EvaluatorRef, { minItems: 1, maxItems: MAX_RULE_EVALUATORS }),
  queue_id: Type.Optional(
    Nullable(Type.String({ description: 'An annotation queue (base64 "AnnotationQueue:<id>") the evaluated items go to for review.' })),
  ),
  queue_when_score_below: Type.Optional(
    Nullable(Type.Number({ description: 'Only items an evaluator scored below this go to the queue (e.g. 0.5); null: every item.' })),
  ),
};

export const CreateRuleBody = Type.Object(
  {
    ...fields,
    target: Target,
    backfill_hours: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: MAX_BACKFILL_HOURS,
        description: 'Also evaluate what the rule would have picked in the last N hours.',
      }),
    ),
  },
  { title: 'CreateOnlineEvalRuleRequestBody' },
);

export const UpdateRuleBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    target: Type.Optional(Target),
    filter: fields.filter,
    sampling_rate: fields.sampling_rate,
    session_idle_minutes: fields.session_idle_minutes,
    rate_limit_per_minute: fields.rate_limit_per_minute,
    daily_cost_limit_usd: fields.daily_cost_limit_usd,
    enabled: fields.enabled,
    evaluators: Type.Optional(fields.evaluators),
    queue_id: fields.queue_id,
    queue_when_score_below: fields.queue_when_score_below,
  },
  { title: 'UpdateOnlineEvalRuleRequestBody' },
);

export const BackfillBody = Type.Object(
  { hours: Type.Number({ exclusiveMinimum: 0, maximum: MAX_BACKFILL_HOURS, description: 'How far back, in hours (at most a week).' }) },
  { title: 'BackfillOnlineEvalRuleRequestBody' },
);

export const RuleStats = Type.Object(
  {
    evaluated: Type.Integer({ description: 'Items evaluated (one per item and evaluator).' }),
    pending: Type.Integer({ description: 'Items waiting to be evaluated (or to be tried again).' }),
    failed: Type.Integer({ description: 'Items whose evaluation kept failing (listed by GET …/items?status=failed).' }),
    skipped: Type.Integer({ description: 'Items not evaluated: deleted first, over the daily cost limit, or their evaluator removed.' }),
    cost_today_usd: Type.Number(),
    cost_total_usd: Type.Number(),
    oldest_pending_seconds: Type.Number({ description: 'How long the oldest waiting item has waited.' }),
    lag_p50_seconds: Nullable(Type.Number({ description: 'From sampled to evaluated, over the latest 500 evaluations.' })),
    lag_p99_seconds: Nullable(Type.Number()),
    backfilling: Type.Boolean(),
  },
  { title: 'OnlineEvalRuleStats' },
);

export const RuleItem = Type.Object(
  {
    id: Id('OnlineEvalItem'),
    target_kind: Target,
    target_id: Type.String({ description: "The span's or trace's OpenTelemetry id, or the session's session.id." }),
    evaluator_id: Id('Evaluator'),
    status: StringEnum(['pending', 'done', 'failed', 'skipped'] as const),
    attempts: Type.Integer(),
    error: Nullable(Type.String({ description: 'Why it failed or was skipped (for a pending item, why its last attempt failed).' })),
    evaluator_version: Nullable(Type.Integer()),
    cost_usd: Nullable(Type.Number()),
    created_at: Type.String({ format: 'date-time', description: 'When the rule sampled it.' }),
    finished_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'OnlineEvalItem' },
);

export const ProjectRulesPath = Type.Object({ project_identifier: Type.String({ description: 'The project: its id or its name.' }) });
export const RulePath = Type.Object({ rule_id: Type.String({ description: 'The rule (base64 "OnlineEvalRule:<id>").' }) });
export const ListQuery = Type.Object({ limit: limitParam, cursor: cursorParam });
export const ItemsQuery = Type.Object({
  limit: limitParam,
  cursor: cursorParam,
  status: Type.Optional(
    StringEnum<'pending' | 'done' | 'failed' | 'skipped'>(['pending', 'done', 'failed', 'skipped'], { default: 'failed' }),
  ),
});
