/**
 * The long-attributes conversion's writes for SQLite, run by the ingest writer thread between its
 * commits, as the cost and retention jobs' are (docs/costs.md): the main thread's connection would
 * wait for SQLite's write lock while ingest commits back to back. The rows were compressed on the
 * main thread (ingest/long-attributes-job.ts); this only stores them.
 */
import { immediateTransaction } from '@sightline/common/writer-thread';
import type SQLite from 'better-sqlite3';
import { type ConvertedSpan, LONG_ATTRIBUTES_DONE } from '../repositories/long-attributes-repository.js';

/** A task of the writer thread: converted spans and the progress to record with them. */
export interface LongAttributesTask {
  kind: 'longAttributes.store';
  spans: ConvertedSpan[];
  done: number;
}

/** True when `task` is the conversion's. */
export function isLongAttributesTask(task: unknown): task is LongAttributesTask {
  return (task as { kind?: unknown } | null)?.kind === 'longAttributes.store';
}

export class SqliteLongAttributesStore {
  private readonly store: (task: LongAttributesTask) => number;

  constructor(connection: SQLite.Database) {
    // Same statements as long-attributes-repository.ts's store.
    const update = connection.prepare('UPDATE spans SET attributes = ?, long_attributes = ? WHERE id = ? AND long_attributes IS NULL');
    const progress = connection.prepare('UPDATE job_state SET value = ? WHERE name = ?');
    this.store = immediateTransaction(connection, (task: LongAttributesTask) => {
      let changed = 0;
      for (const span of task.spans) changed += update.run(span.attributes, span.longAttributes, span.id).changes;
      progress.run(String(task.done), LONG_ATTRIBUTES_DONE);
      return changed;
    });
  }

  /** Stores the spans and the progress in one transaction; answers how many rows changed. */
  run(task: LongAttributesTask): number {
    return this.store(task);
  }
}
