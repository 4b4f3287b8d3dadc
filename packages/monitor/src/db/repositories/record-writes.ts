/**
 * The record upsert SQL both dialects share: the column order, the row in that order, and the ON
 * CONFLICT clause that joins predictions and actuals.
 */

/** Column order of the upsert statements (both dialects). */
export const RECORD_COLUMNS = [
  'space_id',
  'model_id',
  'prediction_id',
  'environment',
  'record_time',
  'created_at',
  'model_version',
  'prediction_time',
  'prediction_time_defaulted',
  'prediction_label_kind',
  'prediction_numeric',
  'prediction_category',
  'prediction_score',
  'features',
  'embeddings',
  'prediction_tags',
  'actual_time',
  'actual_label_kind',
  'actual_numeric',
  'actual_category',
  'actual_score',
  'actual_tags',
] as const;

/** One monitor_records upsert: a validated record as flat column values (store/record-rows.ts builds it). */
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

/** Keeps the stored prediction time when a re-sent prediction carried no timestamp (idempotent re-sends). */
const KEEP_TIME =
  'excluded.prediction_time IS NULL OR (excluded.prediction_time_defaulted = 1 AND monitor_records.prediction_time IS NOT NULL)';
const PREDICTION_COLUMNS = [
  'model_version',
  'prediction_label_kind',
  'prediction_numeric',
  'prediction_category',
  'prediction_score',
  'features',
  'embeddings',
  'prediction_tags',
];
const ACTUAL_COLUMNS = ['actual_label_kind', 'actual_numeric', 'actual_category', 'actual_score', 'actual_tags'];

/**
 * The ON CONFLICT clause shared by both dialects: a prediction replaces the prediction columns,
 * an actual replaces the actual columns, and the other half of the row is left as it was, so an
 * actual joins its prediction whichever arrives first, and a re-send changes nothing.
 */
export const UPSERT_CONFLICT_CLAUSE = `
  ON CONFLICT (space_id, model_id, prediction_id) DO UPDATE SET
    environment = excluded.environment,
    record_time = CASE WHEN ${KEEP_TIME} THEN monitor_records.record_time ELSE excluded.prediction_time END,
    prediction_time = CASE WHEN ${KEEP_TIME} THEN monitor_records.prediction_time ELSE excluded.prediction_time END,
    prediction_time_defaulted = CASE WHEN ${KEEP_TIME} THEN monitor_records.prediction_time_defaulted ELSE excluded.prediction_time_defaulted END,
    ${PREDICTION_COLUMNS.map((column) => `${column} = CASE WHEN excluded.prediction_time IS NULL THEN monitor_records.${column} ELSE excluded.${column} END`).join(',\n    ')},
    actual_time = COALESCE(monitor_records.actual_time, excluded.actual_time),
    ${ACTUAL_COLUMNS.map((column) => `${column} = CASE WHEN excluded.actual_time IS NULL THEN monitor_records.${column} ELSE excluded.${column} END`).join(',\n    ')}`;
