/**
 * The browser entry of @sightline/client (`@sightline/client/browser`): the API's named types
 * and a typed fetch client that reads no environment and sends the session cookie, for the web
 * UI and other front ends.
 */
import createFetchClient, {
  type Client,
  type ClientPathsWithMethod,
  createFinalURL,
  createQuerySerializer,
  defaultPathSerializer,
} from 'openapi-fetch';
import type { components, operations, paths } from './generated/api.js';

export type { paths, components, operations };
export type * from './types.js';

export interface BrowserClientOptions {
  /** Base URL of the server, root path included (e.g. `${location.origin}/sightline`). */
  baseUrl: string;
  /** The fetch to use (e.g. one that refreshes the session on a 401); default the global fetch. */
  fetch?: typeof globalThis.fetch;
}

/** A typed client for every route of the API, with the browser's cookies. */
export function createBrowserClient({ baseUrl, fetch }: BrowserClientOptions): Client<paths> {
  return createFetchClient<paths>({
    baseUrl: baseUrl.replace(/\/+$/, ''),
    credentials: 'same-origin',
    ...(fetch ? { fetch } : {}),
  });
}

/** The paths of the API's GET routes. */
export type GetPath = ClientPathsWithMethod<Client<paths>, 'get'>;

/** The path and query parameters of a GET route, as the client's calls take them. */
export type GetParameters<Path extends GetPath> = paths[Path] extends { get: { parameters: infer Parameters } } ? Parameters : never;

/**
 * The URL of a GET route with its parameters, serialized as the client serializes them: for
 * what the browser fetches by itself (a download link), checked against the API like a call.
 */
export function browserUrl<Path extends GetPath>(baseUrl: string, path: Path, parameters: GetParameters<Path>): string {
  return createFinalURL(path, {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    params: parameters as { path?: Record<string, unknown>; query?: Record<string, unknown> },
    querySerializer: createQuerySerializer(),
    pathSerializer: defaultPathSerializer,
  });
}
