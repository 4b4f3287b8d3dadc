/** Experiments, their runs and evaluations; Phoenix-compatible (docs/experiments.md). */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ExampleRecord } from '../../db/repositories/datasets-repository.js';
import type { EvaluationRecord, RunRecord } from '../../db/repositories/experiments-repository.js';
import { Readable } from 'node:stream';
import type { ExperimentWithCounts, ExperimentsService, RunDetails } from '../../experiments/experiments-service.js';
import { presentExample } from '../datasets/datasets-presenters.js';
import { csvField } from '../../shared/csv.js';
import {
  ComparisonQuery,
  ComparisonRow,
  CreateExperimentBody,
  CreateRunBody,
  DatasetIdPath,
  EvaluationBody,
  Experiment,
  ExperimentPath,
  ExperimentRun,
  IncompleteEvaluation,
  IncompleteEvaluationsQuery,
  IncompleteRun,
  PageQuery,
  UpdateExperimentBody,
} from './experiments-schemas.js';
import { identifier, toGlobalId } from '../shared/global-id.js';
import { callerUserId } from '../shared/principal.js';
import { DEFAULT_LIMIT, cursorId, pageAnswer } from '../shared/pagination.js';
import { errors, Nullable, Page } from '../shared/schemas.js';

const experimentOf = (params: { experiment_id: string }) => identifier('Experiment', params.experiment_id);

function presentExperiment(experiment: ExperimentWithCounts) {
  return {
    id: toGlobalId('Experiment', experiment.id),
    dataset_id: toGlobalId('Dataset', experiment.datasetId),
    dataset_version_id: toGlobalId('DatasetVersion', experiment.datasetVersionId),
    name: experiment.name,
    description: experiment.description,
    repetitions: experiment.repetitions,
    metadata: experiment.metadata,
    project_name: experiment.projectName,
    created_at: experiment.createdAt,
    updated_at: experiment.updatedAt,
    example_count: experiment.exampleCount,
    successful_run_count: experiment.successfulRunCount,
    failed_run_count: experiment.failedRunCount,
    missing_run_count: experiment.missingRunCount,
    annotation_summaries: experiment.evaluationSummaries.map((summary) => ({
      annotation_name: summary.name,
      mean_score: summary.meanScore,
      count: summary.count,
      error_count: summary.errorCount,
    })),
    average_run_latency_ms: experiment.averageRunLatencyMs,
  };
}

function presentComparedRun(detail: RunDetails) {
  return { ...presentRun(detail.run, detail.evaluations), latency_ms: detail.latencyMs, token_counts: detail.tokens };
}

/** One run of a download, in Phoenix's shape (docs/experiments.md, "Downloads"). */
function downloadRecord(detail: RunDetails & { example: ExampleRecord }) {
  return {
    example_id: toGlobalId('DatasetExample', detail.run.exampleId),
    repetition_number: detail.run.repetitionNumber,
    input: detail.example.input,
    reference_output: detail.example.output,
    output: detail.run.output,
    metadata: detail.example.metadata,
    error: detail.run.error,
    latency_ms: detail.latencyMs,
    start_time: detail.run.startTime,
    end_time: detail.run.endTime,
    trace_id: detail.run.traceId,
    prompt_token_count: detail.tokens?.prompt ?? null,
    completion_token_count: detail.tokens?.completion ?? null,
    annotations: detail.evaluations.map((evaluation) => ({
      name: evaluation.name,
      annotator_kind: evaluation.annotatorKind,
      label: evaluation.label,
      score: evaluation.score,
      explanation: evaluation.explanation,
      trace_id: evaluation.traceId,
      error: evaluation.error,
      metadata: evaluation.metadata,
      start_time: evaluation.startTime,
      end_time: evaluation.endTime,
    })),
  };
}

const CSV_RUN_COLUMNS = [
  'example_id',
  'repetition_number',
  'input',
  'reference_output',
  'output',
  'metadata',
  'error',
  'latency_ms',
  'start_time',
  'end_time',
  'trace_id',
  'prompt_token_count',
  'completion_token_count',
] as const;
const CSV_EVALUATION_COLUMNS = [
  'label',
  'score',
  'explanation',
  'metadata',
  'annotator_kind',
  'trace_id',
  'error',
  'start_time',
  'end_time',
] as const;

/** A CSV cell: objects as JSON, strings as they are, null as empty. */
const cell = (value: unknown): string =>
  value === null || value === undefined
    ? ''
    : typeof value === 'string'
      ? value
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);

/** One CSV line of a download: the run's columns, then each evaluator's (by the names in the header). */
function csvLine(record: ReturnType<typeof downloadRecord>, names: string[]): string {
  const byName = new Map(record.annotations.map((annotation) => [annotation.name, annotation]));
  const cells = CSV_RUN_COLUMNS.map((column) => cell(record[column]));
  for (const name of names) {
    const annotation = byName.get(name);
    for (const column of CSV_EVALUATION_COLUMNS) cells.push(cell(annotation?.[column]));
  }
  return `${cells.map(csvField).join(',')}\r\n`;
}

/** The file name of a download: the experiment's name, safe in a header. */
const attachment = (name: string, extension: string) => `attachment; filename="${encodeURIComponent(name)}.${extension}"`;

function presentRun(run: RunRecord, evaluations?: EvaluationRecord[]) {
  return {
    id: toGlobalId('ExperimentRun', run.id),
    experiment_id: toGlobalId('Experiment', run.experimentId),
    dataset_example_id: toGlobalId('DatasetExample', run.exampleId),
    repetition_number: run.repetitionNumber,
    start_time: run.startTime,
    end_time: run.endTime,
    output: run.output,
    error: run.error,
    trace_id: run.traceId,
    ...(evaluations
      ? {
          annotations: evaluations.map((evaluation) => ({
            id: toGlobalId('ExperimentEvaluation', evaluation.id),
            name: evaluation.name,
            annotator_kind: evaluation.annotatorKind,
            label: evaluation.label,
            score: evaluation.score,
            explanation: evaluation.explanation,
            error: evaluation.error,
          })),
        }
      : {}),
  };
}

/** A cursor that names a row of `type` in a list ordered by ascending id. */
const ascendingCursor = (type: 'DatasetExample' | 'ExperimentRun', cursor: string | undefined) => cursorId(type, cursor);

export async function experimentsRoutes(instance: FastifyInstance, { experiments }: { experiments: ExperimentsService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['experiments'];
  const listOf = <T extends ReturnType<typeof Type.Object>>(item: T) => Page(item);

  app.post(
    '/v1/datasets/:dataset_id/experiments',
    {
      schema: {
        tags,
        operationId: 'createExperiment',
        summary: 'Create an experiment on a dataset version',
        params: DatasetIdPath,
        body: CreateExperimentBody,
        response: { 200: Type.Object({ data: Experiment }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const body = request.body;
      const experiment = await experiments.create(identifier('Dataset', request.params.dataset_id), {
        name: body.name,
        description: body.description,
        metadata: body.metadata,
        projectName: body.project_name,
        repetitions: body.repetitions,
        version: body.version_id ? identifier('DatasetVersion', body.version_id) : undefined,
        userId: callerUserId(request),
      });
      return { data: presentExperiment(experiment) };
    },
  );

  app.get(
    '/v1/datasets/:dataset_id/experiments',
    {
      schema: {
        tags,
        operationId: 'listExperiments',
        summary: "List a dataset's experiments",
        params: DatasetIdPath,
        querystring: PageQuery,
        response: { 200: listOf(Experiment), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const rows = await experiments.list(identifier('Dataset', request.params.dataset_id), {
        limit,
        fromId: cursorId('Experiment', request.query.cursor),
      });
      return pageAnswer('Experiment', rows, limit, presentExperiment);
    },
  );

  app.get(
    '/v1/experiments/:experiment_id',
    {
      schema: {
        tags,
        operationId: 'getExperiment',
        summary: 'Get an experiment with its run counts',
        params: ExperimentPath,
        response: { 200: Type.Object({ data: Experiment }), ...errors(404, 422) },
      },
    },
    async (request) => ({ data: presentExperiment(await experiments.get(experimentOf(request.params))) }),
  );

  app.patch(
    '/v1/experiments/:experiment_id',
    {
      schema: {
        tags,
        operationId: 'updateExperiment',
        summary: 'Update an experiment by ID',
        description: 'Changes only the fields sent: name, description (null clears it) and metadata (replaced whole).',
        params: ExperimentPath,
        body: UpdateExperimentBody,
        response: { 200: Type.Object({ data: Experiment }), ...errors(404, 422) },
      },
    },
    async (request) => ({ data: presentExperiment(await experiments.update(experimentOf(request.params), request.body)) }),
  );

  app.delete(
    '/v1/experiments/:experiment_id',
    {
      schema: {
        tags,
        operationId: 'deleteExperiment',
        summary: 'Delete an experiment with its runs and evaluations',
        params: ExperimentPath,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errors(404, 422) },
      },
    },
    async (request, reply) => {
      await experiments.delete(experimentOf(request.params));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/experiments/:experiment_id/runs',
    {
      schema: {
        tags,
        operationId: 'createExperimentRun',
        summary: 'Record a run of the task on one example',
        description: 'A second successful run of one example and repetition is 409; a failed run may be retried (it is replaced).',
        params: ExperimentPath,
        body: CreateRunBody,
        response: { 200: Type.Object({ data: Type.Object({ id: Type.String() }) }), ...errors(404, 409, 422) },
      },
    },
    async (request) => {
      const body = request.body;
      const id = await experiments.addRun(experimentOf(request.params), {
        example: identifier('DatasetExample', body.dataset_example_id),
        output: body.output ?? null,
        repetitionNumber: body.repetition_number,
        startTime: body.start_time,
        endTime: body.end_time,
        traceId: body.trace_id ?? null,
        error: body.error ?? null,
      });
      return { data: { id: toGlobalId('ExperimentRun', id) } };
    },
  );

  app.get(
    '/v1/experiments/:experiment_id/runs',
    {
      schema: {
        tags,
        operationId: 'listExperimentRuns',
        summary: "List an experiment's runs with their evaluations",
        params: ExperimentPath,
        querystring: PageQuery,
        response: { 200: listOf(ExperimentRun), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIMIT;
      const { runs, evaluations } = await experiments.runs(experimentOf(request.params), {
        limit,
        fromId: ascendingCursor('ExperimentRun', request.query.cursor),
      });
      return pageAnswer('ExperimentRun', runs, limit, (run) => presentRun(run, evaluations.get(run.id) ?? []));
    },
  );

  app.post(
    '/v1/experiment_evaluations',
    {
      schema: {
        tags,
        operationId: 'upsertExperimentEvaluation',
        summary: 'Create or update the evaluation of a run (one per run and name)',
        body: EvaluationBody,
        response: { 200: Type.Object({ data: Type.Object({ id: Type.String() }) }), ...errors(404, 422) },
      },
    },
    async (request) => {
      const body = request.body;
      const id = await experiments.evaluate({
        run: identifier('ExperimentRun', body.experiment_run_id),
        name: body.name,
        annotatorKind: body.annotator_kind,
        label: body.result?.label ?? null,
        score: body.result?.score ?? null,
        explanation: body.result?.explanation ?? null,
        metadata: { ...(body.metadata ?? {}), ...(body.result?.metadata ?? {}) },
        traceId: body.trace_id ?? null,
        error: body.error ?? null,
        startTime: body.start_time,
        endTime: body.end_time,
      });
      return { data: { id: toGlobalId('ExperimentEvaluation', id) } };
    },
  );

  app.get(
    '/v1/experiments/:experiment_id/incomplete-runs',
    {
      schema: {
        tags,
        operationId: 'getIncompleteExperimentRuns',
        summary: 'Examples with repetitions that have no successful run (for resuming)',
        params: ExperimentPath,
        querystring: PageQuery,
        response: { 200: listOf(IncompleteRun), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const rows = await experiments.incompleteRuns(experimentOf(request.params), {
        limit,
        fromExampleId: ascendingCursor('DatasetExample', request.query.cursor),
      });
      const next = rows.length > limit ? toGlobalId('DatasetExample', rows[limit]!.example.id) : null;
      return {
        data: rows
          .slice(0, limit)
          .map((row) => ({ dataset_example: presentExample(row.example), repetition_numbers: row.repetitionNumbers })),
        next_cursor: next,
      };
    },
  );

  app.get(
    '/v1/experiments/:experiment_id/incomplete-evaluations',
    {
      schema: {
        tags,
        operationId: 'getIncompleteExperimentEvaluations',
        summary: 'Successful runs missing one of the named evaluations (for resuming)',
        params: ExperimentPath,
        querystring: IncompleteEvaluationsQuery,
        response: { 200: listOf(IncompleteEvaluation), ...errors(404, 422) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const names = ([] as string[]).concat(request.query.evaluation_name ?? []);
      const rows = await experiments.incompleteEvaluations(experimentOf(request.params), names, {
        limit,
        fromRunId: ascendingCursor('ExperimentRun', request.query.cursor),
      });
      const next = rows.length > limit ? toGlobalId('ExperimentRun', rows[limit]!.run.id) : null;
      return {
        data: rows.slice(0, limit).map((row) => ({
          experiment_run: presentRun(row.run),
          dataset_example: presentExample(row.example),
          evaluation_names: row.names,
        })),
        next_cursor: next,
      };
    },
  );
  app.get(
    '/v1/datasets/:dataset_id/compare',
    {
      schema: {
        tags,
        operationId: 'compareExperiments',
        summary: 'Experiments of a dataset side by side, per example (Sightline addition)',
        description:
          'One row per example of the first experiment (the base), in example order, with every compared experiment’s runs of it: ' +
          'output, error, latency, token sums of its trace and evaluations. Pages by example (cursor); `sort=score_delta` puts the largest drops first.',
        params: DatasetIdPath,
        querystring: ComparisonQuery,
        response: {
          200: Type.Object({ experiments: Type.Array(Experiment), data: Type.Array(ComparisonRow), next_cursor: Nullable(Type.String()) }),
          ...errors(404, 422),
        },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const ids = ([] as string[]).concat(request.query.experiment_id);
      // Sorted by delta, rows page by position (the order is computed, not a key of the rows).
      const byDelta = request.query.sort === 'score_delta';
      const offset = byDelta ? (cursorId('ListPosition', request.query.cursor) ?? 0) : 0;
      const result = await experiments.compare(
        identifier('Dataset', request.params.dataset_id),
        ids.map((id) => identifier('Experiment', id)),
        {
          limit,
          fromExampleId: byDelta ? undefined : ascendingCursor('DatasetExample', request.query.cursor),
          filter: request.query.filter,
          scoreName: request.query.score_name,
          ...(byDelta ? { sortByDelta: { offset } } : {}),
        },
      );
      const next =
        result.rows.length <= limit
          ? null
          : byDelta
            ? toGlobalId('ListPosition', offset + limit)
            : toGlobalId('DatasetExample', result.rows[limit]!.example.id);
      return {
        experiments: result.experiments.map(presentExperiment),
        data: result.rows.slice(0, limit).map((row) => ({
          example: presentExample(row.example),
          runs: row.runs.map((runs) => runs.map(presentComparedRun)),
        })),
        next_cursor: next,
      };
    },
  );

  const downloadSchema = (operationId: string, summary: string) => ({
    tags,
    operationId,
    summary,
    params: ExperimentPath,
    // Streamed page by page: typed as unknown so a Readable can be sent; the document still says string.
    response: { 200: Type.Unsafe<unknown>({ type: 'string' }), ...errors(404, 422) },
  });

  app.get(
    '/v1/experiments/:experiment_id/json',
    { schema: downloadSchema('getExperimentJSON', 'Download the runs with their examples and evaluations as JSON') },
    async (request, reply) => {
      const { experiment, rows } = await experiments.download(experimentOf(request.params));
      async function* body() {
        let first = true;
        yield '[';
        for await (const row of rows) {
          yield `${first ? '\n' : ',\n'}${JSON.stringify(downloadRecord(row))}`;
          first = false;
        }
        yield first ? ']\n' : '\n]\n';
      }
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', attachment(experiment.name, 'json'))
        .send(Readable.from(body()));
    },
  );

  app.get(
    '/v1/experiments/:experiment_id/csv',
    { schema: downloadSchema('getExperimentCSV', 'Download the runs with their examples and evaluations as CSV') },
    async (request, reply) => {
      const { experiment, rows } = await experiments.download(experimentOf(request.params));
      const names = experiment.evaluationSummaries.map((summary) => summary.name);
      const header = [
        ...CSV_RUN_COLUMNS,
        ...names.flatMap((name) => CSV_EVALUATION_COLUMNS.map((column) => `annotation_${name}_${column}`)),
      ];
      async function* body() {
        yield `${header.map(csvField).join(',')}\r\n`;
        for await (const row of rows) yield csvLine(downloadRecord(row), names);
      }
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', attachment(experiment.name, 'csv'))
        .send(Readable.from(body()));
    },
  );
}
