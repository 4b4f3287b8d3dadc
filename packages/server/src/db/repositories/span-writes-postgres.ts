/**
 * Span ingest SQL for PostgreSQL: one dedicated connection, each batch a transaction of three
 * set-based statements (projects, traces via unnest, spans via unnest). Safe across replicas:
 * conflicts resolve by unique keys and traces are locked in trace-id order.
 */
import type pg from 'pg';
import { createPgPool, inPgTransaction } from '@sightline/common';
import type { SpanRow } from '../../ingest/span-rows.js';
import { tracesOf } from './span-writes.js';

/**
 * DO UPDATE (not DO NOTHING) so the statement returns the id even when another replica created
 * the project a moment before: DO NOTHING returns no row then, and a separate SELECT in the same
 * statement does not see the other transaction's row either.
 */
const UPSERT_PROJECT = `
  INSERT INTO projects (name, description, created_at, updated_at) VALUES ($1, NULL, $2, $2)
  ON CONFLICT (name) DO UPDATE SET name = excluded.name
  RETURNING id`;

const UPSERT_TRACES = `
  INSERT INTO traces (project_id, trace_id, start_time, end_time)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[])
  ON CONFLICT (trace_id) DO UPDATE SET
    start_time = LEAST(traces.start_time, excluded.start_time),
    end_time = GREATEST(traces.end_time, excluded.end_time)
  RETURNING id, trace_id, project_id`;

const INSERT_SPANS = `
  INSERT INTO spans (trace_rowid, project_id, span_id, parent_id, name, span_kind, start_time, end_time,
    status_code, status_message, attributes, events,
    llm_token_count_prompt, llm_token_count_completion, llm_token_count_total)
  SELECT t, p, s, pa, n, k, st, et, sc, sm, a::jsonb, e::jsonb, tp, tc, tt
  FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[],
    $9::text[], $10::text[], $11::text[], $12::text[], $13::bigint[], $14::bigint[], $15::bigint[])
    AS u(t, p, s, pa, n, k, st, et, sc, sm, a, e, tp, tc, tt)
  ON CONFLICT (span_id) DO NOTHING`;

/** Writes span batches to PostgreSQL on one dedicated connection. */
export class PostgresSpanWriter {
  private readonly pool: pg.Pool;
  private readonly projectIds = new Map<string, number>();

  constructor(url: string) {
    this.pool = createPgPool(url, 1);
  }

  /** Inserts the rows in one transaction; resolves once the commit is durable. */
  async write(rows: SpanRow[]): Promise<void> {
    try {
      await inPgTransaction(this.pool, (client) => this.insert(client, rows));
    } catch (error) {
      // A rolled-back transaction may have cached ids of projects it created.
      this.projectIds.clear();
      throw error;
    }
  }

  forgetProjects(): void {
    this.projectIds.clear();
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  private async projectId(client: pg.PoolClient, name: string): Promise<number> {
    let id = this.projectIds.get(name);
    if (id === undefined) {
      const result = await client.query<{ id: number }>({
        name: 'upsert-project',
        text: UPSERT_PROJECT,
        values: [name, new Date().toISOString()],
      });
      id = Number(result.rows[0]!.id);
      this.projectIds.set(name, id);
    }
    return id;
  }

  private async insert(client: pg.PoolClient, rows: SpanRow[]): Promise<void> {
    const traces = tracesOf(rows);
    const projectIds: number[] = [];
    for (const trace of traces) projectIds.push(await this.projectId(client, trace.projectName));
    const traceResult = await client.query<{ id: number; trace_id: string; project_id: number }>({
      name: 'upsert-traces',
      text: UPSERT_TRACES,
      values: [
        projectIds,
        traces.map((trace) => trace.traceId),
        traces.map((trace) => trace.startTime.toString()),
        traces.map((trace) => trace.endTime.toString()),
      ],
    });
    const traceRows = new Map(traceResult.rows.map((row) => [row.trace_id, row]));
    const column = <T>(pick: (row: SpanRow) => T) => rows.map(pick);
    await client.query({
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
        column((row) => row.events),
        column((row) => row.tokenCountPrompt),
        column((row) => row.tokenCountCompletion),
        column((row) => row.tokenCountTotal),
      ],
    });
  }
}
