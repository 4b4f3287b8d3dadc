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

const NanosInteger = (description: string) =>
  Type.Integer({ minimum: 0, description: `${description} Nanoseconds since the epoch, every digit exact (beyond 2^53).` });

export const OtlpAnyValue = Type.Recursive(
  (This) =>
    Type.Object(
      {
        array_value: Nullable(Type.Object({ values: Type.Array(This) }, { title: 'OtlpArrayValue' })),
        bool_value: Nullable(Type.Boolean()),
        bytes_value: Nullable(Type.String()),
        double_value: Nullable(Type.Number()),
        int_value: Nullable(Type.Integer()),
        kvlist_value: Type.Null(),
        string_value: Nullable(Type.String()),
      },
      { description: 'One of the fields is set; the others are null (a null or object attribute: none is).' },
    ),
  { $id: 'OtlpAnyValue', title: 'OtlpAnyValue' },
);

export const OtlpKeyValue = Type.Object({ key: Type.String(), value: OtlpAnyValue }, { title: 'OtlpKeyValue' });

export const OtlpSpan = Type.Object(
  {
    attributes: Type.Array(OtlpKeyValue, { description: 'Every attribute, openinference.span.kind included.' }),
    dropped_attributes_count: Type.Null(),
    dropped_events_count: Type.Null(),
    dropped_links_count: Type.Null(),
    end_time_unix_nano: NanosInteger('End.'),
    events: Nullable(
      Type.Array(
        Type.Object(
          {
            attributes: Type.Array(OtlpKeyValue),
            dropped_attributes_count: Type.Null(),
            name: Type.String(),
            time_unix_nano: Nullable(NanosInteger('Event time.')),
          },
          { title: 'OtlpEvent' },
        ),
        { description: 'null when the span has no events.' },
      ),
    ),
    flags: Type.Null(),
    kind: Type.Literal('SPAN_KIND_INTERNAL', {
      description: 'Always SPAN_KIND_INTERNAL, as Phoenix: the OpenInference kind is an attribute.',
    }),
    links: Type.Null(),
    name: Type.String(),
    parent_span_id: Nullable(Type.String({ description: 'OpenTelemetry span id of the parent (hex); null for a root span.' })),
    span_id: Type.String({ description: 'OpenTelemetry span id, 16 lower-case hex digits.' }),
    start_time_unix_nano: NanosInteger('Start.'),
    status: Type.Object(
      {
        code: Type.Integer({ description: '0 UNSET, 1 OK, 2 ERROR.' }),
        message: Nullable(Type.String({ description: 'The status message; null when empty.' })),
      },
      { title: 'OtlpStatus' },
    ),
    trace_id: Type.String({ description: 'OpenTelemetry trace id, 32 lower-case hex digits.' }),
    trace_state: Type.Null(),
  },
  { title: 'OtlpSpan' },
);
