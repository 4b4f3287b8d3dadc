/** Response shape of a dataset label (Phoenix's). */
import type { DatasetLabelRecord } from '../../db/repositories/dataset-labels-repository.js';
import { toGlobalId } from '../shared/global-id.js';

export function presentLabel(label: DatasetLabelRecord) {
  return { id: toGlobalId('DatasetLabel', label.id), name: label.name, description: label.description, color: label.color };
}
