/** Span ingest SQL for SQLite: synchronous batch inserts with cached prepared statements (run by the writer thread). */
import { immediateTransaction } from '@sightline/common/writer-thread';
import type SQLite from 'better-sqlite3';
import type { SpanRow } from '../../span-model/span-rows.js';
import type { SearchIndexSink } from '../search-index/search-indexer.js';
import {
  MERGE_USER_ID,
  ROLLUP_ADD,
  ROLLUP_KEY_COLUMNS,
  ROLLUP_SUM_COLUMNS,
  RollupAccumulator,
  rollupValues,
  tracesOf,
} from './span-writes.js';

export class SqliteSpanStore {
  private readonly projectIds = new Map<string, number>();
  private readonly insertProject: SQLite.Statement;
  private readonly selectProject: SQLite.Statement;
  private readonly upsertTrace: SQLite.Statement;
  private readonly extendSession: SQLite.Statement;
  private readonly upsertSession: SQLite.Statement;
  private readonly linkTrace: SQLite.Statement;
  private readonly insertSpan: SQLite.Statement;
  private readonly upsertRollup: SQLite.Statement;
  private readonly dropDeletions: SQLite.Statement;
  private readonly writeBatches: (batches: Iterable<SpanRow[]>) => void;
  private readonly search: SearchIndexSink | null;
  /** The words of the spans the current transaction inserted, for `search` once it commits. */
  private searchRowids: number[] = [];
  private searchTexts: string[] = [];
  /** Queued deletions the index applied, up to this one, are dropped from the queue. */
  private deletionsDropped = 0;

  /**
   * `search` takes new spans' words for the full-text index (docs/search.md), which lives in a
   * file of its own; without it they are not indexed. `rollups: false` leaves the per-minute
   * rollups out (docs/dashboards.md, SERVICE_DASHBOARD_ROLLUPS).
   */
  constructor(connection: SQLite.Database, options: { rollups?: boolean; search?: SearchIndexSink } = {}) {
    const withRollups = options.rollups !== false;
    this.search = options.search ?? null;
    this.insertProject = connection.prepare(
      'INSERT INTO projects (name, description, created_at, updated_at) VALUES (?, NULL, ?, ?) ON CONFLICT (name) DO NOTHING',
    );
    this.selectProject = connection.prepare('SELECT id FROM projects WHERE name = ?').pluck();
    this.upsertTrace = connection.prepare(
      `INSERT INTO traces (project_id, trace_id, start_time, end_time, user_id) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (trace_id) DO UPDATE SET
         start_time = min(traces.start_time, excluded.start_time),
         end_time = max(traces.end_time, excluded.end_time),
         user_id = ${MERGE_USER_ID}
       RETURNING id, project_id, project_session_rowid`,
    );
    // Sessions (docs/sessions.md): a trace keeps the session it has; a new one is named by the batch's session.id.
    this.extendSession = connection.prepare(
      'UPDATE project_sessions SET start_time = min(start_time, ?), end_time = max(end_time, ?) WHERE id = ?',
    );
    this.upsertSession = connection
      .prepare(
        `INSERT INTO project_sessions (project_id, session_id, start_time, end_time) VALUES (?, ?, ?, ?)
       ON CONFLICT (project_id, session_id) DO UPDATE SET
         start_time = min(project_sessions.start_time, excluded.start_time),
         end_time = max(project_sessions.end_time, excluded.end_time)
       RETURNING id`,
      )
      .pluck();
    this.linkTrace = connection.prepare('UPDATE traces SET project_session_rowid = ? WHERE id = ?');
    this.insertSpan = connection.prepare(
      `INSERT INTO spans (trace_rowid, project_id, span_id, parent_id, name, span_kind, start_time, end_time,
         status_code, status_message, attributes, long_attributes, events,
         llm_token_count_prompt, llm_token_count_completion, llm_token_count_total)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (trace_rowid, span_id) DO NOTHING`,
    );
    this.dropDeletions = connection.prepare('DELETE FROM span_search_deletions WHERE seq <= ?');
    // The minute's rollups (docs/dashboards.md), in the spans' transaction: one upsert per key of the transaction.
    const rollupColumns = [...ROLLUP_KEY_COLUMNS, ...ROLLUP_SUM_COLUMNS];
    this.upsertRollup = connection.prepare(
      `INSERT INTO span_rollups (${rollupColumns.join(', ')}) VALUES (${rollupColumns.map(() => '?').join(', ')})
       ON CONFLICT (${ROLLUP_KEY_COLUMNS.join(', ')}) DO UPDATE SET ${ROLLUP_ADD}`,
    );
    this.writeBatches = immediateTransaction(connection, (batches: Iterable<SpanRow[]>) => {
      const rollups = withRollups ? new RollupAccumulator() : null;
      for (const rows of batches) this.insert(rows, rollups);
      if (rollups) for (const rollup of rollups.sorted()) this.upsertRollup.run(rollupValues(rollup));
      const applied = this.search?.deletionsApplied() ?? 0;
      if (applied > this.deletionsDropped) this.dropDeletions.run(applied);
    });
  }

  /** Inserts the rows in one transaction (durable when this returns, given synchronous=FULL). */
  write(rows: SpanRow[]): void {
    this.writeAll([rows]);
  }

  /**
   * Inserts every batch's rows in one transaction: the writer thread folds what queued up (group
   * commit). Batches are taken one at a time, so a lazy iterable keeps only one in memory. Once
   * committed, the new spans' words go to the search index.
   */
  writeAll(batches: Iterable<SpanRow[]>): void {
    this.searchRowids = [];
    this.searchTexts = [];
    this.writeBatches(batches);
    this.deletionsDropped = Math.max(this.deletionsDropped, this.search?.deletionsApplied() ?? 0);
    if (this.searchRowids.length > 0) this.search?.index(this.searchRowids, this.searchTexts);
    this.searchRowids = [];
    this.searchTexts = [];
  }

  /** Drops cached project ids, e.g. after a project was deleted. */
  forgetProjects(): void {
    this.projectIds.clear();
  }

  private projectId(name: string): number {
    let id = this.projectIds.get(name);
    if (id === undefined) {
      const now = new Date().toISOString();
      this.insertProject.run(name, now, now);
      id = this.selectProject.get(name) as number;
      this.projectIds.set(name, id);
    }
    return id;
  }

  private insert(rows: SpanRow[], rollups: RollupAccumulator | null): void {
    const traceRows = new Map<string, { id: number; project_id: number }>();
    for (const trace of tracesOf(rows)) {
      const projectId = this.projectId(trace.projectName);
      const traceRow = this.upsertTrace.get(projectId, trace.traceId, trace.startTime, trace.endTime, trace.userKey) as {
        id: number;
        project_id: number;
        project_session_rowid: number | null;
      };
      traceRows.set(trace.traceId, traceRow);
      if (traceRow.project_session_rowid !== null) {
        this.extendSession.run(trace.startTime, trace.endTime, traceRow.project_session_rowid);
      } else if (trace.sessionId !== null) {
        const sessionRowid = this.upsertSession.get(traceRow.project_id, trace.sessionId, trace.startTime, trace.endTime) as number;
        this.linkTrace.run(sessionRowid, traceRow.id);
      }
    }
    for (const row of rows) {
      const trace = traceRows.get(row.traceId)!;
      const inserted = this.insertSpan.run(
        trace.id,
        trace.project_id,
        row.spanId,
        row.parentId,
        row.name,
        row.spanKind,
        row.startTime,
        row.endTime,
        row.statusCode,
        row.statusMessage,
        row.attributes,
        row.longAttributes,
        row.events,
        row.tokenCountPrompt,
        row.tokenCountCompletion,
        row.tokenCountTotal,
      );
      // A span already stored (changes 0) keeps the words it was indexed with, and is not counted again.
      if (inserted.changes !== 1) continue;
      if (row.searchText !== null && this.search !== null) {
        this.searchRowids.push(Number(inserted.lastInsertRowid));
        this.searchTexts.push(row.searchText);
      }
      rollups?.add(trace.project_id, row);
    }
  }
}
