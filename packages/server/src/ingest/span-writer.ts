/** What the write queue needs from storage: commit a batch of spans atomically. */
import type { SpanRow } from './span-rows.js';

export interface SpanWriter {
  /** Commits every row in one transaction; resolves only once the commit is durable. */
  write(rows: SpanRow[]): Promise<void>;
  /** Forgets cached project ids (call after a project is deleted). */
  forgetProjects(): void;
  close(): Promise<void>;
}

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
