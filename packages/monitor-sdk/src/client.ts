/**
 * Client of the monitoring service. Credentials come from the options or the environment:
 * MONITOR_API_KEY, MONITOR_SPACE_KEY and MONITOR_ENDPOINT (default http://127.0.0.1:6007).
 * Every record is checked by the service's own validation before it is sent, so a record the
 * service would refuse fails locally with the same status and message.
 */
import { checkLogBody } from './log/validate.js';
import type { DriftResult, ModelMetrics, ModelSummary, RecordView } from './read-api.js';
import { buildLogBody, type ActualInput, type PredictionInput, type RecordInput } from './builders.js';

export const DEFAULT_ENDPOINT = 'http://127.0.0.1:6007';

export interface MonitorClientOptions {
  apiKey?: string;
  spaceKey?: string;
  /** Base URL of the service. */
  endpoint?: string;
  /** Per-request timeout in milliseconds (default 30 000). */
  timeoutMs?: number;
  /** Environment to read the defaults from (default process.env). */
  env?: Record<string, string | undefined>;
}

/** The client is missing a credential or has a malformed endpoint. */
export class MonitorConfigError extends Error {
  override readonly name = 'MonitorConfigError';
}

/** The record would be (or was) refused: the service's status and message. */
export class MonitorApiError extends Error {
  override readonly name = 'MonitorApiError';
  constructor(
    readonly status: number,
    message: string,
    /** True when the SDK refused the record before sending it. */
    readonly local = false,
  ) {
    super(message);
  }
}

export interface RecordFilters {
  startTime?: Date | string;
  endTime?: Date | string;
  modelVersion?: string;
  hasActual?: boolean;
  limit?: number;
  cursor?: string;
}

export interface WindowOptions {
  startTime?: Date | string;
  endTime?: Date | string;
  modelVersion?: string;
}

export interface DriftOptions extends WindowOptions {
  baselineStartTime?: Date | string;
  baselineEndTime?: Date | string;
  features?: string[];
  bins?: number;
}

/** The window a metrics or drift answer covers. */
interface WindowView {
  model_id: string;
  start_time: string | null;
  end_time: string | null;
  model_version: string | null;
}

/** GET /v1/models/{id}/metrics: the reader's metrics plus the window they cover. */
export type Metrics = WindowView & ModelMetrics;
/** GET /v1/models/{id}/drift: the reader's drift plus both windows and the bin count. */
export type Drift = WindowView & { baseline_start_time: string; baseline_end_time: string; bins: number } & DriftResult;

function iso(time: Date | string): string {
  return time instanceof Date ? time.toISOString() : time;
}

export class MonitorClient {
  readonly endpoint: string;
  private readonly apiKey: string;
  private readonly spaceKey: string;
  private readonly timeoutMs: number;

  constructor(options: MonitorClientOptions = {}) {
    const env = options.env ?? process.env;
    const apiKey = options.apiKey ?? env.MONITOR_API_KEY?.trim();
    const spaceKey = options.spaceKey ?? env.MONITOR_SPACE_KEY?.trim();
    if (!apiKey) throw new MonitorConfigError('MONITOR_API_KEY: required (or pass apiKey)');
    if (!spaceKey) throw new MonitorConfigError('MONITOR_SPACE_KEY: required (or pass spaceKey)');
    const endpoint = options.endpoint ?? (env.MONITOR_ENDPOINT?.trim() || DEFAULT_ENDPOINT);
    try {
      const url = new URL(endpoint);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error();
    } catch {
      throw new MonitorConfigError(`MONITOR_ENDPOINT: expected an http(s) URL, got "${endpoint}"`);
    }
    this.endpoint = endpoint.replace(/\/+$/, '');
    this.apiKey = apiKey;
    this.spaceKey = spaceKey;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** Logs a record (prediction, actual, or both); resolves once the service has stored it. */
  async log(record: RecordInput): Promise<void> {
    const body = buildLogBody(record, this.spaceKey);
    const check = checkLogBody(body as unknown as Record<string, unknown>, { nowMs: Date.now() });
    if (!check.ok) throw new MonitorApiError(check.status, check.message, true);
    await this.request('POST', '/v1/log', JSON.stringify(body));
  }

  /** A prediction, optionally with its actual. */
  logPrediction(modelId: string, predictionId: string, prediction: PredictionInput, actual?: ActualInput): Promise<void> {
    return this.log({ modelId, predictionId, prediction, ...(actual !== undefined && { actual }) });
  }

  /** An actual (ground truth) for a prediction logged before or after it. */
  logActual(modelId: string, predictionId: string, actual: ActualInput): Promise<void> {
    return this.log({ modelId, predictionId, actual });
  }

  async listModels(): Promise<ModelSummary[]> {
    return ((await this.request('GET', '/v1/models')) as { data: ModelSummary[] }).data;
  }

  /** One page of a model's records, newest first. */
  async listRecords(modelId: string, filters: RecordFilters = {}): Promise<{ data: RecordView[]; next_cursor: string | null }> {
    const query = new URLSearchParams();
    if (filters.startTime !== undefined) query.set('start_time', iso(filters.startTime));
    if (filters.endTime !== undefined) query.set('end_time', iso(filters.endTime));
    if (filters.modelVersion !== undefined) query.set('model_version', filters.modelVersion);
    if (filters.hasActual !== undefined) query.set('has_actual', String(filters.hasActual));
    if (filters.limit !== undefined) query.set('limit', String(filters.limit));
    if (filters.cursor !== undefined) query.set('cursor', filters.cursor);
    return (await this.request('GET', `/v1/models/${encodeURIComponent(modelId)}/records?${query}`)) as {
      data: RecordView[];
      next_cursor: string | null;
    };
  }

  /** Every record matching the filters, page by page. */
  async *records(modelId: string, filters: Omit<RecordFilters, 'cursor'> = {}): AsyncGenerator<RecordView> {
    let cursor: string | undefined;
    do {
      const page = await this.listRecords(modelId, { ...filters, ...(cursor !== undefined && { cursor }) });
      yield* page.data;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** One record, or null when the service has none with these ids. */
  async getRecord(modelId: string, predictionId: string): Promise<RecordView | null> {
    try {
      const path = `/v1/models/${encodeURIComponent(modelId)}/records/${encodeURIComponent(predictionId)}`;
      return ((await this.request('GET', path)) as { data: RecordView }).data;
    } catch (error) {
      if (error instanceof MonitorApiError && error.status === 404) return null;
      throw error;
    }
  }

  async metrics(modelId: string, options: WindowOptions = {}): Promise<Metrics> {
    const query = windowQuery(options);
    return ((await this.request('GET', `/v1/models/${encodeURIComponent(modelId)}/metrics?${query}`)) as { data: Metrics }).data;
  }

  async drift(modelId: string, options: DriftOptions = {}): Promise<Drift> {
    const query = windowQuery(options);
    if (options.baselineStartTime !== undefined) query.set('baseline_start_time', iso(options.baselineStartTime));
    if (options.baselineEndTime !== undefined) query.set('baseline_end_time', iso(options.baselineEndTime));
    for (const feature of options.features ?? []) query.append('feature', feature);
    if (options.bins !== undefined) query.set('bins', String(options.bins));
    return ((await this.request('GET', `/v1/models/${encodeURIComponent(modelId)}/drift?${query}`)) as { data: Drift }).data;
  }

  private async request(method: 'GET' | 'POST', path: string, body?: string): Promise<unknown> {
    const headers: Record<string, string> = { authorization: this.apiKey, 'space-key': this.spaceKey };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(this.endpoint + path, { method, headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      // A proxy's HTML error page, for instance.
    }
    if (!response.ok) {
      const message =
        typeof (parsed as { message?: unknown } | null)?.message === 'string'
          ? (parsed as { message: string }).message
          : text.slice(0, 200);
      throw new MonitorApiError(response.status, message);
    }
    return parsed;
  }
}

function windowQuery(options: WindowOptions): URLSearchParams {
  const query = new URLSearchParams();
  if (options.startTime !== undefined) query.set('start_time', iso(options.startTime));
  if (options.endTime !== undefined) query.set('end_time', iso(options.endTime));
  if (options.modelVersion !== undefined) query.set('model_version', options.modelVersion);
  return query;
}
