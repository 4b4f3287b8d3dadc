/**
 * The dataset evaluation job (docs/evaluators.md, "On a dataset's experiments"): follows the
 * experiment runs by a durable cursor (their row ids, in `job_state`) and evaluates each new
 * successful run with the evaluators attached to its experiment's dataset, whatever client made
 * the experiment. Results are the run's evaluations, named after the evaluator, `annotator_kind`
 * LLM or CODE, with the evaluator's id and version (and a judge's prompt and answer) in their
 * metadata.
 *
 * Exactly once: an evaluation is one row per run and name, and a run that already has an
 * evaluation of that name (the client's own, or one written before a restart) is left alone; the
 * cursor moves only past runs whose evaluations are written. One replica runs the job at a time
 * (the job runner's lease). Runs are read in id order but only once they are a few seconds old,
 * so a run whose id was handed out before another's but committed after it is not passed over.
 */
import { UnavailableError } from '@sightline/common';
import type { DatasetsRepository, ExampleRecord } from '../db/repositories/datasets-repository.js';
import type { EvaluatorRecord, EvaluatorsRepository, RunToEvaluate } from '../db/repositories/evaluators-repository.js';
import type { ExperimentsRepository, NewEvaluation } from '../db/repositories/experiments-repository.js';
import type { Job } from '../jobs/job-runner.js';
import { eachLimited } from '../shared/each-limited.js';
import type { EvaluationItem } from './code-evaluators.js';
import { type EvaluationOutcome, type EvaluatorDefinition, parseDefinition } from './evaluators-service.js';

export const DATASET_EVALUATION_CURSOR = 'dataset-evaluations.cursor';

/** Where the job keeps its cursor. */
export interface JobStateStore {
  read(name: string): Promise<string | undefined>;
  write(name: string, value: string): Promise<void>;
}

export interface DatasetEvaluationJobOptions {
  evaluators: EvaluatorsRepository;
  datasets: DatasetsRepository;
  experiments: ExperimentsRepository;
  state: JobStateStore;
  evaluate: (definition: EvaluatorDefinition, item: EvaluationItem, signal: AbortSignal) => Promise<EvaluationOutcome>;
  intervalMs?: number;
  /** Runs read per tick. */
  batch?: number;
  /** How old a run must be before the job reads it (ms): longer than any insert takes to commit. */
  settleMs?: number;
  /** Attempts of a judge call that fails for a reason that may pass (the provider's 5xx or silence). */
  attempts?: number;
  /** Wait before the second attempt (ms), doubled for each one after. */
  retryDelayMs?: number;
  /** Judge calls in flight at once. */
  concurrency?: number;
  now?: () => number;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** One tick: evaluations written, and whether it read a whole batch (more may be waiting). */
export interface TickResult {
  written: number;
  full: boolean;
}

export function createDatasetEvaluationJob({
  evaluators,
  datasets,
  experiments,
  state,
  evaluate,
  intervalMs = 1000,
  batch = 100,
  settleMs = 2000,
  attempts = 3,
  retryDelayMs = 1000,
  concurrency = 4,
  now = Date.now,
}: DatasetEvaluationJobOptions): Job & { runOnce(signal?: AbortSignal): Promise<TickResult> } {
  /** Evaluates with retries of what may pass; the last failure's message when it never succeeds. */
  const evaluateWithRetries = async (
    definition: EvaluatorDefinition,
    item: EvaluationItem,
    signal: AbortSignal,
  ): Promise<EvaluationOutcome | { error: string }> => {
    let delay = retryDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await evaluate(definition, item, signal);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // Only what may pass is retried: a provider's 5xx or silence. A refused request (no key,
        // an unknown model) or a fault of our own fails the same way every time.
        if (!(error instanceof UnavailableError) || attempt >= attempts || signal.aborted) return { error: message };
        await sleep(delay, signal);
        delay *= 2;
      }
    }
  };

  const evaluationOf = (
    run: RunToEvaluate,
    evaluator: EvaluatorRecord,
    outcome: EvaluationOutcome | { error: string },
    started: string,
  ): NewEvaluation => {
    const failed = 'error' in outcome;
    return {
      runId: run.id,
      name: evaluator.name,
      annotatorKind: evaluator.kind,
      label: failed ? null : outcome.label,
      score: failed ? null : outcome.score,
      explanation: failed ? null : outcome.explanation,
      metadata: {
        evaluator: { id: evaluator.id, name: evaluator.name, version: evaluator.version.version },
        ...(!failed && outcome.audit ? { audit: outcome.audit } : {}),
      },
      traceId: null,
      error: failed ? outcome.error : null,
      startTime: started,
      endTime: new Date(now()).toISOString(),
    };
  };

  const tick = async (signal: AbortSignal): Promise<TickResult> => {
    const cursor = Number((await state.read(DATASET_EVALUATION_CURSOR)) ?? 0);
    const read = await evaluators.runsAfter(cursor, batch);
    // Only runs old enough that every run before them has committed, in id order.
    const cutoff = new Date(now() - settleMs).toISOString();
    const settled: RunToEvaluate[] = [];
    for (const run of read) {
      if (run.createdAt > cutoff) break;
      settled.push(run);
    }
    if (settled.length === 0) return { written: 0, full: false };
    const attached = await evaluators.attachedTo([...new Set(settled.map((run) => run.datasetId))]);
    const toEvaluate = settled.filter((run) => run.error === null && (attached.get(run.datasetId)?.length ?? 0) > 0);
    const examples = new Map<string, ExampleRecord>();
    const byVersion = new Map<string, { datasetId: number; versionId: number; ids: Set<number> }>();
    for (const run of toEvaluate) {
      const key = `${run.datasetId}:${run.datasetVersionId}`;
      const group = byVersion.get(key) ?? { datasetId: run.datasetId, versionId: run.datasetVersionId, ids: new Set<number>() };
      group.ids.add(run.exampleId);
      byVersion.set(key, group);
    }
    for (const [key, group] of byVersion) {
      for (const example of await datasets.examplesAt(group.datasetId, group.versionId, [...group.ids]))
        examples.set(`${key}:${example.id}`, example);
    }
    const done = new Set(
      (await experiments.evaluationsOf(toEvaluate.map((run) => run.id))).map((evaluation) => `${evaluation.runId}\u0000${evaluation.name}`),
    );
    const work: { run: RunToEvaluate; evaluator: EvaluatorRecord; definition: EvaluatorDefinition; item: EvaluationItem }[] = [];
    for (const run of toEvaluate) {
      const example = examples.get(`${run.datasetId}:${run.datasetVersionId}:${run.exampleId}`);
      if (!example) continue;
      const item: EvaluationItem = {
        input: example.input,
        output: run.output,
        reference: example.output,
        metadata: example.metadata,
        latencyMs: Math.max(0, Date.parse(run.endTime) - Date.parse(run.startTime)) || null,
        totalTokens: null,
        costUsd: null,
      };
      for (const evaluator of attached.get(run.datasetId) ?? []) {
        if (done.has(`${run.id}\u0000${evaluator.name}`)) continue;
        work.push({ run, evaluator, definition: parseDefinition(JSON.parse(evaluator.version.definition)).definition, item });
      }
    }
    let written = 0;
    await eachLimited(work, concurrency, async ({ run, evaluator, definition, item }) => {
      if (signal.aborted) return;
      const started = new Date(now()).toISOString();
      const outcome = await evaluateWithRetries(definition, item, signal);
      if (signal.aborted) return;
      await experiments.upsertEvaluation(evaluationOf(run, evaluator, outcome, started), new Date(now()).toISOString());
      written++;
    });
    // Stopped midway: the cursor stays, and the next run skips what was written (one row per run and name).
    if (signal.aborted) return { written, full: false };
    await state.write(DATASET_EVALUATION_CURSOR, String(settled.at(-1)!.id));
    return { written, full: settled.length === batch };
  };

  let running: Promise<TickResult> | null = null;
  const runOnce = (signal: AbortSignal = new AbortController().signal): Promise<TickResult> => {
    running ??= tick(signal).finally(() => {
      running = null;
    });
    return running;
  };

  return {
    name: 'dataset-evaluations',
    description: 'Evaluates each new experiment run with the evaluators attached to its dataset (docs/evaluators.md).',
    intervalMs,
    runOnce,
    async run(signal) {
      // A whole batch read: more may be waiting, so go on at once (after yielding).
      return (await runOnce(signal)).full ? 'more' : 'idle';
    },
  };
}
