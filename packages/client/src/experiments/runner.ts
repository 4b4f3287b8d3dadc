/**
 * Sightline's experiment runner (docs/experiments.md, "Sightline's runner"): runExperiment,
 * resumeExperiment and resumeEvaluation over the experiment routes, with bounded concurrency,
 * retried HTTP calls, task tracing, progress and a summary.
 */
import { clientSettings, SightlineError } from '../settings.js';
import type { DatasetExample, Experiment, ExperimentRun } from '../types.js';
import { createJsonRequest, type JsonRequest } from './http.js';
import { runPool } from './pool.js';
import { createProgress, type OutputStream } from './progress.js';
import { formatSummary, summarize } from './summary.js';
import { errorMessage, runTraced, startTaskTracing } from './tracing.js';
import type {
  AnnotatorKind,
  CommonRunOptions,
  EvaluationRecord,
  EvaluationResult,
  Evaluator,
  ExperimentResult,
  ExperimentTask,
  ResumeEvaluationOptions,
  ResumeExperimentOptions,
  RunExperimentOptions,
  RunnerExample,
  RunRecord,
} from './types.js';

const DEFAULT_CONCURRENCY = 5;
// The server's largest page (docs/api.md): fewer round trips when listing what is left to do.
const PAGE_LIMIT = 1000;

interface Session {
  request: JsonRequest;
  baseUrl: string;
  headers: Readonly<Record<string, string>>;
  output: OutputStream | null;
  options: CommonRunOptions;
  concurrency: number;
  runs: RunRecord[];
  evaluations: EvaluationRecord[];
  started: number;
}

function openSession(options: CommonRunOptions): Session {
  const settings = options.client
    ? { baseUrl: options.client.baseUrl, headers: options.client.headers }
    : clientSettings({ baseUrl: options.baseUrl, apiKey: options.apiKey, headers: options.headers, env: options.env });
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  const output =
    options.output === false ? null : options.output === undefined || options.output === true ? process.stderr : options.output;
  return {
    request: createJsonRequest({
      baseUrl: settings.baseUrl,
      headers: settings.headers,
      fetch: options.fetch ?? options.client?.fetch,
      retry: options.retry,
      signal: options.signal,
    }),
    baseUrl: settings.baseUrl,
    headers: settings.headers,
    output,
    options,
    concurrency,
    runs: [],
    evaluations: [],
    started: performance.now(),
  };
}

const path = (template: string, ...values: string[]) => {
  let index = 0;
  return template.replace(/\{\}/g, () => encodeURIComponent(values[index++] ?? ''));
};

const toExample = (example: DatasetExample): RunnerExample => ({
  id: example.id,
  nodeId: example.node_id,
  input: example.input,
  output: example.output,
  metadata: example.metadata,
  updatedAt: example.updated_at,
});

/** An evaluator's answer as the evaluation's result: a number is a score, a boolean a 1/0 score with a label. */
export function normalizeResult(value: EvaluationResult | number | boolean | null | undefined): EvaluationResult {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`evaluator returned ${value}, not a finite score`);
    return { score: value, label: null, explanation: null, metadata: {} };
  }
  if (typeof value === 'boolean') return { score: value ? 1 : 0, label: String(value), explanation: null, metadata: {} };
  if (value === null || value === undefined) return { score: null, label: null, explanation: null, metadata: {} };
  return { score: value.score ?? null, label: value.label ?? null, explanation: value.explanation ?? null, metadata: value.metadata ?? {} };
}

/** Runs one evaluator on one run and records it (awaited); a throwing evaluator is recorded with its error. */
async function evaluateRun(
  session: Session,
  run: { id: string; output: unknown; traceId: string | null },
  example: RunnerExample,
  evaluator: Evaluator,
): Promise<EvaluationRecord> {
  const kind: AnnotatorKind = evaluator.kind ?? 'CODE';
  const startTime = new Date().toISOString();
  let result: EvaluationResult | null = null;
  let error: string | null = null;
  try {
    result = normalizeResult(
      await evaluator.evaluate({
        input: example.input,
        output: (run.output ?? null) as RunRecord['output'],
        expected: example.output,
        metadata: example.metadata,
        traceId: run.traceId,
      }),
    );
  } catch (caught) {
    error = errorMessage(caught);
  }
  const endTime = new Date().toISOString();
  const body = {
    experiment_run_id: run.id,
    name: evaluator.name,
    annotator_kind: kind,
    start_time: startTime,
    end_time: endTime,
    result,
    error,
  };
  const created = await session.request<{ data: { id: string } }>('POST', '/v1/experiment_evaluations', body);
  const record: EvaluationRecord = { id: created.data.id, runId: run.id, name: evaluator.name, kind, result, error, startTime, endTime };
  session.evaluations.push(record);
  return record;
}

interface RunItem {
  example: RunnerExample;
  repetition: number;
}

/** Runs the task on every item (traced, recorded) and evaluates each successful run. */
async function executeRuns(
  session: Session,
  experiment: Experiment,
  items: readonly RunItem[],
  task: ExperimentTask,
  evaluators: readonly Evaluator[],
): Promise<void> {
  if (items.length === 0) return;
  const { options } = session;
  const tracing = startTaskTracing({
    enabled: options.tracing !== false,
    projectName: experiment.project_name,
    baseUrl: session.baseUrl,
    headers: session.headers,
    env: options.env,
  });
  const progress = createProgress({ label: 'runs', total: items.length, output: session.output, intervalMs: options.progressIntervalMs });
  const taskName = task.name || 'task';
  try {
    await runPool(
      items,
      session.concurrency,
      async ({ example, repetition }) => {
        const outcome = await runTraced(tracing.tracer, taskName, example, () => task(example, { repetition, signal: options.signal }));
        const record: RunRecord = {
          id: null,
          exampleId: example.nodeId,
          repetition,
          ...outcome,
          status: outcome.error === null ? 'ok' : 'failed',
        };
        try {
          const created = await session.request<{ data: { id: string } }>('POST', path('/v1/experiments/{}/runs', experiment.id), {
            dataset_example_id: example.nodeId,
            output: outcome.output,
            repetition_number: repetition,
            start_time: outcome.startTime,
            end_time: outcome.endTime,
            trace_id: outcome.traceId,
            error: outcome.error,
          });
          record.id = created.data.id;
        } catch (error) {
          // 409: a successful run of this example and repetition is already stored (an earlier,
          // killed invocation, or a retried POST whose first answer was lost): nothing to redo.
          if (!(error instanceof SightlineError && error.status === 409)) throw error;
          record.status = 'done-before';
        }
        session.runs.push(record);
        if (record.status === 'ok' && record.id !== null) {
          const runId = record.id;
          await Promise.all(evaluators.map((evaluator) => evaluateRun(session, { ...record, id: runId }, example, evaluator)));
        }
        progress.tick(record.status === 'failed');
      },
      options.signal,
    );
  } finally {
    progress.finish();
    await tracing.close();
  }
}

/** Evaluates the successful runs the server lists as lacking one of the evaluators' results. */
async function executeMissingEvaluations(session: Session, experimentId: string, evaluators: readonly Evaluator[]): Promise<void> {
  if (evaluators.length === 0) return;
  const byName = new Map(evaluators.map((evaluator) => [evaluator.name, evaluator]));
  const names = [...byName.keys()].map((name) => `evaluation_name=${encodeURIComponent(name)}`).join('&');
  const work: { run: ExperimentRun; example: RunnerExample; evaluator: Evaluator }[] = [];
  let cursor: string | null = null;
  do {
    const page: {
      data: { experiment_run: ExperimentRun; dataset_example: DatasetExample; evaluation_names: string[] }[];
      next_cursor: string | null;
    } = await session.request(
      'GET',
      `${path('/v1/experiments/{}/incomplete-evaluations', experimentId)}?${names}&limit=${PAGE_LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    for (const item of page.data) {
      for (const name of item.evaluation_names) {
        const evaluator = byName.get(name);
        if (evaluator) work.push({ run: item.experiment_run, example: toExample(item.dataset_example), evaluator });
      }
    }
    cursor = page.next_cursor;
  } while (cursor);
  if (work.length === 0) return;
  const progress = createProgress({
    label: 'evaluations',
    total: work.length,
    output: session.output,
    intervalMs: session.options.progressIntervalMs,
  });
  try {
    await runPool(
      work,
      session.concurrency,
      async ({ run, example, evaluator }) => {
        const record = await evaluateRun(session, { id: run.id, output: run.output, traceId: run.trace_id }, example, evaluator);
        progress.tick(record.error !== null);
      },
      session.options.signal,
    );
  } finally {
    progress.finish();
  }
}

/** Refreshes the experiment, builds the summary and prints it; rethrows an abort. */
async function finish(session: Session, experimentId: string): Promise<ExperimentResult> {
  session.options.signal?.throwIfAborted();
  const experiment = (await session.request<{ data: Experiment }>('GET', path('/v1/experiments/{}', experimentId))).data;
  const summary = summarize(session.runs, session.evaluations, performance.now() - session.started, experiment);
  session.output?.write(formatSummary(summary));
  return { experiment, runs: session.runs, evaluations: session.evaluations, summary };
}

/**
 * Runs `task` over a dataset's examples × repetitions in a new experiment, traces and records each
 * run, evaluates each successful run, and returns the experiment, runs, evaluations and a summary.
 */
export async function runExperiment(options: RunExperimentOptions): Promise<ExperimentResult> {
  const session = openSession(options);
  const repetitions = options.repetitions ?? 1;
  const evaluators = options.evaluators ?? [];
  const identifier = 'datasetId' in options.dataset ? options.dataset.datasetId : options.dataset.datasetName;
  const version = options.dataset.versionId ? `?version_id=${encodeURIComponent(options.dataset.versionId)}` : '';
  const examples = (
    await session.request<{ data: { dataset_id: string; version_id: string; examples: DatasetExample[] } }>(
      'GET',
      `${path('/v1/datasets/{}/examples', identifier)}${version}`,
    )
  ).data;
  const experiment = (
    await session.request<{ data: Experiment }>('POST', path('/v1/datasets/{}/experiments', examples.dataset_id), {
      name: options.experimentName,
      description: options.description,
      metadata: options.metadata ?? {},
      repetitions,
      version_id: examples.version_id,
    })
  ).data;
  const items = examples.examples.flatMap((example) =>
    Array.from({ length: repetitions }, (_, index) => ({ example: toExample(example), repetition: index + 1 })),
  );
  await executeRuns(session, experiment, items, options.task, evaluators);
  // A run answered 409 (its first POST went through but the answer was lost) was not evaluated here.
  if (session.runs.some((run) => run.status === 'done-before')) await executeMissingEvaluations(session, experiment.id, evaluators);
  return finish(session, experiment.id);
}

/**
 * Completes an interrupted experiment: runs only what GET …/incomplete-runs lists, then the
 * evaluations GET …/incomplete-evaluations lists for the given evaluators.
 */
export async function resumeExperiment(options: ResumeExperimentOptions): Promise<ExperimentResult> {
  const session = openSession(options);
  const experiment = (await session.request<{ data: Experiment }>('GET', path('/v1/experiments/{}', options.experimentId))).data;
  const items: RunItem[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: { dataset_example: DatasetExample; repetition_numbers: number[] }[]; next_cursor: string | null } =
      await session.request(
        'GET',
        `${path('/v1/experiments/{}/incomplete-runs', experiment.id)}?limit=${PAGE_LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
    for (const item of page.data) {
      const example = toExample(item.dataset_example);
      for (const repetition of item.repetition_numbers) items.push({ example, repetition });
    }
    cursor = page.next_cursor;
  } while (cursor);
  const evaluators = options.evaluators ?? [];
  await executeRuns(session, experiment, items, options.task, evaluators);
  await executeMissingEvaluations(session, experiment.id, evaluators);
  return finish(session, experiment.id);
}

/** Records the evaluations an experiment's successful runs lack for the given evaluators. */
export async function resumeEvaluation(options: ResumeEvaluationOptions): Promise<ExperimentResult> {
  const session = openSession(options);
  await executeMissingEvaluations(session, options.experimentId, options.evaluators);
  return finish(session, options.experimentId);
}
