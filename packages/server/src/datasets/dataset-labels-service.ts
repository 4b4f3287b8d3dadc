/**
 * Dataset labels (docs/datasets.md, "Labels"): named, coloured tags that any dataset may carry,
 * as Phoenix has them. A name is unique server-wide (409); applying and removing a label are
 * idempotent; deleting a label takes it off every dataset. Knows nothing of HTTP.
 */
import { ConflictError, InvalidInputError, NotFoundError } from '@sightline/common';
import { isForeignKeyViolation, isUniqueViolation } from '../db/errors.js';
import type { DatasetLabelPatch, DatasetLabelRecord, DatasetLabelsRepository } from '../db/repositories/dataset-labels-repository.js';
import type { DatasetRecord, DatasetsRepository } from '../db/repositories/datasets-repository.js';
import type { WithTransaction } from '../db/repositories/index.js';
import type { Identifier } from '../shared/identifier.js';
import { requireDataset as findDataset } from './require-dataset.js';

/** Phoenix's label colour: a lower-case six-digit hex code. */
const HEX_COLOR = /^#[0-9a-f]{6}$/;
export const MAX_LABEL_NAME_LENGTH = 256;
/** Most labels one request may set on a dataset. */
export const MAX_LABELS_PER_SET = 1000;

export interface NewDatasetLabel {
  name: string;
  color: string;
  description: string | null;
  userId: number | null;
}

/** A change to a label: a field left undefined stays; null is only allowed for the description (it clears it). */
export interface DatasetLabelChange {
  name?: string | null | undefined;
  color?: string | null | undefined;
  description?: string | null | undefined;
}

export type DatasetLabelsService = ReturnType<typeof createDatasetLabelsService>;

const checkName = (name: string): string => {
  if (name.trim() === '') throw new InvalidInputError('name must not be blank');
  if (name.length > MAX_LABEL_NAME_LENGTH) throw new InvalidInputError(`name must be at most ${MAX_LABEL_NAME_LENGTH} characters`);
  return name;
};

const checkColor = (color: string): string => {
  if (!HEX_COLOR.test(color)) {
    throw new InvalidInputError(`color ${JSON.stringify(color)} is not a lower-case six-digit hex colour such as "#00cc88"`);
  }
  return color;
};

/** Runs `work`; a label deleted meanwhile (a foreign-key violation) becomes the error `gone` gives. */
async function withLabelRace<T>(gone: () => Error, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isForeignKeyViolation(error)) throw gone();
    throw error;
  }
}

const taken = (name: string) => new ConflictError(`a dataset label named ${JSON.stringify(name)} already exists`);

/** The dataset labels service. */
export function createDatasetLabelsService({
  labels,
  datasets,
  withTransaction,
  now = () => new Date().toISOString(),
}: {
  labels: DatasetLabelsRepository;
  datasets: DatasetsRepository;
  withTransaction: WithTransaction;
  now?: () => string;
}) {
  const requireDataset = (identifier: Identifier): Promise<DatasetRecord> => findDataset(datasets, identifier);

  /** The label's row id; 422 when the text is not a label id. */
  const labelRowId = (identifier: Identifier): number => {
    if (identifier.rowId === null) throw new InvalidInputError(`${JSON.stringify(identifier.text)} is not a dataset label id`);
    return identifier.rowId;
  };

  const requireLabel = async (identifier: Identifier): Promise<DatasetLabelRecord> => {
    const label = await labels.findById(labelRowId(identifier));
    if (!label) throw new NotFoundError(`dataset label ${JSON.stringify(identifier.text)} not found`);
    return label;
  };

  return {
    /** Creates a label; 409 when the name is taken. */
    async create(input: NewDatasetLabel): Promise<DatasetLabelRecord> {
      const name = checkName(input.name);
      const color = checkColor(input.color);
      try {
        return await labels.insert({ name, color, description: input.description, userId: input.userId }, now());
      } catch (error) {
        if (isUniqueViolation(error)) throw taken(name);
        throw error;
      }
    },

    get: requireLabel,

    /** Labels newest first (limit + 1 rows). */
    async list(query: { limit: number; fromId?: number | undefined }): Promise<DatasetLabelRecord[]> {
      return labels.list({ limit: query.limit + 1, fromId: query.fromId });
    },

    /** Changes the fields given (422 when none is, or when name or color is null); 409 when the new name is taken. */
    async update(identifier: Identifier, change: DatasetLabelChange): Promise<DatasetLabelRecord> {
      const id = labelRowId(identifier);
      const patch: DatasetLabelPatch = {};
      if (change.name === null) throw new InvalidInputError('name cannot be null: a label always has a name');
      if (change.color === null) throw new InvalidInputError('color cannot be null: a label always has a colour');
      if (change.name !== undefined) patch.name = checkName(change.name);
      if (change.color !== undefined) patch.color = checkColor(change.color);
      if (change.description !== undefined) patch.description = change.description;
      if (Object.keys(patch).length === 0) throw new InvalidInputError('no fields to update: give name, color or description');
      let updated: DatasetLabelRecord | undefined;
      try {
        updated = await labels.update(id, patch, now());
      } catch (error) {
        if (isUniqueViolation(error)) throw taken(patch.name ?? '');
        throw error;
      }
      if (!updated) throw new NotFoundError(`dataset label ${JSON.stringify(identifier.text)} not found`);
      return updated;
    },

    /** Deletes the label and takes it off every dataset. */
    async delete(identifier: Identifier): Promise<void> {
      if (!(await labels.delete(labelRowId(identifier))))
        throw new NotFoundError(`dataset label ${JSON.stringify(identifier.text)} not found`);
    },

    /** The labels a dataset carries, newest label first (limit + 1 rows). */
    async listForDataset(dataset: Identifier, query: { limit: number; fromId?: number | undefined }): Promise<DatasetLabelRecord[]> {
      const found = await requireDataset(dataset);
      return labels.listForDataset(found.id, { limit: query.limit + 1, fromId: query.fromId });
    },

    /** Applies a label to a dataset (idempotent); returns the label. */
    async apply(dataset: Identifier, label: Identifier): Promise<DatasetLabelRecord> {
      const id = labelRowId(label);
      const found = await requireDataset(dataset);
      const record = await requireLabel(label);
      await withLabelRace(
        () => new NotFoundError(`dataset label ${JSON.stringify(label.text)} not found`),
        () => labels.apply(found.id, [id]),
      );
      return record;
    },

    /** Removes a label from a dataset (idempotent: a label not applied, or unknown, is ignored). */
    async remove(dataset: Identifier, label: Identifier): Promise<void> {
      const id = labelRowId(label);
      const found = await requireDataset(dataset);
      await labels.remove(found.id, [id]);
    },

    /**
     * Makes the dataset carry exactly these labels (an empty list removes them all); 404 naming
     * the ids that are not labels, before anything changes. Returns the labels it now carries,
     * newest first.
     */
    async set(dataset: Identifier, wanted: Identifier[]): Promise<DatasetLabelRecord[]> {
      if (wanted.length > MAX_LABELS_PER_SET) throw new InvalidInputError(`dataset_label_ids may hold at most ${MAX_LABELS_PER_SET} ids`);
      const ids = [...new Set(wanted.map(labelRowId))];
      const found = await requireDataset(dataset);
      const labelGone = () => new NotFoundError('a dataset label was deleted while the labels were being set; retry');
      return withLabelRace(labelGone, () =>
        withTransaction(async (trx) => {
          const existing = await trx.datasetLabels.existingIds(ids);
          const missing = wanted.filter((identifier) => !existing.has(identifier.rowId!));
          if (missing.length > 0) {
            throw new NotFoundError(`dataset labels not found: ${missing.map((identifier) => JSON.stringify(identifier.text)).join(', ')}`);
          }
          await trx.datasetLabels.keepOnly(found.id, ids);
          await trx.datasetLabels.apply(found.id, ids);
          return trx.datasetLabels.listForDataset(found.id, { limit: MAX_LABELS_PER_SET });
        }),
      );
    },
  };
}
