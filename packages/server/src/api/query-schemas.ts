/**
 * JSON schemas (TypeBox) of the query API: request validation (failures answer 422) and the
 * response shapes, which also serialise the responses and make up the OpenAPI document.
 * Shapes follow Phoenix's REST schema (Project, Span, TraceData, SpanAnnotation, ...) plus
 * Sightline's additions, which are marked in their descriptions.
 */
import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { SPAN_KINDS } from '../span-model/span-rows.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from './pagination.js';

/**
 * The schema or null. Scalars become `type: [t, "null"]` rather than anyOf: Fastify's validator
 * coerces types, and in an anyOf it would turn null into "" (or "" into null) on the first branch,
 * whereas with a type list it leaves any value of a listed type alone.
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const type = (schema as { type?: unknown }).type;
  if (typeof type === 'string' && type !== 'object' && type !== 'array') {
    return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] });
  }
  return Type.Unsafe<Static<T> | null>(Type.Union([schema, Type.Null()]));
}
const StringEnum = <T extends string>(values: readonly T[], options: { description?: string; default?: T } = {}): TUnsafe<T> =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
const JsonObject = (description: string) => Type.Object({}, { additionalProperties: true, description });
const Time = (description: string) =>
  Type.String({ format: 'date-time', description: `${description} ISO 8601 UTC with nine fractional digits (nanoseconds).` });
const Id = (type: string) => Type.String({ description: `Opaque ${type} id (base64 of "${type}:<row id>").` });

export const STATUS_CODES = ['OK', 'ERROR', 'UNSET'] as const;
export const ANNOTATOR_KINDS = ['LLM', 'CODE', 'HUMAN'] as const;

/**
 * Error body of every failure: `detail` is always one human-readable sentence; a request that
 * failed schema validation (422) also lists each problem in `errors` (docs/api.md, "Errors").
 */
export const ErrorBody = Type.Object(
  {
    detail: Type.String({ description: 'What went wrong, in one sentence naming the field.' }),
    errors: Type.Optional(
      Type.Array(
        Type.Object(
          {
            loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
              description: 'Where: ["body", "user", "email"], ["query", "limit"].',
            }),
            msg: Type.String(),
          },
          { title: 'ValidationIssue' },
        ),
        { description: 'Schema validation failures (422 only).' },
      ),
    ),
  },
  { title: 'ErrorBody' },
);

/** The error statuses every query route can answer, for the OpenAPI document. */
type ErrorSchema = typeof ErrorBody & { description: string };
export function errors(...statuses: number[]): Record<number, ErrorSchema> {
  const descriptions: Record<number, string> = {
    401: 'No valid credential (auth enabled)',
    403: 'Not allowed',
    404: 'Not found',
    409: 'Conflict',
    422: 'Invalid request parameters or body',
  };
  return Object.fromEntries(
    [401, 403, ...statuses].map((status) => [status, { ...ErrorBody, description: descriptions[status] ?? 'Error' }]),
  );
}

export const limitParam = Type.Optional(
  Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: `Page size, 1 to ${MAX_LIMIT} (more answers 422).` }),
);
export const cursorParam = Type.Optional(
  Type.String({ description: 'The next_cursor of the previous page (opaque); an invalid cursor answers 422.' }),
);
export const startTimeParam = Type.Optional(
  Type.String({ description: 'Inclusive lower bound on start time (ISO 8601; UTC when no offset is given).' }),
);
export const endTimeParam = Type.Optional(
  Type.String({ description: 'Exclusive upper bound on start time (ISO 8601; UTC when no offset is given).' }),
);
export const orderParam = Type.Optional(
  StringEnum(['desc', 'asc'] as const, { description: 'Sort direction (default desc: newest first).' }),
);

/** `annotation` and `annotation_score` filters of the span and trace lists (docs/annotations.md, "Filters"). */
export const annotationFilterParams = (target: string) => ({
  annotation: Type.Optional(
    Type.Array(Type.String(), {
      description: `Only ${target} with an annotation \`name\`, or \`name:label\` with that label (split at the first colon); repeat to AND several (at most 10 annotation filters).`,
    }),
  ),
  annotation_score: Type.Optional(
    Type.Array(Type.String(), {
      description: `Only ${target} with an annotation whose score compares so: \`name>=0.5\` (operators >=, <=, >, <, =); repeat to AND several.`,
    }),
  ),
});

export const ProjectPath = Type.Object({
  project_identifier: Type.String({ description: 'Project id (base64 "Project:<id>") or project name.' }),
});

// ---------------------------------------------------------------- projects

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

// ---------------------------------------------------------------- spans

export const SpanEvent = Type.Object(
  { name: Type.String(), timestamp: Time('Event time.'), attributes: JsonObject('Event attributes under their dotted keys.') },
  { title: 'SpanEvent' },
);

export const Span = Type.Object(
  {
    id: Id('Span'),
    name: Type.String(),
    context: Type.Object(
      {
        trace_id: Type.String({ description: 'OpenTelemetry trace id, 32 lower-case hex digits.' }),
        span_id: Type.String({ description: 'OpenTelemetry span id, 16 lower-case hex digits.' }),
      },
      { title: 'SpanContext' },
    ),
    parent_id: Nullable(Type.String({ description: 'OpenTelemetry span id of the parent; null for a root span.' })),
    span_kind: Type.String({ description: `OpenInference span kind: ${SPAN_KINDS.join(', ')}.` }),
    start_time: Time('Start.'),
    end_time: Time('End.'),
    status_code: StringEnum(STATUS_CODES),
    status_message: Type.String(),
    attributes: JsonObject(
      'Attributes under their dotted OpenTelemetry keys (`llm.model_name`); `openinference.span.kind` is given as span_kind instead.',
    ),
    events: Type.Array(SpanEvent),
    latency_ms: Type.Number({ description: 'end_time − start_time in milliseconds (Sightline addition).' }),
    token_count_prompt: Nullable(
      Type.Integer({ description: 'llm.token_count.prompt of an LLM span; null for other kinds (Sightline addition).' }),
    ),
    token_count_completion: Nullable(Type.Integer({ description: 'llm.token_count.completion of an LLM span (Sightline addition).' })),
    token_count_total: Nullable(
      Type.Integer({ description: 'llm.token_count.total (else prompt + completion) of an LLM span (Sightline addition).' }),
    ),
    cost_total: Type.Optional(
      Nullable(Type.Number({ description: 'USD, when the span has a known price (trace and span detail only; Sightline addition).' })),
    ),
  },
  { title: 'Span' },
);

export const SpanDetail = Type.Object(
  { ...Span.properties, project_id: Id('Project') },
  { title: 'SpanDetail', description: 'A span with the id of its project (Sightline route).' },
);

// ---------------------------------------------------------------- traces

/** Phoenix's TraceSpanData: the columns of a span that a trace tree needs. */
export const TraceSpan = Type.Object(
  {
    id: Id('Span'),
    span_id: Type.String(),
    parent_id: Nullable(Type.String()),
    name: Type.String(),
    span_kind: Type.String(),
    status_code: StringEnum(STATUS_CODES),
    start_time: Time('Start.'),
    end_time: Time('End.'),
    latency_ms: Type.Number({ description: 'Sightline addition.' }),
  },
  { title: 'TraceSpanData' },
);

const traceProperties = {
  id: Id('Trace'),
  trace_id: Type.String({ description: 'OpenTelemetry trace id, 32 lower-case hex digits.' }),
  project_id: Id('Project'),
  start_time: Time('Start of the earliest span.'),
  end_time: Time('End of the latest span.'),
  latency_ms: Type.Number({ description: 'end_time − start_time in milliseconds (Sightline addition).' }),
  token_count_prompt: Type.Integer({ description: 'Sum over the LLM spans of the trace.' }),
  token_count_completion: Type.Integer(),
  token_count_total: Type.Integer(),
  span_count: Type.Integer({ description: 'Sightline addition.' }),
  error_count: Type.Integer({ description: 'Spans with status ERROR (Sightline addition).' }),
  cost_prompt: Nullable(Type.Number({ description: 'USD over the priced LLM spans; null when none has a price (Sightline addition).' })),
  cost_completion: Nullable(Type.Number()),
  cost_total: Nullable(Type.Number()),
  root_span: Nullable(TraceSpan),
};

export const Trace = Type.Object(
  {
    ...traceProperties,
    spans: Type.Optional(Nullable(Type.Array(TraceSpan, { description: 'Only with include_spans=true, in start order.' }))),
  },
  { title: 'TraceData', description: "Phoenix's TraceData plus latency_ms, span_count, error_count and root_span (the first root span)." },
);

export const TraceDetail = Type.Object(
  { ...traceProperties, spans: Type.Array(Span, { description: 'Every span of the trace, in start order.' }) },
  { title: 'TraceDetail' },
);

// ---------------------------------------------------------------- metrics

const tokenTotals = {
  token_count_prompt: Type.Integer(),
  token_count_completion: Type.Integer(),
  token_count_total: Type.Integer(),
};
const latencyPercentiles = {
  latency_ms_p50: Nullable(Type.Number({ description: 'Median latency of root spans (ms); null without root spans.' })),
  latency_ms_p99: Nullable(Type.Number({ description: '99th percentile latency of root spans (ms).' })),
};

export const ProjectSummary = Type.Object(
  {
    project_id: Id('Project'),
    start_time: Nullable(Time('Range start as requested (null: unbounded).')),
    end_time: Nullable(Time('Range end as requested (null: unbounded).')),
    span_count: Type.Integer(),
    trace_count: Type.Integer({ description: 'Traces whose start time is in the range.' }),
    error_count: Type.Integer({ description: 'Spans with status ERROR.' }),
    error_rate: Type.Number({ description: 'error_count / span_count (0 without spans).' }),
    ...latencyPercentiles,
    ...tokenTotals,
    cost_prompt: Type.Number({ description: 'USD over the priced LLM spans of the range (docs/costs.md).' }),
    cost_completion: Type.Number(),
    cost_total: Type.Number(),
    span_kinds: Type.Array(Type.Object({ span_kind: Type.String(), span_count: Type.Integer(), error_count: Type.Integer() }), {
      description: 'Spans per kind, most frequent first.',
    }),
    models: Type.Array(Type.Object({ model_name: Nullable(Type.String()), span_count: Type.Integer(), ...tokenTotals }), {
      description: 'LLM spans per llm.model_name (null: spans without one), most tokens first.',
    }),
  },
  { title: 'ProjectSummary' },
);

export const TimeseriesBucket = Type.Object(
  {
    start_time: Time('Bucket start (inclusive).'),
    end_time: Time('Bucket end (exclusive).'),
    span_count: Type.Integer(),
    trace_count: Type.Integer(),
    error_count: Type.Integer(),
    ...latencyPercentiles,
    ...tokenTotals,
  },
  { title: 'TimeseriesBucket' },
);

export const ProjectTimeseries = Type.Object(
  {
    project_id: Id('Project'),
    start_time: Time('Start of the first bucket.'),
    end_time: Time('Range end (exclusive).'),
    interval_seconds: Type.Integer(),
    buckets: Type.Array(TimeseriesBucket),
  },
  { title: 'ProjectTimeseries' },
);

// ---------------------------------------------------------------- annotations

export const AnnotationResult = Type.Object(
  {
    label: Type.Optional(Nullable(Type.String())),
    score: Type.Optional(Nullable(Type.Number())),
    explanation: Type.Optional(Nullable(Type.String())),
  },
  { title: 'AnnotationResult' },
);

/** Sightline addition: where an annotation was made; the web UI sends APP. */
export const AnnotationSourceParam = Type.Optional(
  StringEnum(['API', 'APP'] as const, { description: 'Sightline addition: APP for annotations made in the web UI; default API.' }),
);

export const SpanAnnotationData = Type.Object(
  {
    span_id: Type.String({ description: 'OpenTelemetry span id (16 hex digits).' }),
    name: Type.String({ minLength: 1, description: 'Annotation name; "note" is reserved.' }),
    annotator_kind: StringEnum(ANNOTATOR_KINDS),
    result: Type.Optional(Nullable(AnnotationResult)),
    metadata: Type.Optional(Nullable(JsonObject('Free-form metadata.'))),
    identifier: Type.Optional(
      Type.String({ default: '', description: 'Annotations with the same name, span and identifier are updated instead of added.' }),
    ),
    source: AnnotationSourceParam,
  },
  { title: 'SpanAnnotationData' },
);

export const SpanAnnotation = Type.Object(
  {
    id: Id('SpanAnnotation'),
    span_id: Type.String(),
    name: Type.String(),
    annotator_kind: StringEnum(ANNOTATOR_KINDS),
    result: Nullable(Type.Object({ label: Nullable(Type.String()), score: Nullable(Type.Number()), explanation: Nullable(Type.String()) })),
    metadata: JsonObject('Free-form metadata.'),
    identifier: Type.String(),
    source: StringEnum(['API', 'APP'] as const),
    user_id: Nullable(Id('User')),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'SpanAnnotation' },
);

export const SpanKindParam = StringEnum(SPAN_KINDS);
export const StatusCodeParam = StringEnum(STATUS_CODES);
export { StringEnum };
