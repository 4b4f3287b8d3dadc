/** A validated record as the flat column values of one monitor_records upsert (db/repositories/record-writes.ts). */
import type { RecordRow } from '../db/repositories/record-writes.js';
import type { NormalizedLabel, NormalizedRecord } from '@sightline/monitor-sdk/log';

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
