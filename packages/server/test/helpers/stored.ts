/** Reads what the server stored, straight from its database. */
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/db/database.js';
import type { DB } from '../../src/db/schema.js';
import { mergeAttributes } from '../../src/span-model/long-attributes.js';

export interface StoredSpan {
  span_id: string;
  trace_id: string;
  parent_id: string | null;
  project: string;
  name: string;
  span_kind: string;
  start_time: string;
  end_time: string;
  status_code: string;
  status_message: string;
  attributes: Record<string, unknown>;
  events: { name: string; timestamp: string; attributes: Record<string, unknown> }[];
  llm_token_count_prompt: number | null;
  llm_token_count_completion: number | null;
  llm_token_count_total: number | null;
}

const parse = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

/** Every stored span of the given traces (all spans when none given), by span id. */
export async function storedSpans(database: Database, traceIds?: string[]): Promise<Map<string, StoredSpan>> {
  let query = database.db
    .selectFrom('spans')
    .innerJoin('traces', 'traces.id', 'spans.trace_rowid')
    .innerJoin('projects', 'projects.id', 'spans.project_id')
    .select([
      'spans.span_id',
      'traces.trace_id',
      'spans.parent_id',
      'projects.name as project',
      'spans.name',
      'spans.span_kind',
      sql<string>`cast(spans.start_time as text)`.as('start_time'),
      sql<string>`cast(spans.end_time as text)`.as('end_time'),
      'spans.status_code',
      'spans.status_message',
      'spans.attributes',
      'spans.long_attributes',
      'spans.events',
      'spans.llm_token_count_prompt',
      'spans.llm_token_count_completion',
      'spans.llm_token_count_total',
    ]);
  if (traceIds) query = query.where('traces.trace_id', 'in', traceIds);
  const rows = await query.execute();
  return new Map(
    rows.map(({ long_attributes, ...row }) => [
      row.span_id,
      {
        ...row,
        // The attributes as the API returns them: the JSON column's with the long values merged in (docs/ingest.md).
        attributes: mergeAttributes(parse(row.attributes), long_attributes),
        events: parse(row.events),
        llm_token_count_prompt: row.llm_token_count_prompt === null ? null : Number(row.llm_token_count_prompt),
        llm_token_count_completion: row.llm_token_count_completion === null ? null : Number(row.llm_token_count_completion),
        llm_token_count_total: row.llm_token_count_total === null ? null : Number(row.llm_token_count_total),
      } as StoredSpan,
    ]),
  );
}

/** The stored trace row (time range and project) of an OTel trace id. */
export async function storedTrace(database: Database, traceId: string) {
  return database.db
    .selectFrom('traces')
    .innerJoin('projects', 'projects.id', 'traces.project_id')
    .select([
      'projects.name as project',
      sql<string>`cast(traces.start_time as text)`.as('start_time'),
      sql<string>`cast(traces.end_time as text)`.as('end_time'),
    ])
    .where('traces.trace_id', '=', traceId)
    .executeTakeFirst();
}

/** Creates a project row directly (for tests that write as an older release did), and returns its id. */
export async function insertProject(db: Kysely<DB>, name: string): Promise<number> {
  const now = new Date().toISOString();
  const project = await db
    .insertInto('projects')
    .values({ name, description: null, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(project.id);
}
