/**
 * The cost job (docs/costs.md): follows the span writer and prices every new LLM span once,
 * into `span_costs`. It keeps ingest untouched (no lookup on the hot path): each tick reads the
 * spans with token counts in the next slice of row ids past its watermark, prices them with
 * the current model prices, stores the costs and moves the watermark, in small batches.
 */
import type { CostsRepository, ModelRecord, NewSpanCost, SpanForCost } from '../db/repositories/costs-repository.js';
import { COST_WATERMARK } from './costs-service.js';
import { costOf, createCostLookup } from './cost-lookup.js';
import type { Job } from '../jobs/job-runner.js';
import { modelNameOf } from '../span-model/span-rows.js';
import {
  LLM_MODEL_NAME,
  LLM_PROVIDER,
  LLM_TOKEN_COUNT_CACHE_READ,
  LLM_TOKEN_COUNT_CACHE_WRITE,
} from '../span-model/conventions/attribute-names.js';

/** Where the job writes on SQLite: the database writer thread (db/writer/database-writer.ts), never the main thread's connection. */
export interface CostWriter {
  store(costs: NewSpanCost[], watermark: { name: string; value: string }): Promise<void>;
}

export interface CostJobOptions {
  costs: CostsRepository;
  /** SQLite: the writer thread's cost writes; without it (PostgreSQL) the repository writes. */
  writer?: CostWriter | undefined;
  /** SERVICE_DASHBOARD_ROLLUPS, where the repository writes: costs are added to the rollups (db/writer/cost-rollups.ts). */
  rollups?: boolean;
  /** Pause between ticks when caught up (ms). */
  intervalMs?: number;
  /** Span row ids scanned per tick: bounds the work of one tick whatever the database holds. */
  sliceSpans?: number;
}

export interface CostJob extends Job {
  /** One tick: prices the next slice; resolves to the spans priced. */
  runOnce(): Promise<number>;
}

const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : Number(value) || 0);
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The usage the lookup needs, from a span's OpenInference attributes and token columns. */
function usageOf(span: SpanForCost) {
  const attributes = span.attributes;
  return {
    modelName: text(attributes[LLM_MODEL_NAME]),
    provider: text(attributes[LLM_PROVIDER]),
    promptTokens: span.promptTokens,
    completionTokens: span.completionTokens,
    cacheReadTokens: number(attributes[LLM_TOKEN_COUNT_CACHE_READ]),
    cacheWriteTokens: number(attributes[LLM_TOKEN_COUNT_CACHE_WRITE]),
  };
}

/** The cost job, for the job runner (jobs/job-runner.ts). */
export function createCostJob({ costs, writer, rollups = true, intervalMs = 1000, sliceSpans = 20_000 }: CostJobOptions): CostJob {
  let lookup: { signature: string; find: ReturnType<typeof createCostLookup>['find'] } | null = null;
  let running: Promise<number> | null = null;

  const currentLookup = async () => {
    const models: ModelRecord[] = await costs.listModels();
    const signature = models.map((model) => `${model.id}:${model.updatedAt}`).join(',');
    if (lookup?.signature !== signature) lookup = { signature, find: createCostLookup(models).find };
    return lookup.find;
  };

  const tick = async (): Promise<number> => {
    const watermark = Number((await costs.readJobState(COST_WATERMARK)) ?? 0);
    const newest = await costs.maxSpanId();
    if (newest <= watermark) return 0;
    const upTo = Math.min(newest, watermark + sliceSpans);
    const spans = await costs.spansWithTokens(watermark, upTo);
    const find = await currentLookup();
    const priced: NewSpanCost[] = [];
    for (const span of spans) {
      const usage = usageOf(span);
      const model = find(usage.modelName, usage.provider);
      if (!model) continue;
      priced.push({
        spanRowid: span.id,
        traceRowid: span.traceRowid,
        projectId: span.projectId,
        modelId: model.id,
        startTime: span.startTime,
        // As the span writers key the span's rollups (span-rows.ts).
        rollupValues: {
          span_kind: span.spanKind,
          name: span.name,
          model: modelNameOf(span.attributes[LLM_MODEL_NAME]) ?? '',
          status: span.statusCode,
        },
        ...costOf(usage, model),
      });
    }
    if (writer) {
      await writer.store(priced, { name: COST_WATERMARK, value: String(upTo) });
    } else {
      await costs.storeSpanCosts(priced, { name: COST_WATERMARK, value: String(upTo) }, { rollups });
    }
    return priced.length;
  };

  const runOnce = (): Promise<number> => {
    running ??= tick().finally(() => {
      running = null;
    });
    return running;
  };

  return {
    name: 'costs',
    description: 'Prices each new LLM span once, from the model prices (docs/costs.md).',
    intervalMs,
    runOnce,
    async run() {
      const before = Number((await costs.readJobState(COST_WATERMARK)) ?? 0);
      await runOnce();
      // Still behind the writer: go on at once (after yielding), else wait.
      return (await costs.maxSpanId()) > before + sliceSpans ? 'more' : 'idle';
    },
  };
}
