/**
 * The dataset-deletions job (docs/datasets.md, "Deleting"): removes the rows of deleted datasets
 * off the request path. `DELETE /v1/datasets/{id}` only marks a dataset deleted (readers skip it
 * at once); one DELETE cascading to millions of examples held the database for 9 s, and on SQLite
 * the event loop with it. A run deletes a thousand examples per batch with their revisions,
 * frozen experiment rows and runs, each batch in its own short transaction, yielding to the
 * event loop between them and waiting briefly for idle ingest on SQLite, where its writes share
 * the database lock with the span writer; once a dataset has no example left, its row goes with
 * its versions and experiments. Deleted experiments go the same way: their runs (with their
 * evaluations), then their frozen example rows, then the experiment (docs/experiments.md, "Deleting").
 */
import { setImmediate } from 'node:timers/promises';
import type { Repositories, WithTransaction } from '../db/repositories/index.js';
import type { DatasetsRepository } from '../db/repositories/datasets-repository.js';
import type { ExperimentsRepository } from '../db/repositories/experiments-repository.js';
import { type IngestIdle, waitForIdleIngest } from '../jobs/idle-ingest.js';
import type { Job } from '../jobs/job-runner.js';

export const DATASET_DELETIONS_JOB = 'dataset-deletions';

export interface DatasetDeletionJobOptions {
  datasets: DatasetsRepository;
  experiments: ExperimentsRepository;
  withTransaction: WithTransaction;
  /** SQLite: resolves when ingest is idle, so that a batch does not take the write lock from a span batch. */
  ingestIdle?: IngestIdle | undefined;
  /** Pause between runs when nothing is left to delete (ms); a deletion starts a run at once. */
  intervalMs?: number;
  /** Examples (of a dataset), runs or example rows (of an experiment) deleted per batch. */
  batchRows?: number;
  /** Work of one run (ms) before it hands the event loop back to the runner. */
  runBudgetMs?: number;
}

/** Longest wait for idle ingest before a batch (ms): ingest that never pauses must not stop the job. */
const IDLE_WAIT_MS = 250;

/** The job, for the job runner (jobs/job-runner.ts). */
export function createDatasetDeletionJob({
  datasets,
  experiments,
  withTransaction,
  ingestIdle,
  intervalMs = 60_000,
  batchRows = 1000,
  runBudgetMs = 200,
}: DatasetDeletionJobOptions): Job {
  return {
    name: DATASET_DELETIONS_JOB,
    description: 'Removes the rows of deleted datasets and experiments in short batches (docs/datasets.md, "Deleting").',
    intervalMs,
    async run(signal) {
      const started = performance.now();
      /** Runs batches until one deletes fewer rows than a batch holds; false when the run's time is up first. */
      const batches = async (batch: (trx: Repositories) => Promise<number>): Promise<boolean> => {
        for (;;) {
          if (signal.aborted || performance.now() - started >= runBudgetMs) return false;
          await waitForIdleIngest(ingestIdle, IDLE_WAIT_MS);
          // Between batches the event loop takes other requests: a statement that resolves at once
          // (SQLite) would otherwise run the next batch in the same turn.
          await setImmediate();
          if ((await withTransaction(batch)) < batchRows) return true;
        }
      };
      for (;;) {
        const [datasetId] = await datasets.deletedDatasets(1);
        if (datasetId === undefined) break;
        if (!(await batches((trx) => trx.datasets.purgeExamples(datasetId, batchRows)))) return 'more';
        await withTransaction((trx) => trx.datasets.purgeDataset(datasetId));
      }
      for (;;) {
        const [experimentId] = await experiments.deletedExperiments(1);
        if (experimentId === undefined) return 'idle';
        if (!(await batches((trx) => trx.experiments.purgeRuns(experimentId, batchRows)))) return 'more';
        if (!(await batches((trx) => trx.experiments.purgeExampleSet(experimentId, batchRows)))) return 'more';
        await withTransaction((trx) => trx.experiments.purgeExperiment(experimentId));
      }
    },
  };
}
