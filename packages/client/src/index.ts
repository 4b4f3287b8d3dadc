/**
 * Typed client for the Sightline REST API. Types come from the server's OpenAPI document
 * (src/generated/api.ts); `raw` exposes every route, the helpers cover the common calls.
 * Reads SERVICE_COLLECTOR_ENDPOINT (base URL) and SERVICE_API_KEY when options leave them out.
 */
import createFetchClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/api.js';
import { type ClientOptions, SightlineError, clientSettings } from './settings.js';
import type { Span } from './types.js';

export type { paths, components, operations };
export type * from './types.js';

export { DEFAULT_BASE_URL, SightlineError, clientSettings, type ClientOptions } from './settings.js';

type Query<Op extends keyof operations> = operations[Op] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type Json<Op extends keyof operations, Status extends number> = operations[Op] extends {
  responses: { [S in Status]: { content: { 'application/json': infer Body } } };
}
  ? Body
  : never;

export type SpanQuery = Query<'getSpans'>;
export type TraceQuery = Query<'listProjectTraces'>;

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
    /** The headers every call sends (authorization included), for callers that make their own requests. */
    headers: { ...headers } as Readonly<Record<string, string>>,
    /** The fetch the client was given, if any. */
    fetch: options.fetch,
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

export * from './experiments/index.js';
