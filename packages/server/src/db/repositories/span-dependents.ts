/**
 * The rows that belong to spans but have no foreign key to them, deleted by every path that
 * deletes spans (one span, a trace, sessions, retention): on PostgreSQL, `span_costs` (migration
 * 0047) and the spans' indexed search words (migration 0048). SQLite's costs cascade
 * from their keys, and its search words go by a trigger (docs/search.md); deleting its costs here
 * too costs nothing and keeps one path.
 */
import type { Kysely, OperandExpression } from 'kysely';
import type { Dialect } from '../../config.js';
import type { DB } from '../schema.js';

/** The spans whose rows go: every span of some traces (row ids, one, a list or a subquery), or one span of a trace. */
export type SpansOf = { traceRowids: number | readonly number[] | OperandExpression<number> } | { spanRowid: number; traceRowid: number };

/**
 * Deletes the costs and search words of the spans. Run it after the spans' own delete, in the
 * same transaction: should the search-vectors job be indexing these spans, it holds them FOR KEY
 * SHARE (search-vectors-repository.ts), so that delete waited for its commit and this one sees
 * the words it stored. A span's pending note needs no delete: the job finds no span there.
 */
export async function deleteSpanDependents(db: Kysely<DB>, dialect: Dialect, spans: SpansOf): Promise<void> {
  const tables = dialect === 'postgres' ? (['span_costs', 'span_search_vectors'] as const) : (['span_costs'] as const);
  for (const table of tables) {
    const query = db.deleteFrom(table);
    // By both ids: the words' key leads with the trace (migration 0048), the others' with the span.
    if ('spanRowid' in spans) await query.where('trace_rowid', '=', spans.traceRowid).where('span_rowid', '=', spans.spanRowid).execute();
    else if (typeof spans.traceRowids === 'number') await query.where('trace_rowid', '=', spans.traceRowids).execute();
    else await query.where('trace_rowid', 'in', spans.traceRowids).execute();
  }
}
