/**
 * TypeScript SDK of the Sightline monitoring service (`@sightline/monitor-sdk`): no dependencies,
 * so installing it installs nothing else. The log contract it shares with the service is also
 * `@sightline/monitor-sdk/log`.
 *
 *   const client = new MonitorClient(); // MONITOR_API_KEY, MONITOR_SPACE_KEY, MONITOR_ENDPOINT
 *   await client.logPrediction('fraud', id, { modelVersion: 'v1', label: label.scoreCategorical('fraud', 0.9),
 *     features: { amount: value.double(12.5), country: value.string('DE') } });
 *   await client.logActual('fraud', id, { label: label.scoreCategorical('not_fraud') });
 */
export { MonitorClient, MonitorApiError, MonitorConfigError, DEFAULT_ENDPOINT } from './client.js';
export type {
  MonitorClientOptions,
  RecordFilters,
  WindowOptions,
  DriftOptions,
  Metrics,
  Drift,
} from './client.js';
export { label, value, buildLogBody } from './builders.js';
export type { PredictionInput, ActualInput, RecordInput, EmbeddingInput } from './builders.js';
export { checkLogBody, MESSAGES, LIMITS } from './log/validate.js';
export type {
  LogBody,
  Label,
  NumericLabel,
  ScoreCategoricalLabel,
  TypedValue,
  ScalarValue,
  DoubleValue,
  StringValue,
  IntValue,
  EmbeddingValue,
} from './log/types.js';
export type {
  ModelSummary,
  RecordView,
  ModelMetrics,
  ClassMetrics,
  DriftResult,
  FeatureDrift,
  NumericBin,
  CategoryBin,
} from './read-api.js';
