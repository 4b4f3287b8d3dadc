/**
 * Dataset splits (docs/datasets.md, "Splits"): named sets of examples, as Phoenix has them. A
 * split's name is unique server-wide (409), so one split may hold examples of several datasets;
 * the routes reach it through a dataset, whose examples alone it adds, removes and counts.
 * Deleting a split leaves its examples. Knows nothing of HTTP.
 */
import { ConflictError, InvalidInputError, NotFoundError } from '@sightline/common';
import { isForeignKeyViolation, isUniqueViolation } from '../db/errors.js';
import type { DatasetSplitPatch, DatasetSplitRecord, DatasetSplitsRepository } from '../db/repositories/dataset-splits-repository.js';
import type { DatasetRecord, DatasetsRepository } from '../db/repositories/datasets-repository.js';
import type { WithTransaction } from '../db/repositories/index.js';
import type { Identifier } from '../shared/identifier.js';
import { requireDataset as findDataset } from './require-dataset.js';

/** The colour of a split created without one (Phoenix's form default). */
export const DEFAULT_SPLIT_COLOR = '#33c5e8';
export const MAX_SPLIT_NAME_LENGTH = 256;
/** Most example ids one request may add or remove. */
export const MAX_SPLIT_EXAMPLES_PER_REQUEST = 10_000;

export interface DatasetSplitWithCount extends DatasetSplitRecord {
  /** Examples of the dataset the request went through that the split holds. */
  exampleCount: number;
}

export interface NewDatasetSplit {
  name: string;
  description?: string | null | undefined;
  color?: string | null | undefined;
  metadata?: Record<string, unknown> | undefined;
  examples?: Identifier[] | undefined;
  userId: number | null;
}

/** A change to a split: a field left undefined stays; null clears the description and is refused for name and colour. */
export interface DatasetSplitChange {
  name?: string | null | undefined;
  description?: string | null | undefined;
  color?: string | null | undefined;
  /** Replaces the metadata; null leaves it as it is (as Phoenix does). */
  metadata?: Record<string, unknown> | null | undefined;
  addExamples?: Identifier[] | undefined;
  removeExamples?: Identifier[] | undefined;
}

export type DatasetSplitsService = ReturnType<typeof createDatasetSplitsService>;

/** Most splits one read may filter by. */
export const MAX_SPLIT_FILTERS = 100;

/**
 * The splits a read filters by (`split=`: DatasetSplit ids or names, as Phoenix takes them): their
 * ids and names, in the order given, each once; 404 naming the ones that do not exist.
 */
export async function resolveSplitFilter(
  splits: DatasetSplitsRepository,
  identifiers: Identifier[],
): Promise<{ ids: number[]; names: string[] }> {
  if (identifiers.length > MAX_SPLIT_FILTERS) throw new InvalidInputError(`split may be given at most ${MAX_SPLIT_FILTERS} times`);
  const wanted = identifiers.map((identifier) => ({ ...identifier, text: identifier.text.trim() }));
  if (wanted.some((identifier) => identifier.text === '')) throw new InvalidInputError('split must not be blank');
  const found = await splits.findByIdsOrNames(
    wanted.flatMap((identifier) => (identifier.rowId === null ? [] : [identifier.rowId])),
    wanted.filter((identifier) => identifier.rowId === null).map((identifier) => identifier.text),
  );
  const resolved = wanted.map((identifier) =>
    found.find((split) => (identifier.rowId === null ? split.name === identifier.text : split.id === identifier.rowId)),
  );
  const missing = wanted.filter((_, index) => resolved[index] === undefined);
  if (missing.length > 0) {
    throw new NotFoundError(`dataset splits not found: ${missing.map((identifier) => JSON.stringify(identifier.text)).join(', ')}`);
  }
  const unique = [...new Map(resolved.map((split) => [split!.id, split!])).values()];
  return { ids: unique.map((split) => split.id), names: unique.map((split) => split.name) };
}

const checkName = (name: string | null): string => {
  const trimmed = name?.trim() ?? '';
  if (trimmed === '') throw new InvalidInputError('the split name cannot be empty');
  if (trimmed.length > MAX_SPLIT_NAME_LENGTH)
    throw new InvalidInputError(`the split name must be at most ${MAX_SPLIT_NAME_LENGTH} characters`);
  return trimmed;
};

const checkColor = (color: string | null): string => {
  if (color === null || color.trim() === '') throw new InvalidInputError('the split color cannot be empty');
  return color;
};

/** A split or an example deleted while a request was adding examples to it (a foreign-key violation). */
const deletedMeanwhile = () => new NotFoundError('the split or one of its examples was deleted meanwhile; retry');

const taken = (name: string) => new ConflictError(`a dataset split named ${JSON.stringify(name)} already exists`);

/** The dataset splits service. */
export function createDatasetSplitsService({
  splits,
  datasets,
  withTransaction,
  now = () => new Date().toISOString(),
}: {
  splits: DatasetSplitsRepository;
  datasets: DatasetsRepository;
  withTransaction: WithTransaction;
  now?: () => string;
}) {
  const requireDataset = (identifier: Identifier): Promise<DatasetRecord> => findDataset(datasets, identifier);

  const splitRowId = (identifier: Identifier): number => {
    if (identifier.rowId === null) throw new InvalidInputError(`${JSON.stringify(identifier.text)} is not a dataset split id`);
    return identifier.rowId;
  };

  const notFound = (identifier: Identifier) => new NotFoundError(`dataset split ${JSON.stringify(identifier.text)} not found`);

  /** The example ids, each once in the order first given: 422 for one that is not an example id (checked before any lookup). */
  const exampleRowIds = (examples: Identifier[] | undefined, field: string): number[] => {
    if (!examples) return [];
    if (examples.length > MAX_SPLIT_EXAMPLES_PER_REQUEST) {
      throw new InvalidInputError(`${field} may hold at most ${MAX_SPLIT_EXAMPLES_PER_REQUEST} ids`);
    }
    const ids = new Set<number>();
    for (const example of examples) {
      if (example.rowId === null) throw new InvalidInputError(`${field}: ${JSON.stringify(example.text)} is not a dataset example id`);
      ids.add(example.rowId);
    }
    return [...ids];
  };

  /** 404 naming the ids that are not examples of the dataset. */
  const requireExamplesOf = async (repository: DatasetSplitsRepository, dataset: DatasetRecord, ids: number[], examples: Identifier[]) => {
    if (ids.length === 0) return;
    const found = await repository.examplesOfDataset(dataset.id, ids);
    const missing = examples.filter((example) => !found.has(example.rowId!));
    if (missing.length > 0) {
      const shown = missing.slice(0, 10).map((example) => JSON.stringify(example.text));
      throw new NotFoundError(
        `dataset examples not found in dataset ${JSON.stringify(dataset.name)}: ${shown.join(', ')}${missing.length > 10 ? ` and ${missing.length - 10} more` : ''}`,
      );
    }
  };

  return {
    /** Creates a split, seeded with examples of the dataset if given; 409 when the name is taken. */
    async create(datasetIdentifier: Identifier, input: NewDatasetSplit): Promise<DatasetSplitWithCount> {
      const name = checkName(input.name);
      const color = checkColor(input.color ?? DEFAULT_SPLIT_COLOR);
      const exampleIds = exampleRowIds(input.examples, 'example_ids');
      const dataset = await requireDataset(datasetIdentifier);
      try {
        return await withTransaction(async (trx) => {
          await requireExamplesOf(trx.datasetSplits, dataset, exampleIds, input.examples ?? []);
          const split = await trx.datasetSplits.insert(
            { name, description: input.description || null, color, metadata: input.metadata ?? {}, userId: input.userId },
            now(),
          );
          await trx.datasetSplits.addExamples(split.id, exampleIds);
          return { ...split, exampleCount: exampleIds.length };
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw taken(name);
        if (isForeignKeyViolation(error)) throw deletedMeanwhile();
        throw error;
      }
    },

    /**
     * Changes the fields given and adds, then removes, examples of the dataset (an example in both
     * lists ends up removed; adding one already in, or removing one not in, changes nothing).
     */
    async update(datasetIdentifier: Identifier, splitIdentifier: Identifier, change: DatasetSplitChange): Promise<DatasetSplitWithCount> {
      const id = splitRowId(splitIdentifier);
      const patch: DatasetSplitPatch = {};
      if (change.name !== undefined) patch.name = checkName(change.name);
      if (change.color !== undefined) patch.color = checkColor(change.color);
      if (change.description !== undefined) patch.description = change.description || null;
      if (change.metadata !== undefined && change.metadata !== null) patch.metadata = change.metadata;
      const adds = exampleRowIds(change.addExamples, 'add_example_ids');
      const removes = exampleRowIds(change.removeExamples, 'remove_example_ids');
      const dataset = await requireDataset(datasetIdentifier);
      try {
        return await withTransaction(async (trx) => {
          let split = await trx.datasetSplits.findById(id);
          if (!split) throw notFound(splitIdentifier);
          await requireExamplesOf(trx.datasetSplits, dataset, removes, change.removeExamples ?? []);
          await requireExamplesOf(trx.datasetSplits, dataset, adds, change.addExamples ?? []);
          if (Object.keys(patch).length > 0) {
            split = await trx.datasetSplits.update(id, patch, now());
            if (!split) throw notFound(splitIdentifier);
          }
          await trx.datasetSplits.addExamples(id, adds);
          await trx.datasetSplits.removeExamples(id, removes);
          return { ...split, exampleCount: await trx.datasetSplits.exampleCount(id, dataset.id) };
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw taken(patch.name ?? '');
        if (isForeignKeyViolation(error)) throw deletedMeanwhile();
        throw error;
      }
    },

    /** Deletes the split (from every dataset: its name is server-wide); its examples stay. */
    async delete(datasetIdentifier: Identifier, splitIdentifier: Identifier): Promise<void> {
      const id = splitRowId(splitIdentifier);
      await requireDataset(datasetIdentifier);
      if (!(await splits.delete(id))) throw notFound(splitIdentifier);
    },
  };
}
