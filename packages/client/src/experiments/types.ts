/** The runner's public shapes, kept close to @arizeai/phoenix-client's so the same evaluators work in both. */
import type { SightlineClient } from '../index.js';
import type { Experiment } from '../types.js';
import type { OutputStream } from './progress.js';
import type { RetryOptions } from './retry.js';

/** What a task may return (phoenix-client's TaskOutput). */
export type TaskOutput = string | boolean | number | object | null;

/** A dataset example as the task sees it. */
export interface RunnerExample {
  /** The example's id (the caller's, when the upload gave one). */
  id: string;
  /** The example's opaque id, which runs are recorded against. */
  nodeId: string;
  input: Record<string, unknown>;
  /** The expected output. */
  output: Record<string, unknown>;
  metadata: Record<string, unknown>;
  updatedAt: string;
}

/** Per-run context handed to the task as its second argument. */
export interface TaskContext {
  /** 1-based repetition number. */
  repetition: number;
  /** Aborts when the runner's signal does. */
  signal: AbortSignal | undefined;
}

export type ExperimentTask = (example: RunnerExample, context: TaskContext) => TaskOutput | Promise<TaskOutput>;

/** What an evaluator receives (phoenix-client's EvaluatorParams); open, so phoenix-evals' record-typed evaluators fit. */
export interface EvaluatorParams {
  [field: string]: unknown;
  input: Record<string, unknown>;
  output: TaskOutput;
  expected?: Record<string, unknown> | null;
  metadata?: Record<string, unknown> | null;
  /** The task run's trace id. */
  traceId?: string | null;
}

/** A structured result (phoenix-client's EvaluationResult). */
export interface EvaluationResult {
  score?: number | null;
  label?: string | null;
  explanation?: string | null;
  metadata?: Record<string, unknown>;
}

export type AnnotatorKind = 'CODE' | 'LLM' | 'HUMAN';

/** An evaluator: phoenix-client's `{name, kind, evaluate}` objects fit unchanged; a bare number or boolean is a score. */
export interface Evaluator {
  name: string;
  /** Default CODE. */
  kind?: AnnotatorKind;
  evaluate: (params: EvaluatorParams) => EvaluationResult | number | boolean | Promise<EvaluationResult | number | boolean>;
}

/** Where the runner connects: a client from createClient, or the same options createClient takes. */
export interface ConnectionOptions {
  /** Use this client's base URL, headers and fetch. */
  client?: SightlineClient;
  /** Default SERVICE_COLLECTOR_ENDPOINT (without /v1/traces), else http://127.0.0.1:6006. */
  baseUrl?: string;
  /** Default SERVICE_API_KEY. */
  apiKey?: string;
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
  env?: Record<string, string | undefined>;
}

export interface CommonRunOptions extends ConnectionOptions {
  /** Task runs in flight at once (default 5). */
  concurrency?: number;
  /** Stops scheduling; calls in flight are aborted and the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Progress and summary: false silences them; default process.stderr. */
  output?: boolean | OutputStream;
  /** Milliseconds between plain progress lines when the output is not a terminal (default 5000). */
  progressIntervalMs?: number;
  /** Retries of every HTTP call (429, 503, network errors). */
  retry?: RetryOptions;
  /** Trace each task run to the experiment's project (default true). */
  tracing?: boolean;
}

export type DatasetSelector = ({ datasetId: string } | { datasetName: string }) & { versionId?: string };

export interface RunExperimentOptions extends CommonRunOptions {
  dataset: DatasetSelector;
  task: ExperimentTask;
  evaluators?: readonly Evaluator[];
  /** Runs of each example (default 1). */
  repetitions?: number;
  experimentName?: string;
  description?: string;
  metadata?: Record<string, unknown>;
}

export interface ResumeExperimentOptions extends CommonRunOptions {
  experimentId: string;
  task: ExperimentTask;
  evaluators?: readonly Evaluator[];
}

export interface ResumeEvaluationOptions extends CommonRunOptions {
  experimentId: string;
  evaluators: readonly Evaluator[];
}

/** One task run this invocation made. */
export interface RunRecord {
  /** The server's run id; null when the server already had a successful run (409). */
  id: string | null;
  exampleId: string;
  repetition: number;
  output: TaskOutput;
  error: string | null;
  traceId: string | null;
  startTime: string;
  endTime: string;
  /** ok: recorded; failed: the task threw (recorded with its error); done-before: the server had it already. */
  status: 'ok' | 'failed' | 'done-before';
}

/** One evaluation this invocation recorded. */
export interface EvaluationRecord {
  id: string;
  runId: string;
  name: string;
  kind: AnnotatorKind;
  result: EvaluationResult | null;
  error: string | null;
  startTime: string;
  endTime: string;
}

export interface EvaluatorSummary {
  name: string;
  /** Evaluations recorded (failures included). */
  count: number;
  /** Mean of the numeric scores, null when none had one. */
  meanScore: number | null;
  labels: Record<string, number>;
  failures: number;
}

export interface ExperimentSummary {
  runs: { total: number; ok: number; failed: number; doneBefore: number };
  evaluators: EvaluatorSummary[];
  wallTimeMs: number;
  /** The experiment's counts on the server after the invocation. */
  experiment: { id: string; successful: number; failed: number; missing: number };
}

export interface ExperimentResult {
  /** The experiment as the server has it at the end (counts refreshed). */
  experiment: Experiment;
  runs: RunRecord[];
  evaluations: EvaluationRecord[];
  summary: ExperimentSummary;
}
