/**
 * Retention deletions for SQLite, run by the ingest writer thread between its commits
 * (docs/retention.md): on the writer's own connection they never wait for SQLite's write lock,
 * never make ingest wait for it either, and never block the main thread. The same statements as
 * retention-repository.ts's deleteTraces and deleteSessionsWithoutTraces, prepared once; ids
 * travel as one JSON array so every batch size uses the same statement.
 */
import { immediateTransaction } from '@sightline/common/writer-thread';
import type SQLite from 'better-sqlite3';

/** What one batch deleted. */
export interface SqliteDeletedTraces {
  traces: number;
  spans: number;
  sessions: number;
  /** How long the transaction took on the thread (ms), without the wait behind ingest commits. */
  ms: number;
}

/** A task of the writer thread for the retention job. */
export type RetentionTask = { kind: 'retention.deleteTraces'; traceRowids: number[] } | { kind: 'retention.vacuum'; pages: number };

/** True when `task` is one of the retention job's. */
export function isRetentionTask(task: unknown): task is RetentionTask {
  const kind = (task as { kind?: unknown } | null)?.kind;
  return kind === 'retention.deleteTraces' || kind === 'retention.vacuum';
}

export class SqliteRetentionStore {
  private readonly deleteSpans: SQLite.Statement;
  private readonly deleteTraces: SQLite.Statement;
  private readonly deleteSessions: SQLite.Statement;
  private readonly deleteBatch: (traceRowids: number[]) => Omit<SqliteDeletedTraces, 'ms'>;

  constructor(private readonly connection: SQLite.Database) {
    this.deleteSpans = connection.prepare('DELETE FROM spans WHERE trace_rowid IN (SELECT value FROM json_each(?))');
    this.deleteTraces = connection
      .prepare('DELETE FROM traces WHERE id IN (SELECT value FROM json_each(?)) RETURNING project_session_rowid')
      .pluck();
    this.deleteSessions = connection.prepare(
      `DELETE FROM project_sessions WHERE id IN (SELECT value FROM json_each(?))
       AND NOT EXISTS (SELECT 1 FROM traces WHERE traces.project_session_rowid = project_sessions.id)`,
    );
    // Spans first, so their count is exact; their costs and annotations, and the traces', cascade.
    this.deleteBatch = immediateTransaction(connection, (traceRowids: number[]) => {
      const ids = JSON.stringify(traceRowids);
      const spans = this.deleteSpans.run(ids).changes;
      const sessionRowids = new Set<number>();
      let traces = 0;
      for (const session of this.deleteTraces.all(ids) as (number | null)[]) {
        traces++;
        if (session !== null) sessionRowids.add(session);
      }
      const sessions = sessionRowids.size > 0 ? this.deleteSessions.run(JSON.stringify([...sessionRowids])).changes : 0;
      return { traces, spans, sessions };
    });
  }

  /** Runs one task of the retention job; the vacuum answers how long it took (ms). */
  run(task: RetentionTask): SqliteDeletedTraces | number {
    const started = performance.now();
    if (task.kind === 'retention.deleteTraces') return { ...this.deleteBatch(task.traceRowids), ms: performance.now() - started };
    this.connection.pragma(`incremental_vacuum(${Math.max(1, Math.floor(task.pages))})`);
    return performance.now() - started;
  }
}
