/** A validated record as the flat column values of one monitor_records upsert (db/repositories/record-writes.ts). */
import type { NormalizedLabel, NormalizedRecord } from '../log/types.js';

export interface RecordRow {
  spaceId: number;
  modelId: string;
  predictionId: string;
  environment: string;
  recordTime: number;
  createdAt: number;
  modelVersion: string | null;
  predictionTime: number | null;
  predictionTimeDefaulted: number | null;
  predictionLabelKind: string | null;
  predictionNumeric: number | null;
  predictionCategory: string | null;
  predictionScore: number | null;
  features: string | null;
  embeddings: string | null;
  predictionTags: string | null;
  actualTime: number | null;
  actualLabelKind: string | null;
  actualNumeric: number | null;
  actualCategory: string | null;
  actualScore: number | null;
  actualTags: string | null;
}

/** A row's values in RECORD_COLUMNS order (what statements bind, and what crosses to the writer thread: arrays clone faster than objects). */
export type RowValues = (string | number | null)[];

/** The row's values in RECORD_COLUMNS order. */
export function rowValues(row: RecordRow): RowValues {
  return [
    row.spaceId,
    row.modelId,
    row.predictionId,
    row.environment,
    row.recordTime,
    row.createdAt,
    row.modelVersion,
    row.predictionTime,
    row.predictionTimeDefaulted,
    row.predictionLabelKind,
    row.predictionNumeric,
    row.predictionCategory,
    row.predictionScore,
    row.features,
    row.embeddings,
    row.predictionTags,
    row.actualTime,
    row.actualLabelKind,
    row.actualNumeric,
    row.actualCategory,
    row.actualScore,
    row.actualTags,
  ];
}

function json(map: object | null): string | null {
  return map === null ? null : JSON.stringify(map);
}

function labelColumns(label: NormalizedLabel | undefined): [string | null, number | null, string | null, number | null] {
  if (label === undefined) return [null, null, null, null];
  return label.kind === 'numeric' ? ['numeric', label.numeric, null, null] : ['score_categorical', null, label.category, label.score];
}

/** The upsert row of a record received at `receivedMicros` for a space. */
export function toRecordRow(spaceId: number, record: NormalizedRecord, receivedMicros: number): RecordRow {
  const { prediction, actual } = record;
  const [pKind, pNumeric, pCategory, pScore] = labelColumns(prediction?.label);
  const [aKind, aNumeric, aCategory, aScore] = labelColumns(actual?.label);
  const actualTime = actual ? receivedMicros : null;
  return {
    spaceId,
    modelId: record.modelId,
    predictionId: record.predictionId,
    environment: record.environment,
    recordTime: prediction ? prediction.timeMicros : receivedMicros,
    createdAt: receivedMicros,
    modelVersion: prediction ? prediction.modelVersion : null,
    predictionTime: prediction ? prediction.timeMicros : null,
    predictionTimeDefaulted: prediction ? (prediction.timeDefaulted ? 1 : 0) : null,
    predictionLabelKind: pKind,
    predictionNumeric: pNumeric,
    predictionCategory: pCategory,
    predictionScore: pScore,
    features: prediction ? json(prediction.features) : null,
    embeddings: prediction ? json(prediction.embeddings) : null,
    predictionTags: prediction ? json(prediction.tags) : null,
    actualTime,
    actualLabelKind: aKind,
    actualNumeric: aNumeric,
    actualCategory: aCategory,
    actualScore: aScore,
    actualTags: actual ? json(actual.tags) : null,
  };
}
