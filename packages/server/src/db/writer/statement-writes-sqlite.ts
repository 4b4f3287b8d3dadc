/**
 * Statements a repository compiled on the main thread, run by the ingest writer thread between
 * its commits, in one transaction (docs/online-evaluation.md, "Writes"). A background job that
 * writes often (the online evaluation job: its ledger, its annotations, its cursors) would
 * otherwise wait for SQLite's write lock on the main thread's connection, synchronously, holding
 * up every request while ingest commits back to back (the reason the cost job's writes moved
 * here, docs/costs.md). The repository keeps its SQL; this only runs it.
 */
import { immediateTransaction } from '@sightline/common/writer-thread';
import type SQLite from 'better-sqlite3';

/** One compiled statement: SQL with `?` placeholders and its parameters (numbers, text, bigint, null, buffers). */
export interface CompiledStatement {
  sql: string;
  parameters: readonly unknown[];
}

/** A task of the writer thread: statements run in order, in one transaction. */
export interface StatementsTask {
  kind: 'statements.run';
  statements: CompiledStatement[];
}

export function isStatementsTask(task: unknown): task is StatementsTask {
  return (task as { kind?: unknown } | null)?.kind === 'statements.run';
}

/** Statements prepared once per distinct SQL: a job repeats a handful. */
const PREPARED_LIMIT = 200;

export class SqliteStatementStore {
  private readonly prepared = new Map<string, SQLite.Statement>();
  private readonly runAll: (task: StatementsTask) => number;

  constructor(private readonly connection: SQLite.Database) {
    this.runAll = immediateTransaction(connection, (task: StatementsTask) => {
      let changes = 0;
      for (const statement of task.statements) changes += this.statement(statement.sql).run(...statement.parameters).changes;
      return changes;
    });
  }

  private statement(text: string): SQLite.Statement {
    let statement = this.prepared.get(text);
    if (!statement) {
      if (this.prepared.size >= PREPARED_LIMIT) this.prepared.clear();
      statement = this.connection.prepare(text);
      this.prepared.set(text, statement);
    }
    return statement;
  }

  /** Runs the statements in one transaction; answers the rows they changed. */
  run(task: StatementsTask): number {
    return this.runAll(task);
  }
}
