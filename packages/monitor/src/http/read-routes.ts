/**
 * The read API, with the same credentials as /v1/log: `Authorization: <API_KEY>` plus the space
 * key in the `Space-Key` header (or the `space_key` query parameter).
 */
import { ForbiddenError, InvalidInputError, NotFoundError } from '@sightline/common';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { formatIsoMicros, MESSAGES, MICROS_PER_DAY, nowMicros, parseIsoMicros } from '@sightline/monitor-sdk/log';
import { DEFAULT_BINS, MAX_BINS } from '../read/psi.js';
import type { RecordCursor, RecordReader, TimeWindow } from '../read/record-reader.js';
import type { SpacesService } from '../spaces/spaces-service.js';
import { authenticateHook, grantOf, spaceKeyMatches } from './auth.js';

export interface ReadRoutesOptions {
  spaces: SpacesService;
  reader: RecordReader;
}

type Query = Record<string, string | string[] | undefined>;

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** Text no stored identifier can hold (NUL, unpaired surrogates) is refused before it reaches a query. */
function storableText(value: string, name: string): string {
  if (value.includes('\u0000') || !value.isWellFormed())
    throw new InvalidInputError(`${name} must not contain NUL characters or unpaired surrogates`, true);
  return value;
}

/** A single-valued query parameter (given once), or undefined. */
function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw new InvalidInputError(`${name} must be given at most once`, true);
  return value === undefined || value === '' ? undefined : storableText(value, name);
}

function timeParam(query: Query, name: string): number | null {
  const value = single(query, name);
  if (value === undefined) return null;
  const micros = parseIsoMicros(value);
  if (micros === null) throw new InvalidInputError(`${name} must be an ISO 8601 time with a zone, e.g. 2024-05-01T00:00:00Z`, true);
  return micros;
}

function windowParams(query: Query, startName: string, endName: string): TimeWindow {
  const window = { start: timeParam(query, startName), end: timeParam(query, endName) };
  if (window.start !== null && window.end !== null && window.start >= window.end) {
    throw new InvalidInputError(`${startName} must be before ${endName}`, true);
  }
  return window;
}

function intParam(query: Query, name: string, fallback: number, min: number, max: number): number {
  const value = single(query, name);
  if (value === undefined) return fallback;
  if (!/^\d{1,6}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new InvalidInputError(`${name} must be a whole number from ${min} to ${max}`, true);
  }
  return Number(value);
}

function boolParam(query: Query, name: string): boolean | null {
  const value = single(query, name)?.toLowerCase();
  if (value === undefined) return null;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new InvalidInputError(`${name} must be true or false`, true);
}

export function encodeCursor(cursor: RecordCursor): string {
  return Buffer.from(`${cursor.time}.${cursor.id}`).toString('base64url');
}

function cursorParam(query: Query): RecordCursor | null {
  const value = single(query, 'cursor');
  if (value === undefined) return null;
  const match = /^(\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(value, 'base64url').toString('latin1'));
  if (match === null || !Number.isSafeInteger(Number(match[1])) || !Number.isSafeInteger(Number(match[2]))) {
    throw new InvalidInputError('cursor is not a cursor returned by this API', true);
  }
  return { time: Number(match[1]), id: Number(match[2]) };
}

/** After authenticateHook: the space key from the Space-Key header or the space_key query parameter. */
function spaceKeyHook(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const header = request.headers['space-key'] ?? request.headers['x-space-key'];
  const query = request.query as Query;
  const fromQuery = query.space_key;
  const spaceKey = typeof header === 'string' ? header.trim() : typeof fromQuery === 'string' ? fromQuery : undefined;
  if (spaceKey === undefined || spaceKey === '' || !spaceKeyMatches(grantOf(request), spaceKey)) {
    done(new ForbiddenError(MESSAGES.invalidSpaceKey));
    return;
  }
  done();
}

export async function readRoutes(app: FastifyInstance, { spaces, reader }: ReadRoutesOptions): Promise<void> {
  const onRequest = [authenticateHook(spaces), spaceKeyHook];
  const params = (request: FastifyRequest) => {
    const values = request.params as Record<string, string>;
    for (const [name, value] of Object.entries(values)) storableText(value, name);
    return values;
  };

  app.get('/v1/models', { onRequest }, async (request) => {
    return { data: await reader.listModels(grantOf(request).spaceId) };
  });

  app.get('/v1/models/:model_id/records', { onRequest }, async (request) => {
    const query = request.query as Query;
    const filters = {
      ...windowParams(query, 'start_time', 'end_time'),
      modelVersion: single(query, 'model_version') ?? null,
      hasActual: boolParam(query, 'has_actual'),
    };
    const limit = intParam(query, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT);
    const page = await reader.listRecords(grantOf(request).spaceId, params(request).model_id!, filters, limit, cursorParam(query));
    return { data: page.records, next_cursor: page.next === null ? null : encodeCursor(page.next) };
  });

  app.get('/v1/models/:model_id/records/:prediction_id', { onRequest }, async (request) => {
    const { model_id: modelId, prediction_id: predictionId } = params(request);
    const record = await reader.getRecord(grantOf(request).spaceId, modelId!, predictionId!);
    if (record === null) throw new NotFoundError('no record has this model_id and prediction_id in the space');
    return { data: record };
  });

  app.get('/v1/models/:model_id/metrics', { onRequest }, async (request) => {
    const query = request.query as Query;
    const window = windowParams(query, 'start_time', 'end_time');
    const modelVersion = single(query, 'model_version') ?? null;
    const metrics = await reader.metrics(grantOf(request).spaceId, params(request).model_id!, window, modelVersion);
    return { data: { model_id: params(request).model_id, ...windowView(window), model_version: modelVersion, ...metrics } };
  });

  app.get('/v1/models/:model_id/drift', { onRequest }, async (request) => {
    const query = request.query as Query;
    // Defaults: the last 24 hours against the 7 days before them.
    const given = windowParams(query, 'start_time', 'end_time');
    const end = given.end ?? nowMicros();
    const window = { start: given.start ?? end - MICROS_PER_DAY, end };
    const givenBaseline = windowParams(query, 'baseline_start_time', 'baseline_end_time');
    const baselineEnd = givenBaseline.end ?? window.start;
    const baseline = { start: givenBaseline.start ?? baselineEnd - 7 * MICROS_PER_DAY, end: baselineEnd };
    if (window.start >= window.end || baseline.start >= baseline.end) {
      throw new InvalidInputError('each window must start before it ends', true);
    }
    const rawFeatures = query.feature;
    const features =
      rawFeatures === undefined
        ? null
        : (Array.isArray(rawFeatures) ? rawFeatures : [rawFeatures]).map((name) => storableText(name, 'feature'));
    const bins = intParam(query, 'bins', DEFAULT_BINS, 2, MAX_BINS);
    const modelVersion = single(query, 'model_version') ?? null;
    const drift = await reader.drift(grantOf(request).spaceId, params(request).model_id!, {
      window,
      baseline,
      bins,
      features,
      modelVersion,
    });
    return {
      data: {
        model_id: params(request).model_id,
        ...windowView(window),
        baseline_start_time: formatIsoMicros(baseline.start),
        baseline_end_time: formatIsoMicros(baseline.end),
        model_version: modelVersion,
        bins,
        ...drift,
      },
    };
  });
}

function windowView(window: TimeWindow) {
  const iso = (micros: number | null) => (micros === null ? null : formatIsoMicros(micros));
  return { start_time: iso(window.start), end_time: iso(window.end) };
}
