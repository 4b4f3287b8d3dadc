/**
 * Experiments (docs/experiments.md): a run of a task over a dataset version's examples, with
 * repetitions, the runs and their evaluations, the counts a client shows, and the incomplete
 * runs and evaluations that resuming needs. Knows nothing of HTTP.
 */
import { randomBytes } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { ConflictError, InvalidInputError, NotFoundError } from '@sightline/common';
import type { DatasetRecord, DatasetsRepository, ExampleRecord } from '../db/repositories/datasets-repository.js';
import type {
  EvaluationRecord,
  EvaluationSummary,
  ExperimentRecord,
  ExperimentsRepository,
  RunRecord,
} from '../db/repositories/experiments-repository.js';
import { MAX_IN_LIST, chunks } from '../db/chunks.js';
import type { WithTransaction } from '../db/repositories/index.js';
import type { TracesRepository } from '../db/repositories/traces-repository.js';
import type { Identifier } from '../shared/identifier.js';
import { requireDataset as findDataset } from '../datasets/require-dataset.js';

export const ANNOTATOR_KINDS = ['LLM', 'CODE', 'HUMAN'] as const;
const MAX_REPETITIONS = 100;
/** A comparison's filter; `regressed` and `improved` need the evaluator whose scores they compare. */
function comparisonFilter(
  filter: 'regressed' | 'improved' | 'failed' | undefined,
  scoreName: string | undefined,
): { kind: 'regressed' | 'improved'; name: string } | { kind: 'failed' } | undefined {
  if (filter === undefined || filter === 'failed') return filter && { kind: filter };
  if (!scoreName?.trim())
    throw new InvalidInputError(`filter=${filter} compares an evaluator's scores with the base's: name the evaluator with score_name`);
  return { kind: filter, name: scoreName.trim() };
}

/** Most experiments one comparison shows side by side. */
export const MAX_COMPARED = 10;
/** Example ids read per query when an experiment's example set is frozen. */
const FREEZE_PAGE = 2000;
/** Examples per page when an experiment is read whole (downloads). */
const DOWNLOAD_PAGE = 500;

export interface ExperimentWithCounts extends ExperimentRecord {
  exampleCount: number;
  successfulRunCount: number;
  failedRunCount: number;
  missingRunCount: number;
  /** Per evaluator: mean score, evaluations and errors. */
  evaluationSummaries: EvaluationSummary[];
  averageRunLatencyMs: number | null;
}

/** Token sums of a run's trace, when its spans are stored. */
export interface TokenCounts {
  prompt: number;
  completion: number;
  total: number;
}

/** A run with what a comparison or a download shows beside it. */
export interface RunDetails {
  run: RunRecord;
  evaluations: EvaluationRecord[];
  latencyMs: number;
  tokens: TokenCounts | null;
}

/** One example of a comparison: its runs in each compared experiment (in the order asked). */
export interface ComparisonRow {
  example: ExampleRecord;
  runs: RunDetails[][];
}

export interface NewExperimentInput {
  name?: string | null | undefined;
  description?: string | null | undefined;
  metadata?: Record<string, unknown> | undefined;
  projectName?: string | null | undefined;
  repetitions?: number | undefined;
  version?: Identifier | undefined;
  userId: number | null;
}

/** A change to an experiment: a field left undefined stays; null clears the description and is refused for name and metadata. */
export interface ExperimentChange {
  name?: string | null | undefined;
  description?: string | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
}

export interface RunInput {
  /** The example's row id, when the route could decode its DatasetExample id. */
  example: Identifier;
  output: unknown;
  repetitionNumber: number;
  startTime: string;
  endTime: string;
  traceId: string | null;
  error: string | null;
}

export interface EvaluationInput {
  run: Identifier;
  name: string;
  annotatorKind: string;
  label: string | null;
  score: number | null;
  explanation: string | null;
  metadata: Record<string, unknown>;
  traceId: string | null;
  error: string | null;
  startTime: string;
  endTime: string;
}

export type ExperimentsService = ReturnType<typeof createExperimentsService>;

/** The experiments service. */
export function createExperimentsService({
  experiments,
  datasets,
  traces,
  withTransaction,
  now = () => new Date().toISOString(),
  onDeleted,
}: {
  experiments: ExperimentsRepository;
  datasets: DatasetsRepository;
  traces: TracesRepository;
  withTransaction: WithTransaction;
  /** Called when an experiment was deleted, so that its rows are removed soon (starts the dataset-deletions job). */
  onDeleted?: () => void;
  now?: () => string;
}) {
  const requireDataset = (identifier: Identifier): Promise<DatasetRecord> => findDataset(datasets, identifier);

  const requireExperiment = async (identifier: Identifier): Promise<ExperimentRecord> => {
    const experiment = identifier.rowId === null ? undefined : await experiments.findById(identifier.rowId);
    if (!experiment) throw new NotFoundError(`experiment ${JSON.stringify(identifier.text)} not found`);
    return experiment;
  };

  const withCounts = async (rows: ExperimentRecord[]): Promise<ExperimentWithCounts[]> => {
    const ids = rows.map((row) => row.id);
    const [counts, summaries] = await Promise.all([experiments.counts(ids), experiments.summaries(ids)]);
    return rows.map((row) => {
      const count = counts.get(row.id)!;
      const summary = summaries.get(row.id)!;
      const expected = count.examples * row.repetitions;
      return {
        ...row,
        exampleCount: count.examples,
        successfulRunCount: count.successful,
        failedRunCount: count.failed,
        missingRunCount: Math.max(0, expected - count.successful),
        evaluationSummaries: summary.evaluations,
        averageRunLatencyMs: summary.averageRunLatencyMs,
      };
    });
  };

  /** Some of the experiment's examples as its dataset version holds them, by id. */
  const examplesById = async (experiment: ExperimentRecord, ids: number[]): Promise<Map<number, ExampleRecord>> =>
    new Map((await datasets.examplesAt(experiment.datasetId, experiment.datasetVersionId, ids)).map((example) => [example.id, example]));

  /** The runs with their evaluations, latency and token sums (three queries for any number of runs). */
  const detailsOf = async (runs: RunRecord[]): Promise<RunDetails[]> => {
    const traceIds = [...new Set(runs.flatMap((run) => (run.traceId ? [run.traceId] : [])))];
    const tokens = new Map<string, TokenCounts>();
    const [evaluations] = await Promise.all([
      experiments.evaluationsOf(runs.map((run) => run.id)),
      // A comparison page holds up to 200 examples × 10 experiments × 100 repetitions: IN lists in chunks.
      (async () => {
        for (const chunk of chunks(traceIds, MAX_IN_LIST))
          for (const entry of await traces.tokenTotalsByTraceId(chunk)) tokens.set(...entry);
      })(),
    ]);
    const byRun = new Map<number, EvaluationRecord[]>();
    for (const evaluation of evaluations) byRun.set(evaluation.runId, [...(byRun.get(evaluation.runId) ?? []), evaluation]);
    return runs.map((run) => ({
      run,
      evaluations: byRun.get(run.id) ?? [],
      latencyMs: Math.max(0, Date.parse(run.endTime) - Date.parse(run.startTime)),
      tokens: (run.traceId && tokens.get(run.traceId)) || null,
    }));
  };

  return {
    /** Creates an experiment on a dataset version (default the latest), freezing its examples. */
    async create(datasetIdentifier: Identifier, input: NewExperimentInput): Promise<ExperimentWithCounts> {
      const dataset = await requireDataset(datasetIdentifier);
      const repetitions = input.repetitions ?? 1;
      if (!Number.isInteger(repetitions) || repetitions < 1 || repetitions > MAX_REPETITIONS) {
        throw new InvalidInputError(`repetitions must be a whole number from 1 to ${MAX_REPETITIONS}`);
      }
      if (input.version !== undefined && input.version.rowId === null) {
        throw new InvalidInputError(`version_id ${JSON.stringify(input.version.text)} is not a dataset version id`);
      }
      const version =
        input.version === undefined
          ? await datasets.latestVersion(dataset.id)
          : await datasets.findVersion(dataset.id, input.version.rowId!);
      if (!version)
        throw new NotFoundError(input.version ? `version not found in dataset ${dataset.name}` : `dataset ${dataset.name} has no version`);
      const stamp = now();
      const experiment = await withTransaction(async (trx) => {
        const created = await trx.experiments.insert(
          {
            datasetId: dataset.id,
            datasetVersionId: version.id,
            name: input.name?.trim() || `${dataset.name}-experiment`,
            description: input.description ?? null,
            metadata: input.metadata ?? {},
            repetitions,
            // Task traces land in this project (created by their first span).
            projectName: input.projectName?.trim() || `Experiment-${randomBytes(12).toString('hex')}`,
            userId: input.userId,
          },
          stamp,
        );
        // The version's example ids a page at a time: never the whole dataset in memory, and the
        // event loop takes other requests between pages (a SQLite query resolves at once).
        for (let afterId = 0; ; ) {
          await setImmediate();
          const ids = await trx.datasets.exampleIdsAt(dataset.id, version.id, afterId, FREEZE_PAGE);
          await trx.experiments.insertExamples(created.id, ids);
          if (ids.length < FREEZE_PAGE) break;
          afterId = ids[ids.length - 1]!;
        }
        return created;
      });
      return (await withCounts([experiment]))[0]!;
    },

    async get(identifier: Identifier): Promise<ExperimentWithCounts> {
      return (await withCounts([await requireExperiment(identifier)]))[0]!;
    },

    /** A dataset's experiments newest first (limit + 1 rows). */
    async list(datasetIdentifier: Identifier, query: { limit: number; fromId?: number | undefined }): Promise<ExperimentWithCounts[]> {
      const dataset = await requireDataset(datasetIdentifier);
      return withCounts(await experiments.listForDataset(dataset.id, { limit: query.limit + 1, fromId: query.fromId }));
    },

    /** Changes the name, description or metadata (metadata is replaced whole); 422 when no field is given. */
    async update(identifier: Identifier, change: ExperimentChange): Promise<ExperimentWithCounts> {
      if (change.name === null) throw new InvalidInputError('name cannot be null: an experiment always has a name');
      if (change.metadata === null) throw new InvalidInputError('metadata cannot be null: send {} to clear it');
      const patch: { name?: string; description?: string | null; metadata?: Record<string, unknown> } = {};
      if (change.name !== undefined) {
        const name = change.name.trim();
        if (name === '') throw new InvalidInputError('name must not be blank');
        patch.name = name;
      }
      if (change.description !== undefined) patch.description = change.description;
      if (change.metadata !== undefined) patch.metadata = change.metadata;
      if (Object.keys(patch).length === 0) throw new InvalidInputError('no fields to update: give name, description or metadata');
      const experiment = await requireExperiment(identifier);
      const updated = await experiments.update(experiment.id, patch, now());
      if (!updated) throw new NotFoundError(`experiment ${JSON.stringify(identifier.text)} not found`);
      return (await withCounts([updated]))[0]!;
    },

    /**
     * Deletes the experiment with its runs and evaluations: gone for readers at once, its rows
     * removed in short batches by the dataset-deletions job (docs/experiments.md, "Deleting").
     */
    async delete(identifier: Identifier): Promise<void> {
      const experiment = await requireExperiment(identifier);
      if (!(await experiments.markDeleted(experiment.id, now()))) {
        throw new NotFoundError(`experiment ${JSON.stringify(identifier.text)} not found`);
      }
      onDeleted?.();
    },

    /** Records a run; a second successful run of one example and repetition is 409, a failed one may be retried. */
    async addRun(experimentIdentifier: Identifier, input: RunInput): Promise<number> {
      const experiment = await requireExperiment(experimentIdentifier);
      const exampleId = input.example.rowId;
      if (exampleId === null || !(await experiments.hasExample(experiment.id, exampleId))) {
        throw new NotFoundError(`dataset example ${JSON.stringify(input.example.text)} is not an example of this experiment`);
      }
      if (!Number.isInteger(input.repetitionNumber) || input.repetitionNumber < 1 || input.repetitionNumber > experiment.repetitions) {
        throw new InvalidInputError(`repetition_number must be from 1 to ${experiment.repetitions} (the experiment's repetitions)`);
      }
      const existing = await experiments.findRun(experiment.id, exampleId, input.repetitionNumber);
      if (existing && existing.error === null) {
        throw new ConflictError(`repetition ${input.repetitionNumber} of this example already has a successful run`);
      }
      return experiments.upsertRun(
        {
          experimentId: experiment.id,
          exampleId,
          repetitionNumber: input.repetitionNumber,
          output: input.output,
          startTime: input.startTime,
          endTime: input.endTime,
          traceId: input.traceId,
          error: input.error,
        },
        now(),
      );
    },

    /** Runs in id order (limit + 1 rows), with their evaluations. */
    async runs(
      identifier: Identifier,
      query: { limit: number; fromId?: number | undefined },
    ): Promise<{ runs: RunRecord[]; evaluations: Map<number, EvaluationRecord[]> }> {
      const experiment = await requireExperiment(identifier);
      const runs = await experiments.listRuns(experiment.id, { limit: query.limit + 1, fromId: query.fromId });
      const evaluations = new Map<number, EvaluationRecord[]>();
      for (const evaluation of await experiments.evaluationsOf(runs.map((run) => run.id))) {
        evaluations.set(evaluation.runId, [...(evaluations.get(evaluation.runId) ?? []), evaluation]);
      }
      return { runs, evaluations };
    },

    /** Creates or replaces the evaluation with this name of a run. */
    async evaluate(input: EvaluationInput): Promise<number> {
      const run = input.run.rowId === null ? undefined : await experiments.findRunById(input.run.rowId);
      if (!run) throw new NotFoundError(`experiment run ${JSON.stringify(input.run.text)} not found`);
      const name = input.name.trim();
      if (name === '') throw new InvalidInputError('name must not be blank');
      const kind = input.annotatorKind.toUpperCase();
      if (!(ANNOTATOR_KINDS as readonly string[]).includes(kind)) {
        throw new InvalidInputError(`annotator_kind must be one of ${ANNOTATOR_KINDS.join(', ')}`);
      }
      if (input.score !== null && !Number.isFinite(input.score)) throw new InvalidInputError('score must be a finite number');
      return experiments.upsertEvaluation({ ...input, runId: run.id, name, annotatorKind: kind }, now());
    },

    /** Examples with repetitions that have no successful run (example ids ascending, limit + 1 rows). */
    async incompleteRuns(
      identifier: Identifier,
      query: { limit: number; fromExampleId?: number | undefined },
    ): Promise<{ example: ExampleRecord; repetitionNumbers: number[] }[]> {
      const experiment = await requireExperiment(identifier);
      const result: { example: ExampleRecord; repetitionNumbers: number[] }[] = [];
      let from = query.fromExampleId;
      while (result.length < query.limit + 1) {
        // Most examples may be complete: between pages the event loop takes other requests.
        await setImmediate();
        const page = await experiments.examplesWithSuccessfulRuns(experiment.id, { limit: 500, fromExampleId: from });
        if (page.length === 0) break;
        const incomplete = page.filter(({ successful }) => successful.length < experiment.repetitions);
        const byId = await examplesById(
          experiment,
          incomplete.map(({ exampleId }) => exampleId),
        );
        for (const { exampleId, successful } of incomplete) {
          const missing = Array.from({ length: experiment.repetitions }, (_, index) => index + 1).filter((n) => !successful.includes(n));
          const example = byId.get(exampleId);
          if (missing.length > 0 && example) result.push({ example, repetitionNumbers: missing });
          if (result.length === query.limit + 1) break;
        }
        from = page[page.length - 1]!.exampleId + 1;
      }
      return result;
    },

    /** Successful runs that lack a successful evaluation of one of the names (run ids ascending, limit + 1 rows). */
    async incompleteEvaluations(
      identifier: Identifier,
      names: string[],
      query: { limit: number; fromRunId?: number | undefined },
    ): Promise<{ run: RunRecord; example: ExampleRecord; names: string[] }[]> {
      const experiment = await requireExperiment(identifier);
      if (names.length === 0) throw new InvalidInputError('evaluation_name must name at least one evaluation');
      const rows = await experiments.runsMissingEvaluations(experiment.id, names, { limit: query.limit + 1, fromRunId: query.fromRunId });
      const byId = await examplesById(experiment, [...new Set(rows.map(({ run }) => run.exampleId))]);
      return rows.flatMap(({ run, missing }) => {
        const example = byId.get(run.exampleId);
        return example ? [{ run, example, names: missing }] : [];
      });
    },
    /**
     * Experiments of one dataset side by side, one row per example of the first (the base), in
     * example order from `fromExampleId`; limit + 1 rows so the caller can tell a next page.
     */
    async compare(
      datasetIdentifier: Identifier,
      experimentIdentifiers: Identifier[],
      query: {
        limit: number;
        fromExampleId?: number | undefined;
        /** Only the examples that regressed or improved on the `scoreName` evaluator's score against the base, or failed. */
        filter?: 'regressed' | 'improved' | 'failed' | undefined;
        scoreName?: string | undefined;
        /** Rows by the score delta against the base, largest drop first, from this position (docs/experiments.md, "Comparison"). */
        sortByDelta?: { offset: number } | undefined;
      },
    ): Promise<{ experiments: ExperimentWithCounts[]; rows: ComparisonRow[] }> {
      const dataset = await requireDataset(datasetIdentifier);
      if (experimentIdentifiers.length === 0) throw new InvalidInputError('name at least one experiment_id to compare');
      if (experimentIdentifiers.length > MAX_COMPARED) throw new InvalidInputError(`compare at most ${MAX_COMPARED} experiments at once`);
      const compared: ExperimentRecord[] = [];
      for (const identifier of experimentIdentifiers) {
        const experiment = await requireExperiment(identifier);
        if (experiment.datasetId !== dataset.id) {
          throw new InvalidInputError(`experiment ${JSON.stringify(identifier.text)} is not an experiment of dataset ${dataset.name}`);
        }
        if (compared.some((other) => other.id === experiment.id)) {
          throw new InvalidInputError(`experiment ${JSON.stringify(identifier.text)} is named twice`);
        }
        compared.push(experiment);
      }
      const base = compared[0]!;
      const page = { limit: query.limit + 1, fromExampleId: query.fromExampleId };
      const filter = comparisonFilter(query.filter, query.scoreName);
      const others = compared.slice(1).map((experiment) => experiment.id);
      if (query.sortByDelta) {
        if (!query.scoreName?.trim())
          throw new InvalidInputError('sort=score_delta needs score_name: the evaluator whose scores are compared');
        if (others.length === 0) throw new InvalidInputError('sort=score_delta needs a second experiment to compare with the base');
      }
      const ids = query.sortByDelta
        ? await experiments.exampleIdsByDelta(base.id, others, query.scoreName!.trim(), filter, {
            limit: query.limit + 1,
            offset: query.sortByDelta.offset,
          })
        : filter
          ? await experiments.comparedExampleIds(base.id, others, filter, page)
          : await experiments.exampleIds(base.id, page);
      const [withCountsRows, examples, runs] = await Promise.all([
        withCounts(compared),
        examplesById(base, ids),
        experiments.runsOn(
          compared.map((experiment) => experiment.id),
          ids,
        ),
      ]);
      const details = await detailsOf(runs);
      const position = new Map(compared.map((experiment, index) => [experiment.id, index]));
      const byExample = new Map<number, RunDetails[][]>(ids.map((id) => [id, compared.map(() => [])]));
      for (const detail of details) byExample.get(detail.run.exampleId)?.[position.get(detail.run.experimentId) ?? -1]?.push(detail);
      const rows = ids.flatMap((id) => {
        const example = examples.get(id);
        return example ? [{ example, runs: byExample.get(id)! }] : [];
      });
      return { experiments: withCountsRows, rows };
    },

    /** The experiment for a download: its runs with examples and evaluations, page by page in example order. */
    async download(
      identifier: Identifier,
    ): Promise<{ experiment: ExperimentWithCounts; rows: AsyncGenerator<RunDetails & { example: ExampleRecord }> }> {
      const experiment = (await withCounts([await requireExperiment(identifier)]))[0]!;
      async function* rows() {
        let from: number | undefined;
        for (;;) {
          // A reader that keeps pulling would otherwise run page after page in one turn of the event loop.
          await setImmediate();
          const ids = await experiments.exampleIds(experiment.id, { limit: DOWNLOAD_PAGE, fromExampleId: from });
          if (ids.length === 0) return;
          const [examples, runs] = await Promise.all([examplesById(experiment, ids), experiments.runsOn([experiment.id], ids)]);
          for (const detail of await detailsOf(runs)) {
            const example = examples.get(detail.run.exampleId);
            if (example) yield { ...detail, example };
          }
          from = ids[ids.length - 1]! + 1;
        }
      }
      return { experiment, rows: rows() };
    },
  };
}
