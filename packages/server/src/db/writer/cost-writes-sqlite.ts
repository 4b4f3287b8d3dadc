/**
 * The cost job's writes for SQLite, run by the ingest writer thread between its commits
 * (docs/costs.md), like the retention job's: on the main thread's connection they waited for
 * SQLite's write lock in the busy handler — synchronously, holding up every request — whenever
 * ingest committed back to back. The span costs, their sums in the dashboards' rollups
 * (cost-rollups.ts) and the job's watermark commit together.
 */
import { immediateTransaction } from '@sightline/common/writer-thread';
import type SQLite from 'better-sqlite3';
import type { NewSpanCost } from '../repositories/costs-repository.js';
import { COST_ROLLUP_CONFLICT, costRollupRow, costRollups } from './cost-rollups.js';

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

  /** `rollups`: SERVICE_DASHBOARD_ROLLUPS, as for the spans (span-writes-sqlite.ts). */
  constructor(connection: SQLite.Database, { rollups }: { rollups: boolean }) {
    // Same statements as costs-repository.ts's storeSpanCosts.
    const insertCost = connection.prepare(
      `INSERT INTO span_costs (span_rowid, trace_rowid, project_id, model_id, start_time, prompt_cost, completion_cost, total_cost)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (span_rowid) DO NOTHING`,
    );
    const writeState = connection.prepare(
      'INSERT INTO job_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    );
    const rollupColumns = Object.keys(
      costRollupRow({ projectId: 0, minute: 0, dimension: '', value: '', promptCost: 0, completionCost: 0, totalCost: 0 }),
    );
    const upsertRollup = connection.prepare(
      `INSERT INTO span_rollups (${rollupColumns.join(', ')}) VALUES (${rollupColumns.map(() => '?').join(', ')}) ${COST_ROLLUP_CONFLICT}`,
    );
    this.store = immediateTransaction(connection, (task: CostTask) => {
      // Only the costs inserted here: a span priced before (a rescan) is already in the rollups.
      const inserted: NewSpanCost[] = [];
      for (const cost of task.costs) {
        const changes = insertCost.run(
          cost.spanRowid,
          cost.traceRowid,
          cost.projectId,
          cost.modelId,
          cost.startTime,
          cost.promptCost,
          cost.completionCost,
          cost.totalCost,
        ).changes;
        if (changes > 0) inserted.push(cost);
      }
      if (rollups) for (const rollup of costRollups(inserted)) upsertRollup.run(...Object.values(costRollupRow(rollup)));
      writeState.run(task.watermark.name, task.watermark.value);
      return inserted.length;
    });
  }

  /** Stores the costs and moves the watermark in one transaction; answers the rows inserted. */
  run(task: CostTask): number {
    return this.store(task);
  }
}
