/**
 * SQL for experiments, their frozen example sets, runs and run evaluations (docs/experiments.md).
 * Run counts come from grouped queries, never from loading runs; "incomplete" lists are anti-joins.
 */
import { setImmediate } from 'node:timers/promises';
import { type ExpressionBuilder, type Kysely, type RawBuilder, type Selectable, type SqlBool, sql } from 'kysely';
import type { Dialect } from '../../config.js';
import type { DB, ExperimentRunAnnotationsTable, ExperimentRunsTable, ExperimentsTable } from '../schema.js';
import { MAX_IN_LIST, chunks } from '../chunks.js';
import { millisBetween } from '../sql-dialect.js';

export interface ExperimentRecord {
  id: number;
  datasetId: number;
  datasetVersionId: number;
  name: string;
  description: string | null;
  metadata: Record<string, unknown>;
  repetitions: number;
  projectName: string;
  createdAt: string;
  updatedAt: string;
}

export interface RunCounts {
  examples: number;
  successful: number;
  failed: number;
}

export interface RunRecord {
  id: number;
  experimentId: number;
  exampleId: number;
  repetitionNumber: number;
  output: unknown;
  startTime: string;
  endTime: string;
  traceId: string | null;
  error: string | null;
}

export interface EvaluationRecord {
  id: number;
  runId: number;
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

/** One evaluator's results over an experiment's runs. */
export interface EvaluationSummary {
  name: string;
  /** Mean of the scores given (null when no evaluation had a score). */
  meanScore: number | null;
  /** Evaluations recorded, errors included. */
  count: number;
  errorCount: number;
}

/** Aggregates over an experiment's runs and evaluations, from grouped queries. */
export interface ExperimentSummary {
  evaluations: EvaluationSummary[];
  /** Mean task latency of the successful runs in milliseconds (null without one). */
  averageRunLatencyMs: number | null;
}

export type NewRun = Omit<RunRecord, 'id'>;
export type NewEvaluation = Omit<EvaluationRecord, 'id'>;

function toExperiment(row: Selectable<ExperimentsTable>): ExperimentRecord {
  return {
    id: Number(row.id),
    datasetId: Number(row.dataset_id),
    datasetVersionId: Number(row.dataset_version_id),
    name: row.name,
    description: row.description,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    repetitions: Number(row.repetitions),
    projectName: row.project_name,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toRun(row: Selectable<ExperimentRunsTable>): RunRecord {
  return {
    id: Number(row.id),
    experimentId: Number(row.experiment_id),
    exampleId: Number(row.example_id),
    repetitionNumber: Number(row.repetition_number),
    output: JSON.parse(row.output) as unknown,
    startTime: row.start_time,
    endTime: row.end_time,
    traceId: row.trace_id,
    error: row.error,
  };
}

function toEvaluation(row: Selectable<ExperimentRunAnnotationsTable>): EvaluationRecord {
  return {
    id: Number(row.id),
    runId: Number(row.run_id),
    name: row.name,
    annotatorKind: row.annotator_kind,
    label: row.label,
    score: row.score === null ? null : Number(row.score),
    explanation: row.explanation,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    traceId: row.trace_id,
    error: row.error,
    startTime: row.start_time,
    endTime: row.end_time,
  };
}

/** The experiment is readable: neither it nor its dataset is deleted (docs/experiments.md, "Deleting"). */
const isLive = (eb: ExpressionBuilder<DB, 'experiments'>) =>
  eb.and([
    eb('experiments.deleted_at', 'is', null),
    eb.exists(
      eb
        .selectFrom('datasets')
        .select('datasets.id')
        .whereRef('datasets.id', '=', 'experiments.dataset_id')
        .where('datasets.deleted_at', 'is', null),
    ),
  ]);

export type ExperimentsRepository = ReturnType<typeof createExperimentsRepository>;

/** Experiments repository over a Kysely connection (or transaction). */
/** A comparison filter (docs/experiments.md, "Comparison"). */
export type ComparisonFilter = { kind: 'regressed' | 'improved'; name: string } | { kind: 'failed' };

/** The other compared experiments' ids as a one-column table `o(id)`. */
function otherExperimentsSql(otherIds: number[]) {
  return sql.join(
    otherIds.map((id) => sql`select cast(${id} as bigint) as id`),
    sql` union all `,
  );
}

/** An experiment's mean score of evaluator `name` on the example `e.example_id` (null without one). */
function meanScoreSql(name: string, experimentId: RawBuilder<unknown>) {
  return sql<number | null>`(select avg(a.score) from experiment_runs r join experiment_run_annotations a on a.run_id = r.id
    where r.example_id = e.example_id and a.name = ${name} and a.score is not null and r.experiment_id = ${experimentId})`;
}

/**
 * Whether the example `e.example_id` passes the filter: `regressed` (another experiment's mean
 * score of `name` below the base's), `improved` (above it) or `failed` (a run or an evaluation of
 * any compared experiment with an error).
 */
function comparisonFilterSql(baseId: number, otherIds: number[], filter: ComparisonFilter): RawBuilder<SqlBool> {
  const all = sql.join([baseId, ...otherIds].map((id) => sql`${id}`));
  if (filter.kind === 'failed') {
    return sql<SqlBool>`(exists (select 1 from experiment_runs r where r.example_id = e.example_id and r.experiment_id in (${all}) and r.error is not null)
      or exists (select 1 from experiment_runs r join experiment_run_annotations a on a.run_id = r.id
        where r.example_id = e.example_id and r.experiment_id in (${all}) and a.error is not null))`;
  }
  const worse = filter.kind === 'regressed' ? sql.raw('<') : sql.raw('>');
  return sql<SqlBool>`exists (select 1 from (${otherExperimentsSql(otherIds)}) o where ${meanScoreSql(filter.name, sql`o.id`)} ${worse} ${meanScoreSql(filter.name, sql`${baseId}`)})`;
}

export function createExperimentsRepository(db: Kysely<DB>, dialect: Dialect) {
  return {
    async insert(
      experiment: Omit<ExperimentRecord, 'id' | 'createdAt' | 'updatedAt'> & { userId: number | null },
      now: string,
    ): Promise<ExperimentRecord> {
      const row = await db
        .insertInto('experiments')
        .values({
          dataset_id: experiment.datasetId,
          dataset_version_id: experiment.datasetVersionId,
          name: experiment.name,
          description: experiment.description,
          metadata: JSON.stringify(experiment.metadata),
          repetitions: experiment.repetitions,
          project_name: experiment.projectName,
          user_id: experiment.userId,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toExperiment(row);
    },
    /**
     * Freezes a page of the experiment's example set: on PostgreSQL one statement with the ids as
     * an array, on SQLite (no arrays) 500-row chunks.
     */
    async insertExamples(experimentId: number, exampleIds: number[]): Promise<void> {
      if (exampleIds.length === 0) return;
      if (dialect === 'postgres') {
        // One statement with one array parameter: four 500-row VALUES lists of 1,000 parameters
        // each spent most of a 200,000-example freeze planning (6.4 s, 1.4 s on SQLite).
        await sql`insert into experiment_examples (experiment_id, example_id) select ${experimentId}, unnest(${exampleIds}::bigint[])`.execute(
          db,
        );
        return;
      }
      for (let start = 0; start < exampleIds.length; start += 500) {
        const chunk = exampleIds.slice(start, start + 500);
        if (chunk.length > 0) {
          await db
            .insertInto('experiment_examples')
            .values(chunk.map((exampleId) => ({ experiment_id: experimentId, example_id: exampleId })))
            .execute();
        }
      }
    },
    /** The experiment, unless it or its dataset was deleted (its rows are then being removed). */
    async findById(id: number): Promise<ExperimentRecord | undefined> {
      const row = await db.selectFrom('experiments').selectAll().where('id', '=', id).where(isLive).executeTakeFirst();
      return row && toExperiment(row);
    },
    /** Changes the fields given (and `updated_at`) of a live experiment; undefined when there is none. */
    async update(
      id: number,
      patch: { name?: string; description?: string | null; metadata?: Record<string, unknown> },
      now: string,
    ): Promise<ExperimentRecord | undefined> {
      const { metadata, ...rest } = patch;
      const row = await db
        .updateTable('experiments')
        .set({ ...rest, ...(metadata === undefined ? {} : { metadata: JSON.stringify(metadata) }), updated_at: now })
        .where('id', '=', id)
        .where(isLive)
        .returningAll()
        .executeTakeFirst();
      return row && toExperiment(row);
    },
    /** A dataset's experiments newest first, keyset-paginated by id. */
    async listForDataset(datasetId: number, query: { limit: number; fromId?: number | undefined }): Promise<ExperimentRecord[]> {
      let select = db
        .selectFrom('experiments')
        .selectAll()
        .where('dataset_id', '=', datasetId)
        .where('deleted_at', 'is', null)
        .orderBy('id', 'desc')
        .limit(query.limit);
      if (query.fromId !== undefined) select = select.where('id', '<=', query.fromId);
      return (await select.execute()).map(toExperiment);
    },
    /** Deletes the experiment for readers at once; the dataset-deletions job removes its rows (purge* below). */
    async markDeleted(id: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('experiments')
        .set({ deleted_at: now })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    /** Deleted experiments whose rows are still to be removed, oldest first. */
    async deletedExperiments(limit: number): Promise<number[]> {
      const rows = await db.selectFrom('experiments').select('id').where('deleted_at', 'is not', null).orderBy('id').limit(limit).execute();
      return rows.map((row) => Number(row.id));
    },
    /** Deletes up to `limit` runs of an experiment with their evaluations (one IN list each, not a cascade row by row); returns how many runs. */
    async purgeRuns(experimentId: number, limit: number): Promise<number> {
      const ids = (
        await db.selectFrom('experiment_runs').select('id').where('experiment_id', '=', experimentId).orderBy('id').limit(limit).execute()
      ).map((row) => Number(row.id));
      if (ids.length === 0) return 0;
      await db.deleteFrom('experiment_run_annotations').where('run_id', 'in', ids).execute();
      const result = await db.deleteFrom('experiment_runs').where('id', 'in', ids).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    /** Deletes up to `limit` rows of an experiment's frozen example set; returns how many. */
    async purgeExampleSet(experimentId: number, limit: number): Promise<number> {
      const ids = (
        await db
          .selectFrom('experiment_examples')
          .select('example_id')
          .where('experiment_id', '=', experimentId)
          .orderBy('example_id')
          .limit(limit)
          .execute()
      ).map((row) => Number(row.example_id));
      if (ids.length === 0) return 0;
      const result = await db
        .deleteFrom('experiment_examples')
        .where('experiment_id', '=', experimentId)
        .where('example_id', 'in', ids)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    /** Deletes a deleted experiment once its runs and example set are gone. */
    async purgeExperiment(id: number): Promise<boolean> {
      const result = await db.deleteFrom('experiments').where('id', '=', id).where('deleted_at', 'is not', null).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /** Examples in each experiment and its successful and failed runs, by grouped queries. */
    async counts(experimentIds: number[]): Promise<Map<number, RunCounts>> {
      const counts = new Map<number, RunCounts>(experimentIds.map((id) => [id, { examples: 0, successful: 0, failed: 0 }]));
      if (experimentIds.length === 0) return counts;
      // The frozen example set is the examples of the experiment's version (docs/experiments.md,
      // "Rules"): their number is stored with the version, where counting the set scanned it.
      const examples = await db
        .selectFrom('experiments as x')
        .innerJoin('dataset_versions as v', 'v.id', 'x.dataset_version_id')
        .where('x.id', 'in', experimentIds)
        .select(['x.id', 'v.example_count'])
        .execute();
      for (const row of examples) counts.get(Number(row.id))!.examples = Number(row.example_count);
      const runs = await db
        .selectFrom('experiment_runs')
        .where('experiment_id', 'in', experimentIds)
        .select((eb) => [
          'experiment_id',
          eb.fn.count<number | string>(sql`CASE WHEN error IS NULL THEN 1 END`).as('ok'),
          eb.fn.count<number | string>(sql`CASE WHEN error IS NOT NULL THEN 1 END`).as('failed'),
        ])
        .groupBy('experiment_id')
        .execute();
      for (const row of runs) {
        const entry = counts.get(Number(row.experiment_id))!;
        entry.successful = Number(row.ok);
        entry.failed = Number(row.failed);
      }
      return counts;
    },
    async hasExample(experimentId: number, exampleId: number): Promise<boolean> {
      const row = await db
        .selectFrom('experiment_examples')
        .select('example_id')
        .where('experiment_id', '=', experimentId)
        .where('example_id', '=', exampleId)
        .executeTakeFirst();
      return row !== undefined;
    },
    async findRun(experimentId: number, exampleId: number, repetitionNumber: number): Promise<RunRecord | undefined> {
      const row = await db
        .selectFrom('experiment_runs')
        .selectAll()
        .where('experiment_id', '=', experimentId)
        .where('example_id', '=', exampleId)
        .where('repetition_number', '=', repetitionNumber)
        .executeTakeFirst();
      return row && toRun(row);
    },
    /** The run, unless its experiment or the experiment's dataset was deleted. */
    async findRunById(id: number): Promise<RunRecord | undefined> {
      const row = await db
        .selectFrom('experiment_runs')
        .selectAll('experiment_runs')
        .innerJoin('experiments', 'experiments.id', 'experiment_runs.experiment_id')
        .where('experiment_runs.id', '=', id)
        .where(isLive)
        .executeTakeFirst();
      return row && toRun(row);
    },
    /** Inserts a run, or replaces a failed one for the same example and repetition. */
    async upsertRun(run: NewRun, now: string): Promise<number> {
      const values = {
        output: JSON.stringify(run.output ?? null),
        start_time: run.startTime,
        end_time: run.endTime,
        trace_id: run.traceId,
        error: run.error,
        created_at: now,
      };
      const row = await db
        .insertInto('experiment_runs')
        .values({ experiment_id: run.experimentId, example_id: run.exampleId, repetition_number: run.repetitionNumber, ...values })
        .onConflict((oc) => oc.columns(['experiment_id', 'example_id', 'repetition_number']).doUpdateSet(values))
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },
    /** Runs of the experiment in id order, keyset-paginated. */
    async listRuns(experimentId: number, query: { limit: number; fromId?: number | undefined }): Promise<RunRecord[]> {
      let select = db.selectFrom('experiment_runs').selectAll().where('experiment_id', '=', experimentId).orderBy('id').limit(query.limit);
      if (query.fromId !== undefined) select = select.where('id', '>=', query.fromId);
      return (await select.execute()).map(toRun);
    },
    /** Creates or replaces the evaluation with this name of a run. */
    async upsertEvaluation(evaluation: NewEvaluation, now: string): Promise<number> {
      const values = {
        annotator_kind: evaluation.annotatorKind,
        label: evaluation.label,
        score: evaluation.score,
        explanation: evaluation.explanation,
        metadata: JSON.stringify(evaluation.metadata),
        trace_id: evaluation.traceId,
        error: evaluation.error,
        start_time: evaluation.startTime,
        end_time: evaluation.endTime,
        updated_at: now,
      };
      const row = await db
        .insertInto('experiment_run_annotations')
        .values({ run_id: evaluation.runId, name: evaluation.name, created_at: now, ...values })
        .onConflict((oc) => oc.columns(['run_id', 'name']).doUpdateSet(values))
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },
    /** Evaluations of the given runs (as many as a page holds: in chunks of IN lists). */
    async evaluationsOf(runIds: number[]): Promise<EvaluationRecord[]> {
      const evaluations: EvaluationRecord[] = [];
      for (const chunk of chunks(runIds, MAX_IN_LIST)) {
        const rows = await db.selectFrom('experiment_run_annotations').selectAll().where('run_id', 'in', chunk).orderBy('id').execute();
        evaluations.push(...rows.map(toEvaluation));
      }
      return evaluations;
    },
    /** The experiment's examples (ids ascending, from `fromExampleId`) with the successful repetitions each has. */
    async examplesWithSuccessfulRuns(
      experimentId: number,
      query: { limit: number; fromExampleId?: number | undefined },
    ): Promise<{ exampleId: number; successful: number[] }[]> {
      let examples = db
        .selectFrom('experiment_examples')
        .select('example_id')
        .where('experiment_id', '=', experimentId)
        .orderBy('example_id')
        .limit(query.limit);
      if (query.fromExampleId !== undefined) examples = examples.where('example_id', '>=', query.fromExampleId);
      const ids = (await examples.execute()).map((row) => Number(row.example_id));
      if (ids.length === 0) return [];
      const runs = await db
        .selectFrom('experiment_runs')
        .select(['example_id', 'repetition_number'])
        .where('experiment_id', '=', experimentId)
        .where('example_id', 'in', ids)
        .where('error', 'is', null)
        .execute();
      const byExample = new Map<number, number[]>(ids.map((id) => [id, []]));
      for (const run of runs) byExample.get(Number(run.example_id))?.push(Number(run.repetition_number));
      return ids.map((exampleId) => ({ exampleId, successful: byExample.get(exampleId)! }));
    },
    /** Successful runs (ids ascending, from `fromRunId`) that lack a successful evaluation of one of the names. */
    async runsMissingEvaluations(
      experimentId: number,
      names: string[],
      query: { limit: number; fromRunId?: number | undefined },
    ): Promise<{ run: RunRecord; missing: string[] }[]> {
      const found: { run: RunRecord; missing: string[] }[] = [];
      let fromRunId = query.fromRunId;
      // Pages of runs until enough incomplete ones are found (most runs may be complete).
      for (;;) {
        let select = db
          .selectFrom('experiment_runs')
          .selectAll()
          .where('experiment_id', '=', experimentId)
          .where('error', 'is', null)
          .orderBy('id')
          .limit(500);
        if (fromRunId !== undefined) select = select.where('id', '>=', fromRunId);
        const runs = (await select.execute()).map(toRun);
        if (runs.length === 0) return found;
        // Most runs may be complete: between pages the event loop takes other requests (a SQLite query resolves at once).
        await setImmediate();
        const done = await db
          .selectFrom('experiment_run_annotations')
          .select(['run_id', 'name'])
          .where(
            'run_id',
            'in',
            runs.map((run) => run.id),
          )
          .where('name', 'in', names)
          .where('error', 'is', null)
          .execute();
        const have = new Set(done.map((row) => `${row.run_id}\u0000${row.name}`));
        for (const run of runs) {
          const missing = names.filter((name) => !have.has(`${run.id}\u0000${name}`));
          if (missing.length > 0) found.push({ run, missing });
          if (found.length === query.limit) return found;
        }
        fromRunId = runs[runs.length - 1]!.id + 1;
      }
    },
    /** Per-evaluator means and counts and the mean run latency of each experiment, in two grouped queries. */
    async summaries(experimentIds: number[]): Promise<Map<number, ExperimentSummary>> {
      const result = new Map<number, ExperimentSummary>(experimentIds.map((id) => [id, { evaluations: [], averageRunLatencyMs: null }]));
      if (experimentIds.length === 0) return result;
      const evaluations = await db
        .selectFrom('experiment_run_annotations as a')
        .innerJoin('experiment_runs as r', 'r.id', 'a.run_id')
        .where('r.experiment_id', 'in', experimentIds)
        .select((eb) => [
          'r.experiment_id',
          'a.name',
          eb.fn.avg<number | string | null>('a.score').as('mean_score'),
          eb.fn.countAll<number | string>().as('n'),
          eb.fn.count<number | string>('a.error').as('errors'),
        ])
        .groupBy(['r.experiment_id', 'a.name'])
        .orderBy('a.name')
        .execute();
      for (const row of evaluations) {
        result.get(Number(row.experiment_id))!.evaluations.push({
          name: row.name,
          meanScore: row.mean_score === null ? null : Number(row.mean_score),
          count: Number(row.n),
          errorCount: Number(row.errors),
        });
      }
      const latencies = await db
        .selectFrom('experiment_runs')
        .where('experiment_id', 'in', experimentIds)
        .where('error', 'is', null)
        .select((eb) => [
          'experiment_id',
          eb.fn.avg<number | string | null>(millisBetween(dialect, 'start_time', 'end_time')).as('latency'),
        ])
        .groupBy('experiment_id')
        .execute();
      for (const row of latencies) {
        result.get(Number(row.experiment_id))!.averageRunLatencyMs = row.latency === null ? null : Number(row.latency);
      }
      return result;
    },
    /** The experiment's example ids in ascending order from `fromExampleId` (keyset). */
    async exampleIds(experimentId: number, query: { limit: number; fromExampleId?: number | undefined }): Promise<number[]> {
      let select = db
        .selectFrom('experiment_examples')
        .select('example_id')
        .where('experiment_id', '=', experimentId)
        .orderBy('example_id')
        .limit(query.limit);
      if (query.fromExampleId !== undefined) select = select.where('example_id', '>=', query.fromExampleId);
      return (await select.execute()).map((row) => Number(row.example_id));
    },
    /**
     * The base experiment's example ids, in order from `fromExampleId`, that a comparison filter
     * keeps (docs/experiments.md, "Comparison"): `regressed` (another experiment's mean score of
     * `name` below the base's), `improved` (above it) or `failed` (a run or an evaluation of any
     * compared experiment with an error).
     */
    async comparedExampleIds(
      baseId: number,
      otherIds: number[],
      filter: ComparisonFilter,
      query: { limit: number; fromExampleId?: number | undefined },
    ): Promise<number[]> {
      if (filter.kind !== 'failed' && otherIds.length === 0) return [];
      let select = db
        .selectFrom('experiment_examples as e')
        .select('e.example_id')
        .where('e.experiment_id', '=', baseId)
        .where(comparisonFilterSql(baseId, otherIds, filter))
        .orderBy('e.example_id')
        .limit(query.limit);
      if (query.fromExampleId !== undefined) select = select.where('e.example_id', '>=', query.fromExampleId);
      return (await select.execute()).map((row) => Number(row.example_id));
    },
    /**
     * The base experiment's example ids by the score delta of evaluator `name`: the smallest
     * (largest drop) of another experiment's mean score on the example minus the base's first,
     * examples without a delta last, then by example id; `limit` from position `offset`, with
     * a comparison filter if one is given. Computed for every example of the base on each page
     * (a comparison holds a dataset's examples, not millions of rows).
     */
    async exampleIdsByDelta(
      baseId: number,
      otherIds: number[],
      name: string,
      filter: ComparisonFilter | undefined,
      query: { limit: number; offset: number },
    ): Promise<number[]> {
      const delta = sql<
        number | null
      >`(select min(${meanScoreSql(name, sql`o.id`)} - ${meanScoreSql(name, sql`${baseId}`)}) from (${otherExperimentsSql(otherIds)}) o)`;
      let inner = db
        .selectFrom('experiment_examples as e')
        .select(['e.example_id', delta.as('delta')])
        .where('e.experiment_id', '=', baseId);
      if (filter) inner = inner.where(comparisonFilterSql(baseId, otherIds, filter));
      const rows = await db
        .selectFrom(inner.as('d'))
        .select('d.example_id')
        .orderBy(sql`(d.delta is null)`)
        .orderBy('d.delta')
        .orderBy('d.example_id')
        .limit(query.limit)
        .offset(query.offset)
        .execute();
      return rows.map((row) => Number(row.example_id));
    },
    /** Every run of the experiments on the given examples. */
    async runsOn(experimentIds: number[], exampleIds: number[]): Promise<RunRecord[]> {
      if (experimentIds.length === 0 || exampleIds.length === 0) return [];
      const rows = await db
        .selectFrom('experiment_runs')
        .selectAll()
        .where('experiment_id', 'in', experimentIds)
        .where('example_id', 'in', exampleIds)
        .orderBy('example_id')
        .orderBy('repetition_number')
        .execute();
      return rows.map(toRun);
    },
  };
}
