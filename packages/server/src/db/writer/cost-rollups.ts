/**
 * Cost in the dashboards' per-minute rollups (migration 0046, docs/dashboards.md "Rollups"). A
 * span's cost is known only once the cost job has priced it, after ingest; the job adds each cost
 * it stores to its minute's rows (every span's, dimension '', and its kind's, name's, model's and
 * status's), in the transaction that stores the cost, so that a cost widget reads rollups instead
 * of summing `span_costs` (1.9 s for 7 days at 10M spans on SQLite, docs/performance.md).
 */
import type { NewSpanCost } from '../repositories/costs-repository.js';
import { minuteOf } from '../../span-model/time.js';
import {
  compareRollupKeys,
  ROLLUP_COST_COLUMNS,
  ROLLUP_DIMENSIONS,
  ROLLUP_KEY_COLUMNS,
  ROLLUP_SUM_COLUMNS,
  type RollupDimension,
} from './span-writes.js';

/** The cost a transaction adds to one rollup row. */
export interface CostRollup {
  projectId: number;
  minute: number;
  dimension: '' | RollupDimension;
  /** '' for dimension '', and for spans that name no model (as the span writers key them). */
  value: string;
  promptCost: number;
  completionCost: number;
  totalCost: number;
}

/**
 * Sums stored costs per rollup row, in the span writers' key order (span-writes.ts,
 * RollupAccumulator.sorted), so that a PostgreSQL transaction locks rows in the order ingest does.
 */
export function costRollups(costs: readonly NewSpanCost[]): CostRollup[] {
  const rows = new Map<string, CostRollup>();
  const add = (cost: NewSpanCost, minute: number, dimension: CostRollup['dimension'], value: string) => {
    const key = `${cost.projectId}\u0000${dimension}\u0000${minute}\u0000${value}`;
    let row = rows.get(key);
    if (row === undefined) {
      row = { projectId: cost.projectId, minute, dimension, value, promptCost: 0, completionCost: 0, totalCost: 0 };
      rows.set(key, row);
    }
    row.promptCost += cost.promptCost;
    row.completionCost += cost.completionCost;
    row.totalCost += cost.totalCost;
  };
  for (const cost of costs) {
    const minute = minuteOf(BigInt(cost.startTime));
    add(cost, minute, '', '');
    for (const dimension of ROLLUP_DIMENSIONS) add(cost, minute, dimension, cost.rollupValues[dimension]);
  }
  return [...rows.values()].sort(compareRollupKeys);
}

/** A cost rollup as a whole span_rollups row: a row the span writer has not made (rollups turned on after the span's ingest) starts at zero spans. */
export function costRollupRow(rollup: CostRollup): Record<string, string | number> {
  const row: Record<string, string | number> = {
    project_id: rollup.projectId,
    dimension: rollup.dimension,
    minute: rollup.minute,
    value: rollup.value,
  };
  for (const column of ROLLUP_SUM_COLUMNS) row[column] = 0;
  row.prompt_cost = rollup.promptCost;
  row.completion_cost = rollup.completionCost;
  row.total_cost = rollup.totalCost;
  return row;
}

/** What an upsert of cost rollups sets on conflict, in both dialects: the costs only, added. */
export const COST_ROLLUP_CONFLICT = `ON CONFLICT (${ROLLUP_KEY_COLUMNS.join(', ')}) DO UPDATE SET ${ROLLUP_COST_COLUMNS.map(
  (column) => `${column} = span_rollups.${column} + excluded.${column}`,
).join(', ')}`;
