/**
 * What a judge call cost (docs/online-evaluation.md, "Cost limit"): its tokens at the price of
 * its model in the model prices (docs/costs.md); null when the model has no price.
 */
import type { CostsRepository } from '../db/repositories/costs-repository.js';
import { costOf, createCostLookup } from '../costs/cost-lookup.js';
import type { JudgeAudit } from './llm-judge.js';

export type JudgeCost = (model: string, audit: JudgeAudit) => Promise<number | null>;

/** Prices a judge call by `provider:model`; the price list is read again when it changes. */
export function createJudgeCost(costs: Pick<CostsRepository, 'listModels'>, refreshMs = 30_000): JudgeCost {
  let lookup: { readAt: number; find: ReturnType<typeof createCostLookup>['find'] } | null = null;
  return async (model, audit) => {
    if (!lookup || Date.now() - lookup.readAt > refreshMs)
      lookup = { readAt: Date.now(), find: createCostLookup(await costs.listModels()).find };
    const separator = model.indexOf(':');
    const provider = separator > 0 ? model.slice(0, separator) : null;
    const name = separator > 0 ? model.slice(separator + 1) : model;
    const priced = lookup.find(name, provider);
    if (!priced) return null;
    return costOf(
      {
        modelName: name,
        provider,
        promptTokens: audit.promptTokens ?? 0,
        completionTokens: audit.completionTokens ?? 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      },
      priced,
    ).totalCost;
  };
}
