/** The read side: models of a space, a model's records (keyset pages), metrics and drift. */
import type { RecordCursor, RecordScope, RecordsRepository, StoredRecord, TimeWindow } from '../db/repositories/records-repository.js';
import type { ClassMetrics, DriftResult, FeatureDrift, ModelMetrics, ModelSummary, RecordView } from '@sightline/monitor-sdk';
import { formatIsoMicros, labelToWire, type NormalizedLabel, type TypedValue } from '@sightline/monitor-sdk/log';
import { categoricalDrift, numericDrift } from './psi.js';

export type { RecordCursor, TimeWindow } from '../db/repositories/records-repository.js';

export interface RecordFilters extends TimeWindow {
  modelVersion: string | null;
  hasActual: boolean | null;
}

export interface DriftOptions {
  window: TimeWindow;
  baseline: TimeWindow;
  bins: number;
  features: string[] | null;
  modelVersion: string | null;
}

/** Most records of one window that drift reads (the newest). */
export const MAX_DRIFT_ROWS = 100_000;

function parseMap(json: string | null): Record<string, TypedValue> {
  return json === null ? {} : (JSON.parse(json) as Record<string, TypedValue>);
}

function labelOf(kind: string | null, numeric: number | null, category: string | null, score: number | null): NormalizedLabel | null {
  if (kind === 'numeric' && numeric !== null) return { kind: 'numeric', numeric: Number(numeric) };
  if (kind === 'score_categorical' && category !== null)
    return { kind: 'score_categorical', category, score: score === null ? null : Number(score) };
  return null;
}

/** The API shape of a stored row. */
export function recordView(row: StoredRecord): RecordView {
  const predictionLabel = labelOf(row.prediction_label_kind, row.prediction_numeric, row.prediction_category, row.prediction_score);
  const actualLabel = labelOf(row.actual_label_kind, row.actual_numeric, row.actual_category, row.actual_score);
  return {
    model_id: row.model_id,
    prediction_id: row.prediction_id,
    environment: row.environment,
    record_time: formatIsoMicros(Number(row.record_time)),
    prediction:
      row.prediction_time === null || predictionLabel === null
        ? null
        : {
            timestamp: formatIsoMicros(Number(row.prediction_time)),
            model_version: row.model_version,
            label: labelToWire(predictionLabel),
            features: { ...parseMap(row.features), ...parseMap(row.embeddings) },
            tags: parseMap(row.prediction_tags),
          },
    actual:
      row.actual_time === null || actualLabel === null
        ? null
        : { received_at: formatIsoMicros(Number(row.actual_time)), label: labelToWire(actualLabel), tags: parseMap(row.actual_tags) },
  };
}

function ratio(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : numerator / denominator;
}

function mean(values: (number | null)[]): number | null {
  const defined = values.filter((value): value is number => value !== null);
  return defined.length === 0 ? null : defined.reduce((sum, value) => sum + value, 0) / defined.length;
}

export class RecordReader {
  constructor(private readonly records: RecordsRepository) {}

  async listModels(spaceId: number): Promise<ModelSummary[]> {
    const models = await this.records.modelCounts(spaceId);
    const versionsOf = new Map<string, string[]>();
    for (const { modelId, modelVersion } of await this.records.modelVersions(spaceId)) {
      const list = versionsOf.get(modelId) ?? [];
      list.push(modelVersion);
      versionsOf.set(modelId, list);
    }
    return models.map((model) => ({
      model_id: model.modelId,
      records: model.records,
      predictions: model.predictions,
      actuals: model.actuals,
      model_versions: (versionsOf.get(model.modelId) ?? []).sort(),
      first_record_time: formatIsoMicros(model.firstRecordTime),
      last_record_time: formatIsoMicros(model.lastRecordTime),
    }));
  }

  /** One page of a model's records, newest first; `next` is the cursor of the following page. */
  async listRecords(
    spaceId: number,
    modelId: string,
    filters: RecordFilters,
    limit: number,
    cursor: RecordCursor | null,
  ): Promise<{ records: RecordView[]; next: RecordCursor | null }> {
    const window = { start: filters.start, end: filters.end };
    const scope = { spaceId, modelId, window, modelVersion: filters.modelVersion };
    const rows = await this.records.page(scope, { hasActual: filters.hasActual, cursor, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      records: page.map(recordView),
      next: rows.length > limit && last ? { time: Number(last.record_time), id: Number(last.id) } : null,
    };
  }

  async getRecord(spaceId: number, modelId: string, predictionId: string): Promise<RecordView | null> {
    const row = await this.records.find(spaceId, modelId, predictionId);
    return row === null ? null : recordView(row);
  }

  async metrics(spaceId: number, modelId: string, window: TimeWindow, modelVersion: string | null): Promise<ModelMetrics> {
    const scope: RecordScope = { spaceId, modelId, window, modelVersion };
    const counts = await this.records.counts(scope);
    const pairs = await this.records.categoryPairs(scope);
    const numeric = await this.records.numericErrorSums(scope);

    const { records, predictions, actuals, joined } = counts;

    const classes = new Map<string, { tp: number; predicted: number; support: number }>();
    const entry = (name: string) => {
      let value = classes.get(name);
      if (value === undefined) {
        value = { tp: 0, predicted: 0, support: 0 };
        classes.set(name, value);
      }
      return value;
    };
    let pairCount = 0;
    let correct = 0;
    for (const { predicted, actual, count: n } of pairs) {
      pairCount += n;
      entry(predicted).predicted += n;
      entry(actual).support += n;
      if (predicted === actual) {
        correct += n;
        entry(predicted).tp += n;
      }
    }
    const classMetrics: ClassMetrics[] = [...classes.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => {
        const precision = ratio(value.tp, value.predicted);
        const recall = ratio(value.tp, value.support);
        const f1 =
          precision === null || recall === null ? null : precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
        return { class: name, precision, recall, f1, support: value.support, predicted: value.predicted };
      });

    const n = numeric.count;
    const apeN = numeric.relativeCount;
    return {
      counts: {
        records,
        predictions,
        actuals,
        predictions_with_actual: joined,
        predictions_without_actual: predictions - joined,
        actuals_without_prediction: actuals - joined,
      },
      score_categorical: {
        count: pairCount,
        accuracy: ratio(correct, pairCount),
        macro_precision: mean(classMetrics.map((item) => item.precision)),
        macro_recall: mean(classMetrics.map((item) => item.recall)),
        macro_f1: mean(classMetrics.map((item) => item.f1)),
        classes: classMetrics,
      },
      numeric: {
        count: n,
        mae: ratio(numeric.absoluteSum, n),
        rmse: n === 0 ? null : Math.sqrt(numeric.squareSum / n),
        mape: apeN === 0 ? null : (100 * numeric.relativeSum) / apeN,
        mape_count: apeN,
      },
    };
  }

  /** Feature values of the records (with a prediction) of one window, newest first, at most MAX_DRIFT_ROWS. */
  private async featureMaps(spaceId: number, modelId: string, window: TimeWindow, modelVersion: string | null) {
    const features = await this.records.features({ spaceId, modelId, window, modelVersion }, MAX_DRIFT_ROWS + 1);
    const truncated = features.length > MAX_DRIFT_ROWS;
    return { maps: features.slice(0, MAX_DRIFT_ROWS).map(parseMap), truncated };
  }

  async drift(spaceId: number, modelId: string, options: DriftOptions): Promise<DriftResult> {
    const current = await this.featureMaps(spaceId, modelId, options.window, options.modelVersion);
    const baseline = await this.featureMaps(spaceId, modelId, options.baseline, options.modelVersion);
    const wanted = options.features === null ? null : new Set(options.features);
    // Per feature: the values seen in each window, and whether any was a string.
    const seen = new Map<string, { baseline: (number | string)[]; current: (number | string)[]; text: boolean }>();
    const collect = (maps: Record<string, TypedValue>[], side: 'baseline' | 'current') => {
      for (const map of maps) {
        for (const name of Object.keys(map)) {
          if (wanted !== null && !wanted.has(name)) continue;
          const value = map[name]!;
          let item = seen.get(name);
          if (item === undefined) {
            item = { baseline: [], current: [], text: false };
            seen.set(name, item);
          }
          if ('double' in value) item[side].push(value.double);
          else if ('int' in value) item[side].push(Number(value.int));
          else if ('string' in value) {
            item[side].push(value.string);
            item.text = true;
          }
        }
      }
    };
    collect(baseline.maps, 'baseline');
    collect(current.maps, 'current');
    const features: FeatureDrift[] = [...seen.keys()].sort().map((name) => {
      const item = seen.get(name)!;
      if (item.text) {
        const result = categoricalDrift(item.baseline.map(String), item.current.map(String));
        return {
          name,
          kind: 'categorical',
          psi: result.psi,
          baseline_count: item.baseline.length,
          count: item.current.length,
          bins: result.bins,
        };
      }
      const result = numericDrift(item.baseline as number[], item.current as number[], options.bins);
      return {
        name,
        kind: 'numeric',
        psi: result.psi,
        baseline_count: item.baseline.length,
        count: item.current.length,
        bins: result.bins,
      };
    });
    return {
      count: current.maps.length,
      baseline_count: baseline.maps.length,
      truncated: current.truncated || baseline.truncated,
      features,
    };
  }
}
