/** Response schemas of spans (Phoenix's Span plus Sightline's additions, marked in their descriptions). */
import { Type } from '@sinclair/typebox';
import { SPAN_KINDS } from '../../span-model/span-rows.js';
import { Id, JsonObject, Nullable, STATUS_CODES, StringEnum, Time } from '../shared/schemas.js';

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
