/** Table types for Kysely. Span and trace times are nanoseconds since the epoch (BIGINT). */
import type { ColumnType, Generated } from 'kysely';

/** A BIGINT read back as text (exact) and written as bigint or text. */
export type Nanos = ColumnType<string, bigint | string, bigint | string>;
/** ISO 8601 UTC text, e.g. 2026-11-22T10:00:00.000Z. */
export type Timestamp = string;

export interface ProjectsTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TracesTable {
  id: Generated<number>;
  project_id: number;
  trace_id: string;
  start_time: Nanos;
  end_time: Nanos;
}

export interface SpansTable {
  id: Generated<number>;
  trace_rowid: number;
  project_id: number;
  span_id: string;
  parent_id: string | null;
  name: string;
  span_kind: string;
  start_time: Nanos;
  end_time: Nanos;
  status_code: string;
  status_message: string;
  attributes: string;
  events: string;
  llm_token_count_prompt: number | null;
  llm_token_count_completion: number | null;
  llm_token_count_total: number | null;
}

export interface DB {
  projects: ProjectsTable;
  traces: TracesTable;
  spans: SpansTable;
}
