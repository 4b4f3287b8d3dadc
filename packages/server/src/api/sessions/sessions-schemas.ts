/** Request and response schemas of the sessions routes (Phoenix's SessionData plus Sightline's additions). */
import { Type } from '@sinclair/typebox';
import { Nullable } from '../shared/schemas.js';

const Time = (description: string) =>
  Type.String({ format: 'date-time', description: `${description} ISO 8601 UTC with nine fractional digits (nanoseconds).` });

export const SessionPath = Type.Object({
  session_identifier: Type.String({
    description: 'Session id (base64 "ProjectSession:<id>") or the session.id text the spans carried.',
  }),
});

export const SessionTrace = Type.Object(
  {
    id: Type.String({ description: 'Opaque Trace id (base64 of "Trace:<row id>").' }),
    trace_id: Type.String({ description: 'OpenTelemetry trace id, 32 lower-case hex digits.' }),
    start_time: Time('Start of the trace.'),
    end_time: Time('End of the trace.'),
  },
  { title: 'SessionTraceData' },
);

export const Session = Type.Object(
  {
    id: Type.String({ description: 'Opaque ProjectSession id (base64 of "ProjectSession:<row id>").' }),
    session_id: Type.String({ description: 'The session.id attribute of the spans.' }),
    project_id: Type.String({ description: 'Opaque Project id.' }),
    start_time: Time('Start of the earliest trace.'),
    end_time: Time('End of the latest trace.'),
    traces: Type.Array(SessionTrace, { description: 'Every trace (turn) of the session, in start order.' }),
    token_count_prompt: Type.Integer({ description: 'Sum over the LLM spans of the session.' }),
    token_count_completion: Type.Integer(),
    token_count_total: Type.Integer(),
    cost_prompt: Nullable(Type.Number({ description: 'USD over the priced LLM spans; null when none has a price (Sightline addition).' })),
    cost_completion: Nullable(Type.Number()),
    cost_total: Nullable(Type.Number()),
    trace_count: Type.Integer({ description: 'Number of traces (turns) (Sightline addition).' }),
    error_count: Type.Integer({ description: 'Spans of the session with status ERROR (Sightline addition).' }),
    duration_ms: Type.Number({ description: 'end_time − start_time in milliseconds (Sightline addition).' }),
    first_input: Nullable(Type.String({ description: "input.value of the first trace's root span (Sightline addition)." })),
    last_output: Nullable(Type.String({ description: "output.value of the last trace's root span (Sightline addition)." })),
  },
  { title: 'SessionData' },
);

export const DeleteSessionsBody = Type.Object(
  {
    session_identifiers: Type.Array(Type.String(), {
      minItems: 1,
      maxItems: 1000,
      description: 'Session ids or session.id texts, all of one kind; unknown ones are skipped.',
    }),
  },
  { title: 'DeleteSessionsRequestBody' },
);
