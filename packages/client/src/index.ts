/**
 * Typed client for the Sightline REST API. Types come from the server's OpenAPI document
 * (src/generated/api.ts); `raw` exposes every route, the helpers cover the common calls.
 * Reads SERVICE_COLLECTOR_ENDPOINT (base URL) and SERVICE_API_KEY when options leave them out.
 */
import createFetchClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/api.js';
import type { Span } from './types.js';

export type { paths, components, operations };
export type * from './types.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:6006';

export interface ClientOptions {
  /** Server base URL (root path included); default SERVICE_COLLECTOR_ENDPOINT without /v1/traces, else http://127.0.0.1:6006. */
  baseUrl?: string;
  /** API key sent as `Authorization: Bearer <key>`; default SERVICE_API_KEY. */
  apiKey?: string;
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
  env?: Record<string, string | undefined>;
}

/** A failed call: the HTTP status and the server's `detail` message. */
export class SightlineError extends Error {
  override readonly name = 'SightlineError';
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(`HTTP ${status}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`);
  }
}

type Query<Op extends keyof operations> = operations[Op] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type Json<Op extends keyof operations, Status extends number> = operations[Op] extends {
  responses: { [S in Status]: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

export type SpanQuery = Query<'getSpans'>;
export type TraceQuery = Query<'listProjectTraces'>;

/** Resolves base URL and headers from options and environment. */
export function clientSettings(options: ClientOptions = {}): { baseUrl: string; headers: Record<string, string> } {
  const env = options.env ?? process.env;
  const fromEnv = env.SERVICE_COLLECTOR_ENDPOINT?.replace(/\/v1\/traces\/?$/, '');
  const baseUrl = (options.baseUrl ?? fromEnv ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.headers ?? {})) headers[key.toLowerCase()] = value;
  const apiKey = options.apiKey ?? env.SERVICE_API_KEY;
  if (apiKey && headers.authorization === undefined) headers.authorization = `Bearer ${apiKey}`;
  return { baseUrl, headers };
}

async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new SightlineError(response.status, (error as { detail?: unknown } | undefined)?.detail ?? error);
  return data as T;
}

/** Creates a client; every helper throws SightlineError on a non-2xx answer. */
export function createClient(options: ClientOptions = {}) {
  const { baseUrl, headers } = clientSettings(options);
  const raw: Client<paths> = createFetchClient<paths>({ baseUrl, headers, fetch: options.fetch });
  const project = (identifier: string) => ({ path: { project_identifier: identifier } });

  return {
    raw,
    baseUrl,
    /** The caller: a user, the system (system key) or anonymous (auth off). */
    viewer: () => unwrap(raw.GET('/v1/user')).then((body) => body.data),
    projects: {
      list: (query: Query<'getProjects'> = {}) => unwrap(raw.GET('/v1/projects', { params: { query } })),
      get: (identifier: string) =>
        unwrap(raw.GET('/v1/projects/{project_identifier}', { params: project(identifier) })).then((body) => body.data),
      create: (name: string, description?: string) =>
        unwrap(raw.POST('/v1/projects', { body: { name, description } })).then((body) => body.data),
      delete: (identifier: string) => unwrap(raw.DELETE('/v1/projects/{project_identifier}', { params: project(identifier) })),
      summary: (identifier: string, query: Query<'getProjectSummary'> = {}) =>
        unwrap(raw.GET('/v1/projects/{project_identifier}/summary', { params: { ...project(identifier), query } })).then(
          (body) => body.data,
        ),
    },
    spans: {
      /** One page of a project's spans (newest first). */
      page: (identifier: string, query: SpanQuery = {}): Promise<Json<'getSpans', 200>> =>
        unwrap(raw.GET('/v1/projects/{project_identifier}/spans', { params: { ...project(identifier), query } })),
      /** Every matching span, page by page. */
      async *all(identifier: string, query: SpanQuery = {}): AsyncGenerator<Span> {
        let cursor: string | undefined;
        do {
          const page = await unwrap(
            raw.GET('/v1/projects/{project_identifier}/spans', { params: { ...project(identifier), query: { ...query, cursor } } }),
          );
          yield* page.data;
          cursor = page.next_cursor ?? undefined;
        } while (cursor);
      },
      get: (identifier: string) =>
        unwrap(raw.GET('/v1/spans/{span_identifier}', { params: { path: { span_identifier: identifier } } })).then((body) => body.data),
    },
    traces: {
      page: (identifier: string, query: TraceQuery = {}) =>
        unwrap(raw.GET('/v1/projects/{project_identifier}/traces', { params: { ...project(identifier), query } })),
      get: (projectIdentifier: string, traceIdentifier: string) =>
        unwrap(
          raw.GET('/v1/projects/{project_identifier}/traces/{trace_identifier}', {
            params: { path: { project_identifier: projectIdentifier, trace_identifier: traceIdentifier } },
          }),
        ).then((body) => body.data),
    },
    annotations: {
      /** Creates or updates span annotations (keyed by span, name and identifier). */
      annotateSpans: (annotations: NonNullable<operations['annotateSpans']['requestBody']>['content']['application/json']['data']) =>
        unwrap(raw.POST('/v1/span_annotations', { body: { data: annotations } })).then((body) => body.data),
      listForSpans: (identifier: string, spanIds: string[], query: Omit<Query<'listSpanAnnotationsBySpanIds'>, 'span_ids'> = {}) =>
        unwrap(
          raw.GET('/v1/projects/{project_identifier}/span_annotations', {
            params: { ...project(identifier), query: { ...query, span_ids: spanIds } },
          }),
        ),
    },
  };
}

export type SightlineClient = ReturnType<typeof createClient>;
