/** Response schemas of traces (Phoenix's TraceData and TraceSpanData plus Sightline's additions). */
import { Type } from '@sinclair/typebox';
import { Id, Nullable, STATUS_CODES, StringEnum, Time } from '../shared/schemas.js';
import { Span } from '../spans/spans-schemas.js';

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
    input: Type.Optional(
      Nullable(Type.String({ description: "The root span's input.value, its first 300 characters (Sightline addition)." })),
    ),
    output: Type.Optional(
      Nullable(Type.String({ description: "The root span's output.value, its first 300 characters (Sightline addition)." })),
    ),
    spans: Type.Optional(Nullable(Type.Array(TraceSpan, { description: 'Only with include_spans=true, in start order.' }))),
  },
  { title: 'TraceData', description: "Phoenix's TraceData plus latency_ms, span_count, error_count and root_span (the first root span)." },
);

export const TraceDetail = Type.Object(
  {
    ...traceProperties,
    spans: Type.Array(Span, { description: 'The spans of the trace in start order: all of them, or the first 2,000 (spans_truncated).' }),
    spans_truncated: Type.Boolean({
      description:
        'True when the trace has more than 2,000 spans and `spans` holds the first 2,000; span_count and the sums count them all.',
    }),
  },
  { title: 'TraceDetail' },
);

export const TransferTracesData = Type.Object(
  {
    transferred_trace_count: Type.Integer({ description: 'The number of traces that were moved to the destination project.' }),
    destination_project_id: Id('Project'),
  },
  { title: 'TransferTracesData' },
);
