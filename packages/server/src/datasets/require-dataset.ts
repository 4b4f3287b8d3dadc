/** A dataset by GlobalID or name, as every dataset route names one; 404 otherwise. */
import { NotFoundError } from '@sightline/common';
import type { DatasetRecord, DatasetsRepository } from '../db/repositories/datasets-repository.js';
import type { Identifier } from '../shared/identifier.js';

export async function requireDataset(
  datasets: Pick<DatasetsRepository, 'findById' | 'findByName'>,
  identifier: Identifier,
): Promise<DatasetRecord> {
  const dataset =
    (identifier.rowId !== null ? await datasets.findById(identifier.rowId) : undefined) ?? (await datasets.findByName(identifier.text));
  if (!dataset) throw new NotFoundError(`dataset ${JSON.stringify(identifier.text)} not found`);
  return dataset;
}
