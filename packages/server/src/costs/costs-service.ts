/**
 * Model prices (docs/costs.md): the shipped list and the admins' overrides. Knows nothing of
 * HTTP. A change to the overrides restarts the cost job's scan, so spans that had no price are
 * priced (spans already priced keep their cost, as in Phoenix).
 */
import { ConflictError, InvalidInputError, NotFoundError } from '@sightline/common';
import type { CostsRepository, ModelFields, ModelRecord } from '../db/repositories/costs-repository.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Identifier } from '../shared/identifier.js';
import { DEFAULT_MODELS } from './default-models.js';
import { compileModelPattern } from './model-pattern.js';

export interface ModelInput {
  name: string;
  provider?: string | null | undefined;
  namePattern: string;
  inputPerMillion: number;
  outputPerMillion: number;
  cacheReadPerMillion?: number | null | undefined;
  cacheWritePerMillion?: number | null | undefined;
}

/** The job state key of the cost job's scan position. */
export const COST_WATERMARK = 'costs.watermark';
const MAX_PRICE = 1_000_000;

function checkedFields(input: ModelInput): ModelFields {
  const name = input.name.trim();
  if (name === '' || name.length > 200) throw new InvalidInputError('name must be 1 to 200 characters');
  const namePattern = input.namePattern.trim();
  if (namePattern === '') throw new InvalidInputError('name_pattern must not be blank');
  compileModelPattern(namePattern); // 422 when RE2 cannot take it

  const price = (value: number | null | undefined, field: string): number | null => {
    if (value === null || value === undefined) return null;
    if (!Number.isFinite(value) || value < 0 || value > MAX_PRICE) {
      throw new InvalidInputError(`${field} must be a price per million tokens from 0 to ${MAX_PRICE}`);
    }
    return value;
  };
  return {
    name,
    provider: input.provider?.trim().toLowerCase() || null,
    namePattern,
    inputPerMillion: price(input.inputPerMillion, 'input_per_million')!,
    outputPerMillion: price(input.outputPerMillion, 'output_per_million')!,
    cacheReadPerMillion: price(input.cacheReadPerMillion, 'cache_read_per_million'),
    cacheWritePerMillion: price(input.cacheWritePerMillion, 'cache_write_per_million'),
  };
}

export type CostsService = ReturnType<typeof createCostsService>;

/** The model prices service. */
export function createCostsService({ costs, now = () => new Date().toISOString() }: { costs: CostsRepository; now?: () => string }) {
  const requireOverride = async (identifier: Identifier): Promise<ModelRecord> => {
    const model = identifier.rowId === null ? undefined : await costs.findModel(identifier.rowId);
    if (!model) throw new NotFoundError(`model ${JSON.stringify(identifier.text)} not found`);
    if (model.isBuiltIn) throw new InvalidInputError(`${model.name} is a shipped price: add an override with its name instead`);
    return model;
  };
  const rescan = () => costs.writeJobState(COST_WATERMARK, '0');

  return {
    /** Writes the shipped prices of this release (at start-up). */
    syncBuiltIns: () => costs.syncBuiltIns(DEFAULT_MODELS, now()),

    list: () => costs.listModels(),

    /** Adds an override; 409 when an override has the name. */
    async create(input: ModelInput): Promise<ModelRecord> {
      try {
        const model = await costs.insertModel(checkedFields(input), now());
        await rescan();
        return model;
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError(`an override named ${JSON.stringify(input.name.trim())} exists`);
        throw error;
      }
    },

    async update(identifier: Identifier, input: ModelInput): Promise<ModelRecord> {
      await requireOverride(identifier);
      try {
        const model = await costs.updateModel(identifier.rowId!, checkedFields(input), now());
        if (!model) throw new NotFoundError(`model ${JSON.stringify(identifier.text)} not found`);
        await rescan();
        return model;
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError(`an override named ${JSON.stringify(input.name.trim())} exists`);
        throw error;
      }
    },

    async delete(identifier: Identifier): Promise<void> {
      await requireOverride(identifier);
      await costs.deleteModel(identifier.rowId!);
    },
  };
}
