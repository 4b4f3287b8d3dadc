/**
 * Span ingest SQL for PostgreSQL: one dedicated connection, each batch a transaction of
 * set-based statements (projects, trace ids, traces via unnest, spans via unnest, and, when the
 * batch touches sessions, sessions and the traces' links to them). Safe across replicas:
 * conflicts resolve by unique keys, traces are locked in trace-id order and sessions in key
 * order. Traces and spans are partitioned by day (docs/partitioning.md): a new trace's row id
 * carries its day, and the day's partitions are created before the batch's transaction.
 */
import type pg from 'pg';
import { createPgPool, inPgTransaction } from '@sightline/common';
import type { SpanRow } from '../../span-model/span-rows.js';
import { dayOfMillis, partitionDayOf } from '../partitions.js';
import { createDayPartitions } from '../repositories/partitions-postgres.js';
import {
  MERGE_USER_ID,
  ROLLUP_ADD,
  ROLLUP_KEY_COLUMNS,
  ROLLUP_SUM_COLUMNS,
  RollupAccumulator,
  rollupValues,
  sessionsOf,
  tracesOf,
  type TraceInBatch,
} from './span-writes.js';

/**
 * DO UPDATE (not DO NOTHING) so the statement returns the id even when another replica created
 * the project a moment before: DO NOTHING returns no row then, and a separate SELECT in the same
 * statement does not see the other transaction's row either. The no-op update names a non-key
 * column, so its row lock (FOR NO KEY UPDATE) does not wait for the key-share locks that other
 * writers' foreign keys take on the project; it still holds until the commit, so a batch upserts
 * its projects in name order (see projectIdsOf).
 */
/** The ones of the given project ids that are not deleted. */
const LIVE_PROJECTS = 'SELECT id FROM projects WHERE id = ANY($1::bigint[]) AND deleted_at IS NULL';

const UPSERT_PROJECT = `
  INSERT INTO projects (name, description, created_at, updated_at) VALUES ($1, NULL, $2, $2)
  ON CONFLICT (name) DO UPDATE SET updated_at = projects.updated_at
  RETURNING id`;

/**
 * A row id for each new trace id, `day × 2^32 + sequence` (db/partitions.ts); trace ids already
 * stored keep theirs, which TRACE_ROWIDS reads. DO NOTHING waits for another replica's insert of
 * the same trace id to commit or roll back, and the next statement sees the row it committed.
 */
const CLAIM_TRACE_ROWIDS = `
  INSERT INTO trace_ids (trace_id, trace_rowid)
  SELECT t, (d << 32) + (nextval('traces_id_seq') & 4294967295) FROM unnest($1::text[], $2::bigint[]) AS u(t, d)
  ON CONFLICT (trace_id) DO NOTHING
  RETURNING trace_id, trace_rowid`;

const TRACE_ROWIDS = 'SELECT trace_id, trace_rowid FROM trace_ids WHERE trace_id = ANY($1::text[])';

const UPSERT_TRACES = `
  INSERT INTO traces (id, project_id, trace_id, start_time, end_time, user_id)
  SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::bigint[], $6::text[])
  ON CONFLICT (id) DO UPDATE SET
    start_time = LEAST(traces.start_time, excluded.start_time),
    end_time = GREATEST(traces.end_time, excluded.end_time),
    user_id = ${MERGE_USER_ID}
  RETURNING id, trace_id, project_id, project_session_rowid,
    (SELECT s.session_id FROM project_sessions s WHERE s.id = traces.project_session_rowid) AS session_id`;

/** Creates or extends each session of the batch (docs/sessions.md); the rows are unique and sorted by key. */
const UPSERT_SESSIONS = `
  INSERT INTO project_sessions (project_id, session_id, start_time, end_time)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[])
  ON CONFLICT (project_id, session_id) DO UPDATE SET
    start_time = LEAST(project_sessions.start_time, excluded.start_time),
    end_time = GREATEST(project_sessions.end_time, excluded.end_time)
  RETURNING id, project_id, session_id`;

/** A trace keeps the first session it was linked to. */
const LINK_TRACES = `
  UPDATE traces SET project_session_rowid = u.s
  FROM unnest($1::bigint[], $2::bigint[]) AS u(t, s)
  WHERE traces.id = u.t AND traces.project_session_rowid IS NULL`;

/**
 * Inserts the spans and, when `$17` (full-text search is on), notes the row ids of those it stored
 * in one `span_search_pending` row: the search-vectors job reads their words from the spans a
 * moment later (migration 0049, docs/search.md). One row per transaction, in the spans' statement:
 * the note is as durable as the spans and costs the writer neither a row per span nor a round trip.
 */
const INSERT_SPANS = `
  WITH inserted AS (
    INSERT INTO spans (trace_rowid, project_id, span_id, parent_id, name, span_kind, start_time, end_time,
      status_code, status_message, attributes, long_attributes, events,
      llm_token_count_prompt, llm_token_count_completion, llm_token_count_total)
    SELECT t, p, s, pa, n, k, st, et, sc, sm, a::jsonb, la, e::jsonb, tp, tc, tt
    FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[],
      $9::text[], $10::text[], $11::text[], $12::bytea[], $13::text[], $14::bigint[], $15::bigint[], $16::bigint[])
      AS u(t, p, s, pa, n, k, st, et, sc, sm, a, la, e, tp, tc, tt)
    ON CONFLICT (trace_rowid, span_id) DO NOTHING
    RETURNING id, trace_rowid, span_id
  ), pending AS (
    INSERT INTO span_search_pending (span_count, trace_rowids, span_rowids)
    SELECT count(*), array_agg(trace_rowid ORDER BY id), array_agg(id ORDER BY id) FROM inserted HAVING $17::boolean AND count(*) > 0
  )
  SELECT trace_rowid, span_id FROM inserted`;

/** The types of ROLLUP_KEY_COLUMNS (project_id, dimension, minute, value), then of the sums. */
const ROLLUP_TYPES = [
  'bigint',
  'text',
  'bigint',
  'text',
  ...ROLLUP_SUM_COLUMNS.map((column) => (column.startsWith('h') ? 'integer' : 'bigint')),
];

/**
 * Adds a batch's rollups (docs/dashboards.md) to their minutes' rows: one statement, rows unique
 * by key (aggregated in JS) and sorted, so replicas lock them in one order.
 */
const UPSERT_ROLLUPS = `
  INSERT INTO span_rollups (${[...ROLLUP_KEY_COLUMNS, ...ROLLUP_SUM_COLUMNS].join(', ')})
  SELECT * FROM unnest(${ROLLUP_TYPES.map((type, index) => `$${index + 1}::${type}[]`).join(', ')})
  ON CONFLICT (${ROLLUP_KEY_COLUMNS.join(', ')}) DO UPDATE SET ${ROLLUP_ADD}`;

/**
 * PostgreSQL's deadlock_detected and serialization_failure: the transaction was rolled back as a
 * whole, and running it again is safe (every statement is an upsert).
 */
const RETRYABLE_CODES = new Set(['40P01', '40001']);
const MAX_ATTEMPTS = 3;

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_CODES.has(code);
}

/** A span of the batch that its INSERT stored (not one stored already), with its trace's row. */
interface StoredRow {
  row: SpanRow;
  trace: { id: number; project_id: number };
}

/** The batch's rows that the INSERT returned, in batch order; a span twice in the batch counts once. */
function storedRows(
  rows: SpanRow[],
  traceRows: Map<string, { id: number; project_id: number }>,
  inserted: { trace_rowid: string; span_id: string }[],
): StoredRow[] {
  const keys = new Set(inserted.map((row) => `${Number(row.trace_rowid)}\u0000${row.span_id}`));
  const stored: StoredRow[] = [];
  for (const row of rows) {
    const trace = traceRows.get(row.traceId)!;
    const key = `${Number(trace.id)}\u0000${row.spanId}`;
    // delete(): a span twice in the batch was inserted once.
    if (keys.delete(key)) stored.push({ row, trace });
  }
  return stored;
}

/** Writes span batches to PostgreSQL on one dedicated connection. */
export class PostgresSpanWriter {
  private readonly pool: pg.Pool;
  private readonly projectIds = new Map<string, number>();
  /** Days whose partitions are known to exist. */
  private readonly partitionDays = new Set<number>();

  /**
   * `rollups: false` leaves the per-minute rollups out (SERVICE_DASHBOARD_ROLLUPS, docs/dashboards.md);
   * `searchIndex: false` leaves the spans out of the search index (SERVICE_FULL_TEXT_SEARCH, docs/search.md).
   */
  constructor(
    url: string,
    private readonly options: { rollups?: boolean; searchIndex?: boolean } = {},
  ) {
    this.pool = createPgPool(url, 1);
  }

  /** Inserts the rows in one transaction; resolves once the commit is durable. */
  async write(rows: SpanRow[]): Promise<void> {
    const traces = tracesOf(rows);
    // The day of each trace of the batch, should it be new (db/partitions.ts).
    const today = dayOfMillis(Date.now());
    const days = traces.map((trace) => partitionDayOf(trace.startTime, today));
    for (let attempt = 1; ; attempt++) {
      try {
        await this.createPartitions(today, days);
        await inPgTransaction(this.pool, (client) => this.insert(client, rows, traces, days));
        return;
      } catch (error) {
        // A rolled-back transaction may have cached ids of projects it created, and a partition
        // may have been dropped by hand: both are looked up again.
        this.projectIds.clear();
        this.partitionDays.clear();
        // Replicas writing the same traces or sessions at once may still meet in a deadlock;
        // PostgreSQL breaks it by rolling one back, which is retried here instead of refused.
        if (attempt >= MAX_ATTEMPTS || !isRetryable(error)) throw error;
      }
    }
  }

  forgetProjects(): void {
    this.projectIds.clear();
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  /**
   * Creates the partitions of the batch's days that are not known yet, and tomorrow's ahead of
   * need, so that a day's partition DDL rarely waits in front of its first batch.
   */
  private async createPartitions(today: number, traceDays: number[]): Promise<void> {
    const missing = [...new Set([today, today + 1, ...traceDays])].filter((day) => !this.partitionDays.has(day));
    if (missing.length === 0) return;
    await createDayPartitions(this.pool, missing);
    for (const day of missing) this.partitionDays.add(day);
  }

  /** The row id of each of the batch's traces: the stored trace's, or a new one in the trace's day. */
  private async traceRowidsOf(client: pg.PoolClient, traces: TraceInBatch[], days: number[]): Promise<Map<string, number>> {
    const claimed = await client.query<{ trace_id: string; trace_rowid: string }>({
      name: 'claim-trace-rowids',
      text: CLAIM_TRACE_ROWIDS,
      values: [traces.map((trace) => trace.traceId), days],
    });
    const rowids = new Map(claimed.rows.map((row) => [row.trace_id, Number(row.trace_rowid)]));
    if (rowids.size < traces.length) {
      const stored = await client.query<{ trace_id: string; trace_rowid: string }>({
        name: 'trace-rowids',
        text: TRACE_ROWIDS,
        values: [traces.filter((trace) => !rowids.has(trace.traceId)).map((trace) => trace.traceId)],
      });
      for (const row of stored.rows) rowids.set(row.trace_id, Number(row.trace_rowid));
    }
    return rowids;
  }

  /**
   * The ids of the batch's projects, creating the missing ones. Upserts run in name order: each
   * locks its row until the commit, and two replicas taking two new projects in opposite orders
   * would deadlock.
   */
  private async projectIdsOf(client: pg.PoolClient, names: string[]): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    const missing: string[] = [];
    for (const name of new Set(names)) {
      const cached = this.projectIds.get(name);
      if (cached === undefined) missing.push(name);
      else ids.set(name, cached);
    }
    if (ids.size > 0) {
      // Another replica may have deleted a cached project: it keeps its row (renamed) until the
      // retention job purges it, so a stale id would not fail its foreign key (docs/api.md,
      // "Deleting projects"). One look-up by primary key per batch.
      const live = await client.query<{ id: string }>({
        name: 'live-projects',
        text: LIVE_PROJECTS,
        values: [[...ids.values()]],
      });
      const liveIds = new Set(live.rows.map((row) => Number(row.id)));
      for (const [name, id] of ids) {
        if (liveIds.has(id)) continue;
        ids.delete(name);
        this.projectIds.delete(name);
        missing.push(name);
      }
    }
    missing.sort();
    const now = new Date().toISOString();
    for (const name of missing) {
      const result = await client.query<{ id: number }>({ name: 'upsert-project', text: UPSERT_PROJECT, values: [name, now] });
      const id = Number(result.rows[0]!.id);
      ids.set(name, id);
      this.projectIds.set(name, id);
    }
    return ids;
  }

  /** Creates or extends the batch's sessions and links new traces to theirs: two statements, only when a session is involved. */
  private async writeSessions(
    client: pg.PoolClient,
    traces: TraceInBatch[],
    traceRows: Map<string, { id: number; project_id: number; project_session_rowid: number | null; session_id: string | null }>,
  ): Promise<void> {
    const touched = traces.map((trace) => {
      const row = traceRows.get(trace.traceId)!;
      return { trace, row, projectId: Number(row.project_id), existingSessionId: row.session_id };
    });
    const sessions = sessionsOf(touched);
    if (sessions.length === 0) return;
    const sessionResult = await client.query<{ id: number; project_id: number; session_id: string }>({
      name: 'upsert-sessions',
      text: UPSERT_SESSIONS,
      values: [
        sessions.map((session) => session.projectId),
        sessions.map((session) => session.sessionId),
        sessions.map((session) => session.startTime.toString()),
        sessions.map((session) => session.endTime.toString()),
      ],
    });
    const sessionRowids = new Map(sessionResult.rows.map((row) => [`${Number(row.project_id)}\u0000${row.session_id}`, Number(row.id)]));
    const links = touched.filter(({ row, trace }) => row.project_session_rowid === null && trace.sessionId !== null);
    if (links.length === 0) return;
    await client.query({
      name: 'link-traces',
      text: LINK_TRACES,
      values: [
        links.map(({ row }) => row.id),
        links.map(({ projectId, trace }) => sessionRowids.get(`${projectId}\u0000${trace.sessionId}`)!),
      ],
    });
  }

  private async insert(client: pg.PoolClient, rows: SpanRow[], traces: TraceInBatch[], days: number[]): Promise<void> {
    const idsByName = await this.projectIdsOf(
      client,
      traces.map((trace) => trace.projectName),
    );
    const projectIds = traces.map((trace) => idsByName.get(trace.projectName)!);
    const traceRowids = await this.traceRowidsOf(client, traces, days);
    const traceResult = await client.query<{
      id: number;
      trace_id: string;
      project_id: number;
      project_session_rowid: number | null;
      session_id: string | null;
    }>({
      name: 'upsert-traces',
      text: UPSERT_TRACES,
      values: [
        traces.map((trace) => traceRowids.get(trace.traceId)!),
        projectIds,
        traces.map((trace) => trace.traceId),
        traces.map((trace) => trace.startTime.toString()),
        traces.map((trace) => trace.endTime.toString()),
        traces.map((trace) => trace.userKey),
      ],
    });
    const traceRows = new Map(traceResult.rows.map((row) => [row.trace_id, row]));
    await this.writeSessions(client, traces, traceRows);
    const column = <T>(pick: (row: SpanRow) => T) => rows.map(pick);
    const inserted = await client.query<{ trace_rowid: string; span_id: string }>({
      name: 'insert-spans',
      text: INSERT_SPANS,
      values: [
        column((row) => traceRows.get(row.traceId)!.id),
        column((row) => traceRows.get(row.traceId)!.project_id),
        column((row) => row.spanId),
        column((row) => row.parentId),
        column((row) => row.name),
        column((row) => row.spanKind),
        column((row) => row.startTime.toString()),
        column((row) => row.endTime.toString()),
        column((row) => row.statusCode),
        column((row) => row.statusMessage),
        column((row) => row.attributes),
        column((row) => row.longAttributes),
        column((row) => row.events),
        column((row) => row.tokenCountPrompt),
        column((row) => row.tokenCountCompletion),
        column((row) => row.tokenCountTotal),
        this.options.searchIndex !== false,
      ],
    });
    const stored = storedRows(rows, traceRows, inserted.rows);
    await this.writeRollups(client, stored);
  }

  /** Adds the spans the batch inserted (not those already stored) to their minutes' rollups. */
  private async writeRollups(client: pg.PoolClient, stored: StoredRow[]): Promise<void> {
    if (stored.length === 0 || this.options.rollups === false) return;
    const rollups = new RollupAccumulator();
    for (const { row, trace } of stored) rollups.add(Number(trace.project_id), row);
    const values = rollups.sorted().map(rollupValues);
    await client.query({
      name: 'upsert-rollups',
      text: UPSERT_ROLLUPS,
      values: ROLLUP_TYPES.map((_, index) => values.map((rollup) => rollup[index])),
    });
  }
}
