/**
 * The cost job's writes for SQLite, run by the ingest writer thread between its commits
 * (docs/costs.md), like the retention job's: on the main thread's connection they waited for
 * SQLite's write lock in the busy handler — synchronously, holding up every request — whenever
 * ingest committed back to back. The span costs and the job's watermark commit together.
 */
import { immediateTransaction } from '@sightline/common/writer-thread';
import type SQLite from 'better-sqlite3';
import type { NewSpanCost } from '../repositories/costs-repository.js';

/** A task of the writer thread for the cost job. */
export interface CostTask {
  kind: 'costs.store';
  costs: NewSpanCost[];
  /** The job_state row that records how far the job has priced. */
  watermark: { name: string; value: string };
}

/** True when `task` is the cost job's. */
export function isCostTask(task: unknown): task is CostTask {
  return (task as { kind?: unknown } | null)?.kind === 'costs.store';
}

export class SqliteCostStore {
  private readonly store: (task: CostTask) => number;

  constructor(connection: SQLite.Database) {
    // Same statements as costs-repository.ts's insertSpanCosts and writeJobState.
    const insertCost = connection.prepare(
      `INSERT INTO span_costs (span_rowid, trace_rowid, project_id, model_id, start_time, prompt_cost, completion_cost, total_cost)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (span_rowid) DO NOTHING`,
    );
    const writeState = connection.prepare(
      'INSERT INTO job_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    );
    this.store = immediateTransaction(connection, (task: CostTask) => {
      let inserted = 0;
      for (const cost of task.costs) {
        inserted += insertCost.run(
          cost.spanRowid,
          cost.traceRowid,
          cost.projectId,
          cost.modelId,
          cost.startTime,
          cost.promptCost,
          cost.completionCost,
          cost.totalCost,
        ).changes;
      }
      writeState.run(task.watermark.name, task.watermark.value);
      return inserted;
    });
  }

  /** Stores the costs and moves the watermark in one transaction; answers the rows inserted. */
  run(task: CostTask): number {
    return this.store(task);
  }
}
