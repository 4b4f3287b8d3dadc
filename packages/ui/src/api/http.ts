/**
 * The one way the UI talks to the server: JSON in and out, errors as ApiError, and session
 * expiry handled here. On a 401 the request is retried once after a silent POST /auth/refresh;
 * when that fails too, the listeners of `onSessionExpired` send the user to the login page.
 */
import { browserUrl, createBrowserClient, type GetParameters, type GetPath, type paths } from '@sightline/client/browser';
import { serverUrl } from '../lib/root';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Seconds from a Retry-After header (429, 503), when present. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Listener = () => void;
const expiredListeners = new Set<Listener>();

/** Called when the session is gone for good (refresh failed); returns an unsubscribe function. */
export function onSessionExpired(listener: Listener): () => void {
  expiredListeners.add(listener);
  return () => expiredListeners.delete(listener);
}

const baseUrl = `${window.location.origin}${serverUrl('')}`;

/**
 * The typed client without the session refresh, for the sign-in calls themselves (login,
 * logout, the login page's configuration, password reset, the refresh): there a 401 is an
 * answer, not an expired session.
 */
export const sessionlessClient = createBrowserClient({ baseUrl });

let refreshing: Promise<boolean> | null = null;

/** One refresh at a time: concurrent 401s share it. */
export function refreshSession(): Promise<boolean> {
  refreshing ??= sessionlessClient
    .POST('/auth/refresh')
    .then(({ response }) => response.ok)
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | boolean | readonly string[] | undefined | null>;
  signal?: AbortSignal;
  /** For the login and refresh calls themselves: a 401 is an answer, not an expired session. */
  noRefresh?: boolean;
}

export function withQuery(path: string, query: RequestOptions['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, String(item));
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** The ApiError of a failed answer whose body was read (`body` undefined when it was not JSON). */
export function apiError(response: Response, body: unknown): ApiError {
  // Every error body is {"detail": "<sentence>"} (docs/api.md); otherwise keep the status line.
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  const message = typeof detail === 'string' ? detail : `${response.status} ${response.statusText}`;
  const retryAfter = Number(response.headers.get('retry-after'));
  return new ApiError(response.status, message, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
}

async function errorOf(response: Response): Promise<ApiError> {
  return apiError(response, await response.json().catch(() => undefined));
}

function send(path: string, options: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  return fetch(serverUrl(withQuery(path, options.query)), {
    method: options.method ?? 'GET',
    headers,
    body,
    signal: options.signal,
    credentials: 'same-origin',
  });
}

/** Sends a request; on a 401 refreshes the session once and sends it again, and reports a session gone for good. */
async function withSession(send: () => Promise<Response>, noRefresh = false): Promise<Response> {
  let response = await send();
  if (response.status === 401 && !noRefresh) {
    if (await refreshSession()) response = await send();
    if (response.status === 401) {
      for (const listener of expiredListeners) listener();
    }
  }
  return response;
}

/**
 * The typed client of the API (types generated from the server's OpenAPI document), over a
 * fetch that keeps the session alive; `call` unwraps its answers.
 */
export const client = createBrowserClient({
  baseUrl,
  fetch: (input, init) => {
    const request = new Request(input, init);
    return withSession(() => fetch(request.clone()));
  },
});

/**
 * The URL of a GET route with its parameters, for what the browser fetches by itself (the
 * download links): path and parameters are checked like a call's.
 */
export function apiUrl<Path extends GetPath>(path: Path, parameters: GetParameters<Path>): string {
  return browserUrl(baseUrl, path, parameters);
}

const OTLP_TRACES: keyof paths = '/v1/traces';

/** Where OpenTelemetry exporters send traces (OTLP over HTTP), for the setup hints. */
export const collectorUrl = `${baseUrl}${OTLP_TRACES}`;

/**
 * A raw fetch of a server path with the session kept alive, for answers that are not JSON (the
 * playground's server-sent events); the caller reads the body and the status.
 */
export function fetchWithSession(path: string, init: RequestInit): Promise<Response> {
  return withSession(() => fetch(serverUrl(path), { ...init, credentials: 'same-origin' }));
}

/** The ApiError of a failed answer (its JSON `detail` when it has one). */
export function errorOfResponse(response: Response): Promise<ApiError> {
  return errorOf(response);
}

/** The data of a typed client call, or an ApiError for a non-2xx answer. */
export async function call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending;
  if (!response.ok) throw apiError(response, error);
  return data as T;
}

/** Sends the request and returns the parsed JSON body (undefined for 204). */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await withSession(() => send(path, options), options.noRefresh);
  if (!response.ok) throw await errorOf(response);
  if (response.status === 204) return undefined as T;
  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('json')) return (await response.text()) as T;
  return (await response.json()) as T;
}

export const get = <T>(path: string, query?: RequestOptions['query'], signal?: AbortSignal) => api<T>(path, { query, signal });
export const post = <T>(path: string, body?: unknown, options: Omit<RequestOptions, 'method' | 'body'> = {}) =>
  api<T>(path, { ...options, method: 'POST', body });
export const patch = <T>(path: string, body: unknown) => api<T>(path, { method: 'PATCH', body });
export const del = (path: string) => api<void>(path, { method: 'DELETE' });
