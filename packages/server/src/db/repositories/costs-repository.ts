/**
 * SQL for costs (docs/costs.md): model prices (shipped and overrides), the cost job's watermark
 * and its reads of new LLM spans, and cost totals as sums over `span_costs`.
 */
import { type Kysely, type Selectable, sql } from 'kysely';
import type { DB, GenerativeModelsTable } from '../schema.js';
import { bigintText, nanosLiteral, parseJsonColumn } from '../sql-dialect.js';
import { chunks, MAX_IN_LIST } from '../chunks.js';
import { maxSpanRowid } from '../span-ids.js';
import { createJobStateRepository } from './job-state-repository.js';
import { inTransaction } from '../in-transaction.js';
import { COST_ROLLUP_CONFLICT, costRollupRow, costRollups } from '../writer/cost-rollups.js';
import type { RollupDimension } from '../writer/span-writes.js';
import {
  LLM_MODEL_NAME,
  LLM_PROVIDER,
  LLM_TOKEN_COUNT_CACHE_READ,
  LLM_TOKEN_COUNT_CACHE_WRITE,
} from '../../span-model/conventions/attribute-names.js';

export interface ModelRecord {
  id: number;
  name: string;
  provider: string | null;
  namePattern: string;
  isBuiltIn: boolean;
  inputPerMillion: number;
  outputPerMillion: number;
  cacheReadPerMillion: number | null;
  cacheWritePerMillion: number | null;
  createdAt: string;
  updatedAt: string;
}

export type ModelFields = Omit<ModelRecord, 'id' | 'isBuiltIn' | 'createdAt' | 'updatedAt'>;

/** An LLM span as the cost job reads it. */
export interface SpanForCost {
  id: number;
  traceRowid: number;
  projectId: number;
  /** Nanoseconds, exact decimal text. */
  startTime: string;
  /** The attributes the price lookup reads (model, provider, cache token counts), where the span has them. */
  attributes: Record<string, unknown>;
  promptTokens: number;
  completionTokens: number;
  spanKind: string;
  name: string;
  statusCode: string;
}

export interface NewSpanCost {
  spanRowid: number;
  traceRowid: number;
  projectId: number;
  modelId: number | null;
  startTime: string;
  promptCost: number;
  completionCost: number;
  totalCost: number;
  /** The span's value of each dimension of the dashboards' rollups, where its cost is added (db/writer/cost-rollups.ts). */
  rollupValues: Record<RollupDimension, string>;
}

export interface CostTotals {
  promptCost: number;
  completionCost: number;
  totalCost: number;
}

function toModel(row: Selectable<GenerativeModelsTable>): ModelRecord {
  return {
    id: Number(row.id),
    name: row.name,
    provider: row.provider,
    namePattern: row.name_pattern,
    isBuiltIn: Number(row.is_built_in) === 1,
    inputPerMillion: Number(row.input_per_million),
    outputPerMillion: Number(row.output_per_million),
    cacheReadPerMillion: row.cache_read_per_million === null ? null : Number(row.cache_read_per_million),
    cacheWritePerMillion: row.cache_write_per_million === null ? null : Number(row.cache_write_per_million),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const columnsOf = (fields: ModelFields) => ({
  name: fields.name,
  provider: fields.provider,
  name_pattern: fields.namePattern,
  input_per_million: fields.inputPerMillion,
  output_per_million: fields.outputPerMillion,
  cache_read_per_million: fields.cacheReadPerMillion,
  cache_write_per_million: fields.cacheWritePerMillion,
});

type Num = number | string | null;
const totals = (row: { prompt: Num; completion: Num; total: Num } | undefined): CostTotals => ({
  promptCost: Number(row?.prompt ?? 0),
  completionCost: Number(row?.completion ?? 0),
  totalCost: Number(row?.total ?? 0),
});

export type CostsRepository = ReturnType<typeof createCostsRepository>;

/** The attributes the cost job's price lookup reads (costs/cost-job.ts). */
const COST_ATTRIBUTES = [LLM_MODEL_NAME, LLM_PROVIDER, LLM_TOKEN_COUNT_CACHE_READ, LLM_TOKEN_COUNT_CACHE_WRITE] as const;

/** The cost attributes of a span's attributes, picked at once so the rest dies young. */
function costAttributes(attributes: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of COST_ATTRIBUTES) if (Object.hasOwn(attributes, key)) picked[key] = attributes[key];
  return picked;
}

/** Costs repository over a Kysely connection (or transaction). */
export function createCostsRepository(db: Kysely<DB>) {
  // The cost job's watermark is one of the job_state values.
  const jobState = createJobStateRepository(db);
  const sums = [
    sql<Num>`sum(${sql.ref('prompt_cost')})`.as('prompt'),
    sql<Num>`sum(${sql.ref('completion_cost')})`.as('completion'),
    sql<Num>`sum(${sql.ref('total_cost')})`.as('total'),
  ] as const;
  return {
    /** Every model: overrides first, then shipped prices, each by name. */
    async listModels(): Promise<ModelRecord[]> {
      return (await db.selectFrom('generative_models').selectAll().orderBy('is_built_in').orderBy('name').orderBy('id').execute()).map(
        toModel,
      );
    },
    async findModel(id: number): Promise<ModelRecord | undefined> {
      const row = await db.selectFrom('generative_models').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toModel(row);
    },
    /** Adds an override; throws the driver's unique violation when an override has the name. */
    async insertModel(fields: ModelFields, now: string): Promise<ModelRecord> {
      const row = await db
        .insertInto('generative_models')
        .values({ ...columnsOf(fields), is_built_in: 0, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toModel(row);
    },
    async updateModel(id: number, fields: ModelFields, now: string): Promise<ModelRecord | undefined> {
      const row = await db
        .updateTable('generative_models')
        .set({ ...columnsOf(fields), updated_at: now })
        .where('id', '=', id)
        .where('is_built_in', '=', 0)
        .returningAll()
        .executeTakeFirst();
      return row && toModel(row);
    },
    async deleteModel(id: number): Promise<boolean> {
      const result = await db.deleteFrom('generative_models').where('id', '=', id).where('is_built_in', '=', 0).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /** Makes the shipped prices exactly `models` (upserts by name, deletes the ones no longer shipped). */
    async syncBuiltIns(models: readonly ModelFields[], now: string): Promise<void> {
      for (const model of models) {
        await db
          .insertInto('generative_models')
          .values({ ...columnsOf(model), is_built_in: 1, created_at: now, updated_at: now })
          .onConflict((oc) => oc.columns(['is_built_in', 'name']).doUpdateSet({ ...columnsOf(model), updated_at: now }))
          .execute();
      }
      const names = models.map((model) => model.name);
      let stale = db.deleteFrom('generative_models').where('is_built_in', '=', 1);
      if (names.length > 0) stale = stale.where('name', 'not in', names);
      await stale.execute();
    },

    readJobState: jobState.read,
    writeJobState: jobState.write,
    /** The newest span's row id (0 without spans). */
    maxSpanId: () => maxSpanRowid(db),
    /** Spans with token counts whose row ids lie in (afterId, upToId]. */
    async spansWithTokens(afterId: number, upToId: number): Promise<SpanForCost[]> {
      const rows = await db
        .selectFrom('spans')
        .select([
          'id',
          'trace_rowid',
          'project_id',
          bigintText('spans.start_time').as('start_time'),
          'attributes',
          'llm_token_count_prompt',
          'llm_token_count_completion',
          'span_kind',
          'name',
          'status_code',
        ])
        .where('id', '>', afterId)
        .where('id', '<=', upToId)
        .where((eb) => eb.or([eb('llm_token_count_prompt', 'is not', null), eb('llm_token_count_completion', 'is not', null)]))
        .orderBy('id')
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        traceRowid: Number(row.trace_rowid),
        projectId: Number(row.project_id),
        startTime: row.start_time,
        // A slice's parsed attributes would otherwise live, whole, until its costs are stored.
        attributes: costAttributes(parseJsonColumn<Record<string, unknown>>(row.attributes, {})),
        promptTokens: Number(row.llm_token_count_prompt ?? 0),
        completionTokens: Number(row.llm_token_count_completion ?? 0),
        spanKind: row.span_kind,
        name: row.name,
        statusCode: row.status_code,
      }));
    },
    /**
     * Stores computed costs, adds the ones inserted to the dashboards' rollups when `rollups`
     * (db/writer/cost-rollups.ts) and moves the job's watermark, in one transaction. A span
     * already costed (another replica's job, or a rescan) is left as it is and not added again.
     * Answers how many costs were inserted.
     */
    async storeSpanCosts(
      costs: NewSpanCost[],
      watermark: { name: string; value: string },
      { rollups }: { rollups: boolean },
    ): Promise<number> {
      return inTransaction(db, async (trx) => {
        const inserted: NewSpanCost[] = [];
        for (let start = 0; start < costs.length; start += 500) {
          const slice = costs.slice(start, start + 500);
          const rows = await trx
            .insertInto('span_costs')
            .values(
              slice.map((cost) => ({
                span_rowid: cost.spanRowid,
                trace_rowid: cost.traceRowid,
                project_id: cost.projectId,
                model_id: cost.modelId,
                start_time: cost.startTime,
                prompt_cost: cost.promptCost,
                completion_cost: cost.completionCost,
                total_cost: cost.totalCost,
              })),
            )
            .onConflict((oc) => oc.column('span_rowid').doNothing())
            .returning('span_rowid')
            .execute();
          const stored = new Set(rows.map((row) => Number(row.span_rowid)));
          for (const cost of slice) if (stored.has(cost.spanRowid)) inserted.push(cost);
        }
        if (rollups) {
          const all = costRollups(inserted);
          for (let start = 0; start < all.length; start += 500) {
            const rows = all.slice(start, start + 500).map(costRollupRow);
            const columns = Object.keys(rows[0]!);
            await sql`INSERT INTO span_rollups (${sql.join(columns.map((column) => sql.ref(column)))})
              VALUES ${sql.join(rows.map((row) => sql`(${sql.join(Object.values(row))})`))}
              ${sql.raw(COST_ROLLUP_CONFLICT)}`.execute(trx);
          }
        }
        await createJobStateRepository(trx).write(watermark.name, watermark.value);
        return inserted.length;
      });
    },

    /** Cost totals of each given trace (traces without a costed span are absent). */
    async traceTotals(traceRowids: number[]): Promise<Map<number, CostTotals>> {
      if (traceRowids.length === 0) return new Map();
      const rows = await db
        .selectFrom('span_costs')
        .select(['trace_rowid', ...sums])
        .where('trace_rowid', 'in', traceRowids)
        .groupBy('trace_rowid')
        .execute();
      return new Map(rows.map((row) => [Number(row.trace_rowid), totals(row)]));
    },
    /** Cost totals of each given session over its traces (sessions without a costed span are absent). */
    async sessionTotals(sessionRowids: number[]): Promise<Map<number, CostTotals>> {
      if (sessionRowids.length === 0) return new Map();
      const rows = await db
        .selectFrom('span_costs')
        .innerJoin('traces', 'traces.id', 'span_costs.trace_rowid')
        .select(['traces.project_session_rowid', ...sums])
        .where('traces.project_session_rowid', 'in', sessionRowids)
        .groupBy('traces.project_session_rowid')
        .execute();
      return new Map(rows.map((row) => [Number(row.project_session_rowid), totals(row)]));
    },
    /** The cost of each given span (spans without a cost are absent); any number of spans, in chunks of bound parameters. */
    async spanCosts(spanRowids: number[]): Promise<Map<number, CostTotals>> {
      const costs = new Map<number, CostTotals>();
      for (const chunk of chunks(spanRowids, MAX_IN_LIST)) {
        const rows = await db
          .selectFrom('span_costs')
          .select(['span_rowid', 'prompt_cost as prompt', 'completion_cost as completion', 'total_cost as total'])
          .where('span_rowid', 'in', chunk)
          .execute();
        for (const row of rows) costs.set(Number(row.span_rowid), totals(row));
      }
      return costs;
    },
    /**
     * The cost of each priced span of a trace, or undefined when it has more than `limit` of them
     * (so that a trace of any size is read in bounded memory).
     */
    async spanCostsOfTrace(traceRowid: number, limit: number): Promise<Map<number, CostTotals> | undefined> {
      const rows = await db
        .selectFrom('span_costs')
        .select(['span_rowid', 'prompt_cost as prompt', 'completion_cost as completion', 'total_cost as total'])
        .where('trace_rowid', '=', traceRowid)
        .limit(limit + 1)
        .execute();
      if (rows.length > limit) return undefined;
      return new Map(rows.map((row) => [Number(row.span_rowid), totals(row)]));
    },
    /** Cost totals of a project's spans that started in [startTime, endTime). */
    async projectTotals(projectId: number, range: { startTime?: bigint | undefined; endTime?: bigint | undefined }): Promise<CostTotals> {
      let select = db.selectFrom('span_costs').select(sums).where('project_id', '=', projectId);
      if (range.startTime !== undefined) select = select.where(sql<boolean>`${sql.ref('start_time')} >= ${nanosLiteral(range.startTime)}`);
      if (range.endTime !== undefined) select = select.where(sql<boolean>`${sql.ref('start_time')} < ${nanosLiteral(range.endTime)}`);
      return totals(await select.executeTakeFirst());
    },
  };
}
