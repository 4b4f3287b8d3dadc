/**
 * Runs statements a repository compiled, in one transaction: on SQLite on the writer thread
 * (db/writer/statement-writes-sqlite.ts says why), on PostgreSQL on a pooled connection.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { DB } from './schema.js';
import type { SqliteStatementsWriter } from './writer/database-writer.js';
import type { CompiledStatement } from './writer/statement-writes-sqlite.js';

export type StatementRunner = (statements: CompiledStatement[]) => Promise<void>;

export function createStatementRunner(db: Kysely<DB>, writer: SqliteStatementsWriter | undefined): StatementRunner {
  if (writer) {
    return async (statements) => {
      if (statements.length > 0) await writer.run(statements);
    };
  }
  return async (statements) => {
    if (statements.length === 0) return;
    await db.transaction().execute(async (trx) => {
      for (const statement of statements) await trx.executeQuery(CompiledQuery.raw(statement.sql, [...statement.parameters]));
    });
  };
}
