/** Helpers for the query API tests: hand-built OTLP/JSON exports with typed values, and a small JSON client. */
import type { ErrorBody } from '@sightline/client';
import assert from 'node:assert/strict';
import { newSpanId, newTraceId } from './otlp-bodies.js';

export { newSpanId, newTraceId };

/** An attribute value as OTLP/JSON carries it. */
export type OtlpValue = string | number | boolean | string[] | { int: string | number } | { double: number };

export interface QuerySpan {
  traceId: string;
  spanId?: string;
  parentSpanId?: string | null;
  name?: string;
  /** Nanoseconds since the epoch. */
  start: bigint;
  /** Nanoseconds after start (default 1 ms). */
  duration?: bigint;
  kind?: string;
  status?: 'OK' | 'ERROR' | 'UNSET';
  statusMessage?: string;
  attributes?: Record<string, OtlpValue>;
  events?: { name: string; time: bigint; attributes?: Record<string, OtlpValue> }[];
}

function anyValue(value: OtlpValue): Record<string, unknown> {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map((item) => ({ stringValue: item })) } };
  if ('int' in value) return { intValue: String(value.int) };
  return { doubleValue: value.double };
}

const keyValues = (attributes: Record<string, OtlpValue> = {}) =>
  Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));
const STATUS = { UNSET: 0, OK: 1, ERROR: 2 } as const;

/** An OTLP/JSON export with one resource (service.name = project) holding the spans. */
export function otlpJson(project: string, spans: QuerySpan[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: keyValues({ 'service.name': project }) },
        scopeSpans: [
          {
            spans: spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId ?? newSpanId(),
              parentSpanId: span.parentSpanId ?? '',
              name: span.name ?? 'span',
              kind: 1,
              startTimeUnixNano: span.start.toString(),
              endTimeUnixNano: (span.start + (span.duration ?? 1_000_000n)).toString(),
              attributes: keyValues({ ...(span.kind ? { 'openinference.span.kind': span.kind } : {}), ...span.attributes }),
              events: (span.events ?? []).map((event) => ({
                name: event.name,
                timeUnixNano: event.time.toString(),
                attributes: keyValues(event.attributes),
              })),
              status: { code: STATUS[span.status ?? 'UNSET'], message: span.statusMessage ?? '' },
            })),
          },
        ],
      },
    ],
  };
}

/** Sends spans to the server's OTLP/HTTP endpoint as JSON and asserts they were stored. Span ids are filled in. */
export async function sendSpans(
  baseUrl: string,
  project: string,
  spans: QuerySpan[],
  headers: Record<string, string> = {},
): Promise<QuerySpan[]> {
  const withIds = spans.map((span) => ({ ...span, spanId: span.spanId ?? newSpanId() }));
  const response = await fetch(`${baseUrl}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(otlpJson(project, withIds)),
  });
  assert.equal(response.status, 200, `ingest answered ${response.status}: ${await response.text()}`);
  return withIds;
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  // Test code inspects bodies freely; each assertion states the shape it expects.
  body: any;
  text: string;
}

/** One request with an optional JSON body; the answer's JSON is parsed when there is one. */
export async function request(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, init);
  const text = await response.text();
  const isJson = (response.headers.get('content-type') ?? '').includes('application/json') && text !== '';
  return { status: response.status, headers: response.headers, body: isJson ? JSON.parse(text) : text, text };
}

/** GET that must answer 200; returns the parsed body. */
export async function getOk(baseUrl: string, path: string, headers: Record<string, string> = {}) {
  const response = await request(baseUrl, 'GET', path, undefined, headers);
  assert.equal(response.status, 200, `GET ${path} → ${response.status}: ${response.text}`);
  return response.body;
}

/** Asserts the status and the one error shape of the API (ErrorBody: `detail` a sentence, `errors` only for schema failures); returns the response. */
export function expectError(response: JsonResponse, status: number, detail?: RegExp): JsonResponse {
  assert.equal(response.status, status, `expected ${status}, got ${response.status}: ${response.text}`);
  const body = response.body as ErrorBody;
  assert.ok(body && typeof body === 'object' && typeof body.detail === 'string', `error body has a string detail: ${response.text}`);
  if (body.errors !== undefined) {
    assert.equal(status, 422, 'only schema validation failures list errors');
    for (const issue of body.errors)
      assert.ok(Array.isArray(issue.loc) && typeof issue.msg === 'string', `a {loc, msg} issue: ${response.text}`);
  }
  if (detail) assert.match(body.detail, detail);
  return response;
}

/**
 * Follows next_cursor from `path` until the last page; asserts every page but the last is full.
 * Returns every item in the order received and the number of pages.
 */
export async function collectPages<T>(baseUrl: string, path: string, limit: number): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  const separator = path.includes('?') ? '&' : '?';
  do {
    const url: string = `${path}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const body = await getOk(baseUrl, url);
    pages += 1;
    assert.ok(pages < 1000, 'pagination does not end');
    if (body.next_cursor !== null) assert.equal(body.data.length, limit, `page ${pages} is full when a next page exists`);
    else assert.ok(body.data.length <= limit);
    items.push(...(body.data as T[]));
    cursor = body.next_cursor;
  } while (cursor !== null);
  return { items, pages };
}

/** Nanoseconds of 2025-11-22T00:00:00Z plus an offset in milliseconds (and extra nanoseconds). */
export const BASE_NANOS = 1_763_769_600_000_000_000n;
export const at = (ms: number, nanos = 0n) => BASE_NANOS + BigInt(ms) * 1_000_000n + nanos;

/**
 * Waits until a search of the project's spans finds at least `count` spans: on SQLite the
 * indexer thread writes new spans' words a moment after their ingest (docs/search.md, "SQLite"),
 * and writes them in the order they were stored, so once the last span sent is found every
 * earlier one is too. Fails after `timeoutMs`.
 */
export async function waitForSearch(
  baseUrl: string,
  project: string,
  words: string,
  { count = 1, timeoutMs = 10_000, headers = {} }: { count?: number; timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const path = `/v1/projects/${encodeURIComponent(project)}/spans?search=${encodeURIComponent(words)}&limit=${count}`;
  for (;;) {
    const response = await request(baseUrl, 'GET', path, undefined, headers);
    const found = response.status === 200 ? ((response.body as { data: unknown[] }).data?.length ?? 0) : 0;
    if (found >= count) return;
    assert.ok(Date.now() < deadline, `a search of ${project} for "${words}" found ${found} spans after ${timeoutMs} ms, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
