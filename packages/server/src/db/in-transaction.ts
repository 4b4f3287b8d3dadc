/** A transaction for repository methods that write more than one statement. */
import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

/** Runs `work` in a transaction of its own, or in the caller's when `db` already is one. */
export function inTransaction<T>(db: Kysely<DB>, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
