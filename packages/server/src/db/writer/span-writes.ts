/** What the span writers of both dialects share: a batch's spans grouped by trace, and its sessions. */
import type { SpanRow } from '../../span-model/span-rows.js';
import { minuteOf, NANOS_PER_MINUTE } from '../../span-model/time.js';
import { MIXED_USERS, mergeUserKeys } from '../../span-model/trace-users.js';
import { BUCKET_COLUMNS, LATENCY_BUCKETS, latencyBucket } from '../latency-histogram.js';

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

/** The dimensions of the rollups besides '' (every span): what a dashboard groups by without reading spans. */
export const ROLLUP_DIMENSIONS = ['span_kind', 'name', 'model', 'status'] as const;
export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];

/** One row of span_rollups as a transaction adds to it (docs/dashboards.md, "Rollups"). */
export interface RollupInBatch {
  projectId: number;
  minute: number;
  /** '' for every span of the minute. */
  /** `root`: the minute's root spans (no parent), for the project summary's latency (migration 0046). */
  dimension: '' | RollupDimension | 'root';
  /** '' for dimensions '' and root, and for spans that name no model. */
  value: string;
  spanCount: number;
  errorCount: number;
  /** Nanoseconds. */
  latencySum: number;
  tokenCountPrompt: number;
  tokenCountCompletion: number;
  tokenCountTotal: number;
  /** Counts per latency bucket (db/latency-histogram.ts). */
  buckets: number[];
}

/**
 * Sums a transaction's stored spans per rollup row in memory, so the writer runs one upsert per
 * row instead of several per span. Only spans actually inserted are added: a span sent twice is
 * counted once.
 */
export class RollupAccumulator {
  private readonly rollups = new Map<string, RollupInBatch>();
  // The minute of the last span, by its bounds: a batch's spans mostly share a few minutes, and a
  // comparison of bigints costs less than their division.
  private minuteStart = 0n;
  private minuteEnd = 0n;
  private minute = 0;

  add(projectId: number, row: SpanRow): void {
    if (row.startTime < this.minuteStart || row.startTime >= this.minuteEnd) {
      this.minute = minuteOf(row.startTime);
      this.minuteStart = BigInt(this.minute) * NANOS_PER_MINUTE;
      this.minuteEnd = this.minuteStart + NANOS_PER_MINUTE;
    }
    const latency = Number(row.endTime - row.startTime);
    const bucket = latencyBucket(latency);
    const error = row.statusCode === 'ERROR' ? 1 : 0;
    const prefix = `${projectId}\u0000${this.minute}\u0000`;
    this.addTo(projectId, prefix, '', '', latency, bucket, error, row);
    this.addTo(projectId, prefix, 'span_kind', row.spanKind, latency, bucket, error, row);
    this.addTo(projectId, prefix, 'name', row.name, latency, bucket, error, row);
    this.addTo(projectId, prefix, 'model', row.modelName ?? '', latency, bucket, error, row);
    this.addTo(projectId, prefix, 'status', row.statusCode, latency, bucket, error, row);
    if (row.parentId === null) this.addTo(projectId, prefix, 'root', '', latency, bucket, error, row);
  }

  private addTo(
    projectId: number,
    prefix: string,
    dimension: RollupInBatch['dimension'],
    value: string,
    latency: number,
    bucket: number,
    error: number,
    row: SpanRow,
  ): void {
    const key = `${prefix}${dimension}\u0000${value}`;
    let rollup = this.rollups.get(key);
    if (rollup === undefined) {
      rollup = {
        projectId,
        minute: this.minute,
        dimension,
        value,
        spanCount: 0,
        errorCount: 0,
        latencySum: 0,
        tokenCountPrompt: 0,
        tokenCountCompletion: 0,
        tokenCountTotal: 0,
        buckets: new Array<number>(LATENCY_BUCKETS).fill(0),
      };
      this.rollups.set(key, rollup);
    }
    rollup.spanCount++;
    rollup.errorCount += error;
    rollup.latencySum += latency;
    rollup.tokenCountPrompt += row.tokenCountPrompt ?? 0;
    rollup.tokenCountCompletion += row.tokenCountCompletion ?? 0;
    rollup.tokenCountTotal += row.tokenCountTotal ?? 0;
    rollup.buckets[bucket]!++;
  }

  get size(): number {
    return this.rollups.size;
  }

  /** The rollups in key order, so that concurrent writers (PostgreSQL replicas) lock rows in one order. */
  sorted(): RollupInBatch[] {
    return [...this.rollups.values()].sort(compareRollupKeys);
  }
}

/** The order of rollup rows by key (the primary key's: project, dimension, minute, value) in which every writer locks them. */
export function compareRollupKeys(
  a: { projectId: number; dimension: string; minute: number; value: string },
  b: { projectId: number; dimension: string; minute: number; value: string },
): number {
  const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return a.projectId - b.projectId || compare(a.dimension, b.dimension) || a.minute - b.minute || compare(a.value, b.value);
}

/** The rollup upsert's column list and SET clause, the same in both dialects. */
export const ROLLUP_KEY_COLUMNS = ['project_id', 'dimension', 'minute', 'value'] as const;
export const ROLLUP_SUM_COLUMNS = [
  'span_count',
  'error_count',
  'latency_sum',
  'token_count_prompt',
  'token_count_completion',
  'token_count_total',
  ...BUCKET_COLUMNS,
] as const;
/** USD sums of the priced spans, as span_costs names them: added by the cost job, not by the span writers (cost-rollups.ts). */
export const ROLLUP_COST_COLUMNS = ['prompt_cost', 'completion_cost', 'total_cost'] as const;
export const ROLLUP_ADD = ROLLUP_SUM_COLUMNS.map((column) => `${column} = span_rollups.${column} + excluded.${column}`).join(', ');

/** A rollup's values in the order of ROLLUP_KEY_COLUMNS then ROLLUP_SUM_COLUMNS. */
export function rollupValues(rollup: RollupInBatch): (string | number)[] {
  return [
    rollup.projectId,
    rollup.dimension,
    rollup.minute,
    rollup.value,
    rollup.spanCount,
    rollup.errorCount,
    Math.round(rollup.latencySum),
    rollup.tokenCountPrompt,
    rollup.tokenCountCompletion,
    rollup.tokenCountTotal,
    ...rollup.buckets,
  ];
}
