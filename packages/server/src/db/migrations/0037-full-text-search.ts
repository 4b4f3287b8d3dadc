/**
 * Full-text search over spans' inputs, outputs and messages (docs/search.md). The words are cut
 * by the server (span-model/search-text.ts) and stored as they are:
 *
 * - SQLite: an FTS5 table without content of its own (the words are not kept twice), keyed by
 *   the span's row id, with the `ascii` tokenizer, which only splits at the spaces the server put
 *   between the words. `contentless_delete` lets a span's row go with the span: a trigger removes
 *   it on every path that deletes spans (API deletes, retention, project deletion).
 * - PostgreSQL: a tsvector column on spans with a GIN index, built per day partition, so
 *   retention's dropped partitions take their index with them.
 *
 * Spans stored before this migration have no words indexed.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up(context: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    if (context.dialect === 'postgres') {
      await sql.raw('ALTER TABLE spans ADD COLUMN search_vector tsvector').execute(db);
      await sql.raw('CREATE INDEX spans_search_vector ON spans USING gin (search_vector)').execute(db);
      return;
    }
    await sql
      .raw("CREATE VIRTUAL TABLE span_search USING fts5 (words, content = '', contentless_delete = 1, tokenize = 'ascii')")
      .execute(db);
    await sql
      .raw('CREATE TRIGGER spans_search_delete AFTER DELETE ON spans BEGIN DELETE FROM span_search WHERE rowid = old.id; END')
      .execute(db);
  };
}
