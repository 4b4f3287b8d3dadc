/** What the span writers of both dialects share: a batch's spans grouped by trace, and its sessions. */
import type { SpanRow } from '../../span-model/span-rows.js';
import { MIXED_USERS, mergeUserKeys } from '../../span-model/trace-users.js';

/**
 * Per-trace aggregate of a batch: a trace's time range, the project of its first span, the first
 * session id seen, and the user key of its spans (span-model/trace-users.ts).
 */
export interface TraceInBatch {
  traceId: string;
  projectName: string;
  startTime: bigint;
  endTime: bigint;
  sessionId: string | null;
  userKey: string | null;
}

/** Groups a batch's spans by trace, sorted by trace id so concurrent writers lock in one order. */
export function tracesOf(rows: SpanRow[]): TraceInBatch[] {
  const traces = new Map<string, TraceInBatch>();
  for (const row of rows) {
    const trace = traces.get(row.traceId);
    if (trace === undefined) {
      traces.set(row.traceId, {
        traceId: row.traceId,
        projectName: row.projectName,
        startTime: row.startTime,
        endTime: row.endTime,
        sessionId: row.sessionId,
        userKey: row.userKey,
      });
    } else {
      trace.sessionId ??= row.sessionId;
      trace.userKey = mergeUserKeys(trace.userKey, row.userKey);
      if (row.startTime < trace.startTime) trace.startTime = row.startTime;
      if (row.endTime > trace.endTime) trace.endTime = row.endTime;
    }
  }
  return [...traces.values()].sort((a, b) => (a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : 0));
}

/** A session touched by a batch: its key and the time range of its traces' spans in the batch. */
export interface SessionInBatch {
  projectId: number;
  sessionId: string;
  startTime: bigint;
  endTime: bigint;
}

/**
 * The sessions a batch extends or creates, one per (project, session id), sorted so that
 * concurrent writers lock them in one order. A trace that already belongs to a session keeps it
 * (`existingSessionId`); otherwise the batch's `session.id` names it. Extending a session by
 * each batch's range of its traces keeps it equal to the union of its traces' ranges.
 */
export function sessionsOf(traces: { trace: TraceInBatch; projectId: number; existingSessionId: string | null }[]): SessionInBatch[] {
  const sessions = new Map<string, SessionInBatch>();
  for (const { trace, projectId, existingSessionId } of traces) {
    const sessionId = existingSessionId ?? trace.sessionId;
    if (sessionId === null) continue;
    const key = `${projectId}\u0000${sessionId}`;
    const session = sessions.get(key);
    if (session === undefined) sessions.set(key, { projectId, sessionId, startTime: trace.startTime, endTime: trace.endTime });
    else {
      if (trace.startTime < session.startTime) session.startTime = trace.startTime;
      if (trace.endTime > session.endTime) session.endTime = trace.endTime;
    }
  }
  return [...sessions.values()].sort((a, b) =>
    a.projectId !== b.projectId ? a.projectId - b.projectId : a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0,
  );
}

/** The upsert's SQL for a stored trace's user key and a batch's (`excluded`), as mergeUserKeys does: same in both dialects. */
export const MERGE_USER_ID = `CASE
    WHEN excluded.user_id IS NULL THEN traces.user_id
    WHEN traces.user_id IS NULL OR traces.user_id = excluded.user_id THEN excluded.user_id
    ELSE '${MIXED_USERS}' END`;
