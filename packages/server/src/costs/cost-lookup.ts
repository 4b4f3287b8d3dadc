/**
 * Which price applies to a span, and what the span cost (docs/costs.md). Pure functions, so
 * the rules are tested without a database: admins' overrides before shipped prices; a price
 * for another provider than the span's never applies; within each tier, models of the span's
 * provider before provider-agnostic ones; then the most specific
 * pattern (the most literal characters), then the newest override or the first shipped price.
 */
import { compileModelPattern } from './model-pattern.js';

export interface PricedModel {
  id: number;
  name: string;
  provider: string | null;
  namePattern: string;
  isBuiltIn: boolean;
  inputPerMillion: number;
  outputPerMillion: number;
  cacheReadPerMillion: number | null;
  cacheWritePerMillion: number | null;
}

/** What a span says about its model and tokens (OpenInference attributes). */
export interface SpanUsage {
  modelName: string | null;
  provider: string | null;
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface SpanCost {
  promptCost: number;
  completionCost: number;
  totalCost: number;
}

/** Literal characters of a pattern: a rough but stable measure of how specific it is. */
function specificity(pattern: string): number {
  return pattern.replace(/\\./g, 'x').replace(/[\\^$.*+?()[\]{}|]/g, '').length;
}

/** A matcher over a set of models, with the patterns compiled once (in linear time: model-pattern.ts). */
export function createCostLookup(models: PricedModel[]) {
  const compiled = models.flatMap((model) => {
    try {
      return [{ model, pattern: compileModelPattern(model.namePattern), score: specificity(model.namePattern) }];
    } catch {
      // Checked when saved; a pattern stored before patterns were RE2 (with lookaround, say) matches nothing.
      return [];
    }
  });
  const cache = new Map<string, PricedModel | null>();
  return {
    /** The model whose price applies to this model name and provider, or null. */
    find(modelName: string | null, provider: string | null): PricedModel | null {
      const name = modelName?.trim() ?? '';
      if (name === '') return null;
      const wanted = provider?.trim().toLowerCase() || null;
      const key = `${wanted ?? ''}\u0000${name}`;
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      const candidates = compiled.filter((entry) => entry.pattern.test(name));
      let found: PricedModel | null = null;
      for (const builtIn of [false, true]) {
        // A price for another provider never applies (azure's gpt-4o is not openai's).
        let tier = candidates.filter(
          (entry) =>
            entry.model.isBuiltIn === builtIn &&
            (wanted === null || !entry.model.provider || entry.model.provider.toLowerCase() === wanted),
        );
        if (tier.length === 0) continue;
        const sameProvider = tier.filter((entry) => wanted !== null && entry.model.provider?.toLowerCase() === wanted);
        if (sameProvider.length > 0) tier = sameProvider;
        tier.sort((a, b) => b.score - a.score || (builtIn ? a.model.id - b.model.id : b.model.id - a.model.id));
        found = tier[0]!.model;
        break;
      }
      if (cache.size > 10_000) cache.clear();
      cache.set(key, found);
      return found;
    },
  };
}

/**
 * The span's cost under a model's prices. Prompt tokens include cached ones (as OpenAI and the
 * OpenInference instrumentations count them): those are priced at the cache rates instead.
 */
export function costOf(usage: SpanUsage, model: PricedModel): SpanCost {
  const cached = Math.min(usage.promptTokens, usage.cacheReadTokens + usage.cacheWriteTokens);
  const uncached = usage.promptTokens - cached;
  const cacheRead = Math.min(usage.cacheReadTokens, cached);
  const cacheWrite = cached - cacheRead;
  const promptCost =
    (uncached * model.inputPerMillion +
      cacheRead * (model.cacheReadPerMillion ?? model.inputPerMillion) +
      cacheWrite * (model.cacheWritePerMillion ?? model.inputPerMillion)) /
    1e6;
  const completionCost = (usage.completionTokens * model.outputPerMillion) / 1e6;
  return { promptCost, completionCost, totalCost: promptCost + completionCost };
}
