/** Typed builders of labels, feature and tag values, and log bodies (the wire format, snake_case). */
import type {
  DoubleValue,
  EmbeddingValue,
  IntValue,
  LogBody,
  NumericLabel,
  ScalarValue,
  ScoreCategoricalLabel,
  StringValue,
  TypedValue,
} from './log/types.js';

export const label = {
  /** `{numeric: value}` (regression). */
  numeric(value: number): NumericLabel {
    return { numeric: value };
  },
  /** `{score_categorical: {score_category: {category, score}}}` (classification); the score may be left out. */
  scoreCategorical(category: string, score?: number): ScoreCategoricalLabel {
    return { score_categorical: { score_category: score === undefined ? { category } : { category, score } } };
  },
};

export interface EmbeddingInput {
  vector: number[];
  /** Link to the data the vector embeds (may be empty). */
  linkToData?: string;
  /** One sentence (a single token) or a list of tokens. */
  rawData?: string | string[];
}

export const value = {
  double(number: number): DoubleValue {
    return { double: number };
  },
  /** Strings; booleans are carried as their text. */
  string(text: string | boolean): StringValue {
    return { string: String(text) };
  },
  /** A 64-bit integer, exact: give a bigint or a string of digits for values beyond 2^53. */
  int(integer: bigint | number | string): IntValue {
    return {
      int: typeof integer === 'number' ? (Number.isInteger(integer) ? BigInt(integer).toString() : String(integer)) : String(integer),
    };
  },
  embedding(input: EmbeddingInput): EmbeddingValue {
    const tokens = input.rawData === undefined ? undefined : Array.isArray(input.rawData) ? input.rawData : [input.rawData];
    return {
      embedding: {
        vector: input.vector,
        link_to_data: input.linkToData ?? '',
        ...(tokens !== undefined && { raw_data: { tokenArray: { tokens } } }),
      },
    };
  },
};

export interface PredictionInput {
  label: NumericLabel | ScoreCategoricalLabel;
  modelVersion?: string;
  /** Defaults to the time the service receives the record. */
  timestamp?: Date | string;
  features?: Record<string, TypedValue>;
  tags?: Record<string, ScalarValue>;
}

export interface ActualInput {
  label: NumericLabel | ScoreCategoricalLabel;
  tags?: Record<string, ScalarValue>;
}

export interface RecordInput {
  modelId: string;
  predictionId: string;
  prediction?: PredictionInput;
  actual?: ActualInput;
}

/** ISO 8601 UTC with fractional seconds. */
function timestampText(timestamp: Date | string): string {
  return timestamp instanceof Date ? timestamp.toISOString() : timestamp;
}

/** The request body of a record, as the service expects it. */
export function buildLogBody(record: RecordInput, spaceKey: string): LogBody {
  const body: LogBody = {
    model_id: record.modelId,
    prediction_id: record.predictionId,
    space_key: spaceKey,
    environment_params: { production: {} },
  };
  if (record.prediction !== undefined) {
    const p = record.prediction;
    body.prediction = {
      label: p.label,
      ...(p.timestamp !== undefined && { timestamp: timestampText(p.timestamp) }),
      ...(p.modelVersion !== undefined && { model_version: p.modelVersion }),
      ...(p.features !== undefined && { features: p.features }),
      ...(p.tags !== undefined && { tags: p.tags }),
    };
  }
  if (record.actual !== undefined) {
    body.actual = { label: record.actual.label, ...(record.actual.tags !== undefined && { tags: record.actual.tags }) };
  }
  return body;
}
