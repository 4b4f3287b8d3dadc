/**
 * The log-record writes for SQLite, run by the ingest writer thread between its commits, as the
 * cost and retention jobs' are (docs/costs.md): records kept for their span when an export
 * arrives, and their move onto the span by the `span-log-events` job (docs/ingest.md, "Logs").
 */
import { immediateTransaction } from '@sightline/common/writer-thread';
import type SQLite from 'better-sqlite3';
import { EXPIRED_PER_RUN, type NewSpanLogEvent, type SpanEventsUpdate } from '../repositories/span-log-events-repository.js';

/** A task of the writer thread for log records. */
export type SpanLogEventsTask =
  | { kind: 'spanLogEvents.store'; events: NewSpanLogEvent[]; receivedAt: string }
  | { kind: 'spanLogEvents.attach'; updates: SpanEventsUpdate[]; attachedIds: number[]; expireBefore: string };

/** True when `task` is one of these. */
export function isSpanLogEventsTask(task: unknown): task is SpanLogEventsTask {
  const kind = (task as { kind?: unknown } | null)?.kind;
  return kind === 'spanLogEvents.store' || kind === 'spanLogEvents.attach';
}

export class SqliteSpanLogEventsStore {
  private readonly store: (task: SpanLogEventsTask) => number;

  constructor(connection: SQLite.Database) {
    // Same statements as span-log-events-repository.ts's insert and attach.
    const insert = connection.prepare(
      'INSERT INTO span_log_events (trace_id, span_id, name, time, attributes, received_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const update = connection.prepare('UPDATE spans SET attributes = ?, long_attributes = ?, events = ?, span_kind = ? WHERE id = ?');
    const forget = connection.prepare('DELETE FROM span_log_events WHERE id = ?');
    const expire = connection.prepare(
      `DELETE FROM span_log_events WHERE id IN (SELECT id FROM span_log_events WHERE received_at < ? ORDER BY id LIMIT ${EXPIRED_PER_RUN})`,
    );
    this.store = immediateTransaction(connection, (task: SpanLogEventsTask) => {
      let changed = 0;
      if (task.kind === 'spanLogEvents.store') {
        for (const event of task.events) {
          changed += insert.run(event.traceId, event.spanId, event.name, BigInt(event.time), event.attributes, task.receivedAt).changes;
        }
        return changed;
      }
      for (const span of task.updates) {
        changed += update.run(span.attributes, span.longAttributes, span.events, span.spanKind, span.spanRowid).changes;
      }
      for (const id of task.attachedIds) forget.run(id);
      expire.run(task.expireBefore);
      return changed;
    });
  }

  /** Runs the task in one transaction; answers the rows written or updated. */
  run(task: SpanLogEventsTask): number {
    return this.store(task);
  }
}
