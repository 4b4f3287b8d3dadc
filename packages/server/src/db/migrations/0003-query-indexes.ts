/**
 * Indexes for the query API (every list and filter of /v1/projects/..., keyset order
 * `start_time, id`), and the span_annotations table.
 *
 * List orders are (start_time, id) descending or ascending; both dialects scan these
 * indexes in either direction, so one index serves both orders.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const run = (statement: string) => sql.raw(statement).execute(db);

    // Spans of a project, newest first, with the id as tie-breaker (replaces project_id, start_time).
    await run('DROP INDEX spans_project_start');
    await run('CREATE INDEX spans_project_start_id ON spans (project_id, start_time DESC, id DESC)');
    // Root spans only (`parent_id=null`, root-span latency): a small partial index, appended in time order.
    // Children of a span (`parent_id=<span id>`) are found through the parent's trace (spans_trace_start
    // below), which saves an index on parent_id whose random inserts would slow ingest.
    await run('CREATE INDEX spans_project_roots ON spans (project_id, start_time DESC, id DESC) WHERE parent_id IS NULL');
    // Error spans only (`status_code=ERROR`): errors are rare, so this stays small. Queries must
    // write the literal 'ERROR' (not a bound parameter) for SQLite to use it.
    await run("CREATE INDEX spans_project_errors ON spans (project_id, start_time DESC, id DESC) WHERE status_code = 'ERROR'");
    // `span_kind=` filter and the per-kind and per-model summaries.
    await run('CREATE INDEX spans_project_kind_start ON spans (project_id, span_kind, start_time DESC, id DESC)');
    // `name=` filter.
    await run('CREATE INDEX spans_project_name_start ON spans (project_id, name, start_time DESC, id DESC)');
    // Spans of a trace in time order (trace detail, `trace_id=` filter, per-trace aggregates); replaces (trace_rowid).
    await run('DROP INDEX spans_trace');
    await run('CREATE INDEX spans_trace_start ON spans (trace_rowid, start_time, id)');

    // Traces of a project by start time (replaces project_id, start_time), and by latency.
    await run('DROP INDEX traces_project_start');
    await run('CREATE INDEX traces_project_start_id ON traces (project_id, start_time DESC, id DESC)');
    await run('CREATE INDEX traces_project_latency ON traces (project_id, (end_time - start_time), id)');

    await db.schema
      .createTable('span_annotations')
      .addColumn('id', pg ? 'bigserial' : 'integer', (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('span_rowid', 'bigint', (c) => c.notNull().references('spans.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('label', 'text')
      .addColumn('score', pg ? 'double precision' : 'real')
      .addColumn('explanation', 'text')
      .addColumn('metadata', pg ? 'jsonb' : 'text', (c) => c.notNull())
      .addColumn('annotator_kind', 'text', (c) => c.notNull().check(sql`annotator_kind in ('LLM', 'CODE', 'HUMAN')`))
      .addColumn('identifier', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('API', 'APP')`))
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('span_annotations_name_span_identifier', ['name', 'span_rowid', 'identifier'])
      .execute();
    // Annotations of given spans, newest first (the unique key leads with name, so it cannot serve this).
    await run('CREATE INDEX span_annotations_span ON span_annotations (span_rowid, id)');
    await run('CREATE INDEX span_annotations_identifier ON span_annotations (identifier, id)');
    await run('CREATE INDEX span_annotations_user ON span_annotations (user_id) WHERE user_id IS NOT NULL');
  };
}
