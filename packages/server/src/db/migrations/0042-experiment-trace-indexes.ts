/**
 * The trace ids of experiment runs and of their evaluations, indexed: the projects list tells a
 * project that only holds experiments' traces (hidden, as Phoenix hides experiment projects) from
 * one that also holds other traces (a playground project an experiment also writes to) by
 * looking these up for the project's traces (docs/api.md, "Projects").
 */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up(_context: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await sql.raw('CREATE INDEX experiment_runs_trace ON experiment_runs (trace_id) WHERE trace_id IS NOT NULL').execute(db);
    await sql
      .raw('CREATE INDEX experiment_run_annotations_trace ON experiment_run_annotations (trace_id) WHERE trace_id IS NOT NULL')
      .execute(db);
  };
}
