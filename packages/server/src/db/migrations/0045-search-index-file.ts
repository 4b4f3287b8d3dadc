/**
 * SQLite's full-text index moves to a file of its own, written by a thread of its own
 * (db/search-index/, docs/search.md "SQLite"): on the span writer's connection its work cost
 * ingest a fifth of its rate. The table of migration 0037 goes; the indexer indexes the spans it
 * held again from their stored attributes, newest first, in the background after the upgrade.
 *
 * Deleting a span no longer reaches the index in the same transaction (it is in another file):
 * the trigger queues the span's row id in `span_search_deletions`, which the indexer reads and the
 * span writer empties behind it. PostgreSQL keeps its words in the span's row (0037): nothing changes.
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up(context: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    if (context.dialect === 'postgres') return;
    await sql.raw('DROP TRIGGER IF EXISTS spans_search_delete').execute(db);
    await sql.raw('DROP TABLE IF EXISTS span_search').execute(db);
    await sql.raw('CREATE TABLE span_search_deletions (seq INTEGER PRIMARY KEY, span_rowid INTEGER NOT NULL)').execute(db);
    await sql
      .raw(
        'CREATE TRIGGER spans_search_delete AFTER DELETE ON spans BEGIN INSERT INTO span_search_deletions (span_rowid) VALUES (old.id); END',
      )
      .execute(db);
  };
}
