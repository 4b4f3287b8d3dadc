/** Response shape of a session: Phoenix's SessionData plus trace_count, duration_ms, first_input and last_output. */
import type { SessionView } from '../../sessions/sessions-service.js';
import { latencyMs } from '../../span-model/time.js';
import { iso } from '../shared/times.js';
import { toGlobalId } from '../shared/global-id.js';

/** A session as the sessions routes answer it. */
export function presentSession(session: SessionView) {
  return {
    id: toGlobalId('ProjectSession', session.id),
    session_id: session.sessionId,
    project_id: toGlobalId('Project', session.projectId),
    start_time: iso(session.startTime),
    end_time: iso(session.endTime),
    traces: session.traces.map((trace) => ({
      id: toGlobalId('Trace', trace.id),
      trace_id: trace.traceId,
      start_time: iso(trace.startTime),
      end_time: iso(trace.endTime),
    })),
    token_count_prompt: session.tokens.prompt,
    token_count_completion: session.tokens.completion,
    token_count_total: session.tokens.total,
    error_count: session.tokens.errors,
    cost_prompt: session.cost?.promptCost ?? null,
    cost_completion: session.cost?.completionCost ?? null,
    cost_total: session.cost?.totalCost ?? null,
    trace_count: session.traces.length,
    duration_ms: latencyMs(session.startTime, session.endTime),
    first_input: session.firstInput,
    last_output: session.lastOutput,
  };
}
