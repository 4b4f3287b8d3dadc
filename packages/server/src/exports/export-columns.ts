/**
 * The columns of a span export and of a trace export (docs/export.md, "Columns"), and the rows
 * built from stored spans and traces. A column says its type once; each format writes it its own
 * way (export-formats.ts): times as ISO 8601 text in CSV and JSONL and as nanosecond timestamps in
 * Parquet; JSON values as JSON text in CSV and Parquet and as themselves in JSONL.
 */
import type { RootIo } from '../db/repositories/sessions-repository.js';
import type { SpanRecord, SpanSummaryRecord } from '../db/repositories/spans-repository.js';
import type { TraceExportDetails, TraceRecord, TraceStats } from '../db/repositories/traces-repository.js';
import type { CostTotals } from '../db/repositories/costs-repository.js';
import { SPAN_KIND } from '../span-model/conventions/attribute-names.js';
import { MIXED_USERS } from '../span-model/trace-users.js';
import { latencyMs } from '../span-model/time.js';

/**
 * - `string`: short text; `id`: a hexadecimal id (no Parquet statistics: their range says nothing);
 * - `text`: text that may be long (no Parquet statistics, no dictionary);
 * - `timestamp`: nanoseconds since the epoch as exact decimal text;
 * - `int`, `double`: numbers; `json`: any JSON value.
 */
export type ColumnType = 'string' | 'id' | 'text' | 'timestamp' | 'int' | 'double' | 'json';

export interface ExportColumn {
  name: string;
  type: ColumnType;
}

/** One row: a value per column name, null when absent. */
export type ExportRow = Record<string, unknown>;

const column = (name: string, type: ColumnType): ExportColumn => ({ name, type });

export const SPAN_COLUMNS: readonly ExportColumn[] = [
  column('span_id', 'id'),
  column('trace_id', 'id'),
  column('parent_id', 'id'),
  column('name', 'string'),
  column('span_kind', 'string'),
  column('start_time', 'timestamp'),
  column('end_time', 'timestamp'),
  column('latency_ms', 'double'),
  column('status_code', 'string'),
  column('status_message', 'text'),
  column('attributes', 'json'),
  column('events', 'json'),
  column('token_count_prompt', 'int'),
  column('token_count_completion', 'int'),
  column('token_count_total', 'int'),
  column('cost_prompt', 'double'),
  column('cost_completion', 'double'),
  column('cost_total', 'double'),
];

export const TRACE_COLUMNS: readonly ExportColumn[] = [
  column('trace_id', 'id'),
  column('start_time', 'timestamp'),
  column('end_time', 'timestamp'),
  column('latency_ms', 'double'),
  column('span_count', 'int'),
  column('error_count', 'int'),
  column('status', 'string'),
  column('root_span_name', 'string'),
  column('root_span_kind', 'string'),
  column('input', 'text'),
  column('output', 'text'),
  column('token_count_prompt', 'int'),
  column('token_count_completion', 'int'),
  column('token_count_total', 'int'),
  column('cost_prompt', 'double'),
  column('cost_completion', 'double'),
  column('cost_total', 'double'),
  column('session_id', 'string'),
  column('user_id', 'string'),
];

/**
 * A span's row: its attributes in full (long values restored by the repository), as GET
 * /v1/spans/{id} gives them. The record is the export's own: its attributes are changed in place.
 */
export function spanRow(span: SpanRecord, cost: CostTotals | undefined): ExportRow {
  const attributes = span.attributes;
  // As the API's spans: the kind attribute is the span_kind column.
  delete attributes[SPAN_KIND];
  return {
    span_id: span.spanId,
    trace_id: span.traceId,
    parent_id: span.parentId,
    name: span.name,
    span_kind: span.spanKind,
    start_time: span.startTime,
    end_time: span.endTime,
    latency_ms: latencyMs(span.startTime, span.endTime),
    status_code: span.statusCode,
    status_message: span.statusMessage,
    attributes,
    events: span.events,
    token_count_prompt: span.tokenCountPrompt,
    token_count_completion: span.tokenCountCompletion,
    token_count_total: span.tokenCountTotal,
    cost_prompt: cost?.promptCost ?? null,
    cost_completion: cost?.completionCost ?? null,
    cost_total: cost?.totalCost ?? null,
  };
}

/** What a trace's row is made of, read a page of traces at a time (exports-service.ts). */
export interface TraceParts {
  stats: TraceStats | undefined;
  cost: CostTotals | undefined;
  /** Its first root span in start order. */
  root: SpanSummaryRecord | undefined;
  /** That root span's input.value and output.value, in full. */
  io: RootIo | undefined;
  details: TraceExportDetails | undefined;
}

export function traceRow(trace: TraceRecord, { stats, cost, root, io, details }: TraceParts): ExportRow {
  const errors = stats?.errorCount ?? 0;
  return {
    trace_id: trace.traceId,
    start_time: trace.startTime,
    end_time: trace.endTime,
    latency_ms: latencyMs(trace.startTime, trace.endTime),
    span_count: stats?.spanCount ?? 0,
    error_count: errors,
    // As the trace list shows it: ERROR when any span failed, else the root span's status.
    status: errors > 0 ? 'ERROR' : (root?.statusCode ?? 'UNSET'),
    root_span_name: root?.name ?? null,
    root_span_kind: root?.spanKind ?? null,
    input: io?.input ?? null,
    output: io?.output ?? null,
    token_count_prompt: stats?.tokenCountPrompt ?? 0,
    token_count_completion: stats?.tokenCountCompletion ?? 0,
    token_count_total: stats?.tokenCountTotal ?? 0,
    cost_prompt: cost?.promptCost ?? null,
    cost_completion: cost?.completionCost ?? null,
    cost_total: cost?.totalCost ?? null,
    session_id: details?.sessionId ?? null,
    // The one user its spans name; none when they name several (span-model/trace-users.ts).
    user_id: details?.userKey === MIXED_USERS ? null : (details?.userKey ?? null),
  };
}
