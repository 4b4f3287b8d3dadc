/**
 * The one way the UI talks to the server: JSON in and out, errors as ApiError, and session
 * expiry handled here. On a 401 the request is retried once after a silent POST /auth/refresh;
 * when that fails too, the listeners of `onSessionExpired` send the user to the login page.
 */
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

let refreshing: Promise<boolean> | null = null;

/** One refresh at a time: concurrent 401s share it. */
export function refreshSession(): Promise<boolean> {
  refreshing ??= fetch(serverUrl('/auth/refresh'), { method: 'POST', credentials: 'same-origin' })
    .then((response) => response.ok)
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

async function errorOf(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = (await response.json()) as { detail?: unknown };
    if (typeof body.detail === 'string') message = body.detail;
    else if (Array.isArray(body.detail)) {
      message = body.detail
        .map((item: { loc?: unknown[]; msg?: string }) =>
          [item.loc?.filter((part) => part !== 'body').join('.'), item.msg].filter(Boolean).join(': '),
        )
        .join('; ');
    }
  } catch {
    // not JSON: keep the status line
  }
  const retryAfter = Number(response.headers.get('retry-after'));
  return new ApiError(response.status, message, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
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

/** Sends the request and returns the parsed JSON body (undefined for 204). */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  let response = await send(path, options);
  if (response.status === 401 && !options.noRefresh) {
    if (await refreshSession()) response = await send(path, options);
    if (response.status === 401) {
      for (const listener of expiredListeners) listener();
    }
  }
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
