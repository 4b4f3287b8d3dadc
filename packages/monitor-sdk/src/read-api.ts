/**
 * The answers of the monitor's read API (GET /v1/models…, docs/monitor.md): what the service
 * returns and the SDK reads, in the wire's snake_case.
 */
import type { Label, TypedValue } from './log/types.js';

export interface ModelSummary {
  model_id: string;
  records: number;
  predictions: number;
  actuals: number;
  model_versions: string[];
  first_record_time: string;
  last_record_time: string;
}

export interface RecordView {
  model_id: string;
  prediction_id: string;
  environment: string;
  /** Prediction time, or the time the actual arrived for an actual without its prediction. */
  record_time: string;
  prediction: {
    timestamp: string;
    model_version: string | null;
    label: Label;
    features: Record<string, TypedValue>;
    tags: Record<string, TypedValue>;
  } | null;
  actual: {
    received_at: string;
    label: Label;
    tags: Record<string, TypedValue>;
  } | null;
}

export interface ClassMetrics {
  class: string;
  precision: number | null;
  recall: number | null;
  f1: number | null;
  /** Pairs whose actual is this class. */
  support: number;
  /** Pairs whose prediction is this class. */
  predicted: number;
}

export interface ModelMetrics {
  counts: {
    records: number;
    predictions: number;
    actuals: number;
    predictions_with_actual: number;
    predictions_without_actual: number;
    actuals_without_prediction: number;
  };
  score_categorical: {
    /** Prediction–actual pairs with a category on both sides. */
    count: number;
    accuracy: number | null;
    macro_precision: number | null;
    macro_recall: number | null;
    macro_f1: number | null;
    classes: ClassMetrics[];
  };
  numeric: {
    /** Prediction–actual pairs with a numeric label on both sides. */
    count: number;
    mae: number | null;
    rmse: number | null;
    /** Mean absolute percentage error, in percent, over the pairs whose actual is not 0. */
    mape: number | null;
    mape_count: number;
  };
}

export interface FeatureDrift {
  name: string;
  kind: 'numeric' | 'categorical';
  psi: number | null;
  baseline_count: number;
  count: number;
  bins: NumericBin[] | CategoryBin[];
}

export interface NumericBin {
  /** Inclusive lower edge; null = open (−∞). */
  lower: number | null;
  /** Exclusive upper edge; null = open (+∞). */
  upper: number | null;
  baseline_count: number;
  count: number;
  baseline_proportion: number;
  proportion: number;
}

export interface CategoryBin {
  category: string;
  baseline_count: number;
  count: number;
  baseline_proportion: number;
  proportion: number;
}

export interface DriftResult {
  /** Records (with a prediction) read from each window. */
  count: number;
  baseline_count: number;
  /** True when a window held more than 100,000 records and only the newest were used. */
  truncated: boolean;
  features: FeatureDrift[];
}
