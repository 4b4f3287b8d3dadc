/** What the span writers of both dialects share: a batch's spans grouped by trace. */
import type { SpanRow } from '../../ingest/span-rows.js';

/** Per-trace aggregate of a batch: a trace's time range and the project of its first span. */
export interface TraceInBatch {
  traceId: string;
  projectName: string;
  startTime: bigint;
  endTime: bigint;
}

/** Groups a batch's spans by trace, sorted by trace id so concurrent writers lock in one order. */
export function tracesOf(rows: SpanRow[]): TraceInBatch[] {
  const traces = new Map<string, TraceInBatch>();
  for (const row of rows) {
    const trace = traces.get(row.traceId);
    if (trace === undefined) {
      traces.set(row.traceId, { traceId: row.traceId, projectName: row.projectName, startTime: row.startTime, endTime: row.endTime });
    } else {
      if (row.startTime < trace.startTime) trace.startTime = row.startTime;
      if (row.endTime > trace.endTime) trace.endTime = row.endTime;
    }
  }
  return [...traces.values()].sort((a, b) => (a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : 0));
}
