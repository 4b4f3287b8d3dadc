/** The wire shapes of POST /v1/log (canonical snake_case form) and the normalized record. */

/** Typed feature and tag values: an object with one key naming its type. */
export type DoubleValue = { double: number };
/** Booleans travel as their text ("true", "false"). */
export type StringValue = { string: string };
/** A 64-bit integer carried as a string of digits (exact; never a JS number). */
export type IntValue = { int: string };
export interface EmbeddingContent {
  vector: number[];
  link_to_data: string;
  raw_data?: { tokenArray: { tokens: string[] } };
}
export type EmbeddingValue = { embedding: EmbeddingContent };
export type ScalarValue = DoubleValue | StringValue | IntValue;
export type TypedValue = ScalarValue | EmbeddingValue;

export type NumericLabel = { numeric: number };
/** Category with its score (the spec's tuple of string and float); `score` is omitted when not sent. */
export type ScoreCategoricalLabel = { score_categorical: { score_category: { category: string; score?: number } } };
export type Label = NumericLabel | ScoreCategoricalLabel;

/** The canonical request body (what the SDK sends; the service also accepts camelCase and aliases). */
export interface LogBody {
  model_id: string;
  prediction_id: string;
  space_key: string;
  prediction?: {
    timestamp?: string;
    model_version?: string;
    label: Label;
    features?: Record<string, TypedValue>;
    tags?: Record<string, ScalarValue>;
  };
  actual?: {
    label: Label;
    tags?: Record<string, ScalarValue>;
  };
  environment_params?: { production: Record<string, never> };
}

/** A label as stored: its kind and the columns that hold it. */
export type NormalizedLabel = { kind: 'numeric'; numeric: number } | { kind: 'score_categorical'; category: string; score: number | null };

/** Feature and tag maps; every name (even `__proto__`) is an own data property. */
export type ValueMap<V> = Record<string, V>;

export interface NormalizedPrediction {
  /** Microseconds since the epoch. */
  timeMicros: number;
  /** True when the record carried no timestamp (time of receipt). */
  timeDefaulted: boolean;
  modelVersion: string | null;
  label: NormalizedLabel;
  /** double, string and int features. */
  features: ValueMap<ScalarValue> | null;
  embeddings: ValueMap<EmbeddingValue> | null;
  tags: ValueMap<ScalarValue> | null;
}

export interface NormalizedActual {
  label: NormalizedLabel;
  tags: ValueMap<ScalarValue> | null;
}

/** A validated record, ready to store. */
export interface NormalizedRecord {
  modelId: string;
  predictionId: string;
  environment: 'production';
  prediction: NormalizedPrediction | null;
  actual: NormalizedActual | null;
}

/** The label object of the wire format for a normalized label. */
export function labelToWire(label: NormalizedLabel): Label {
  if (label.kind === 'numeric') return { numeric: label.numeric };
  return {
    score_categorical: {
      score_category: label.score === null ? { category: label.category } : { category: label.category, score: label.score },
    },
  };
}
