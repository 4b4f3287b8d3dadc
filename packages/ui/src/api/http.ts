/**
 * The one way the UI talks to the server: the typed client generated from the server's OpenAPI
 * document (@sightline/client), so every path, parameter, body and answer is checked by the
 * compiler; errors as ApiError, and session expiry handled here. On a 401 the request is retried
 * once after a silent POST /auth/refresh; when that fails too, the listeners of
 * `onSessionExpired` send the user to the login page. No other module calls fetch or spells an
 * API path outside a typed call (packages/ui/test/unit/client-only.test.ts).
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
function refreshSession(): Promise<boolean> {
  refreshing ??= sessionlessClient
    .POST('/auth/refresh')
    .then(({ response }) => response.ok)
    .catch(() => false)
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

/** Sends a request; on a 401 refreshes the session once and sends it again, and reports a session gone for good. */
async function withSession(send: () => Promise<Response>): Promise<Response> {
  let response = await send();
  if (response.status === 401) {
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

/** The ApiError of a failed answer, from its body as the client read it (JSON, else its text). */
export function apiError(response: Response, body: unknown): ApiError {
  // Every error body is {"detail": "<sentence>"} (docs/api.md); otherwise keep the status line.
  const detail = (body as { detail?: unknown } | undefined)?.detail;
  const message = typeof detail === 'string' ? detail : `${response.status} ${response.statusText}`;
  const retryAfter = Number(response.headers.get('retry-after'));
  return new ApiError(response.status, message, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
}

/** The data of a typed client call, or an ApiError for a non-2xx answer. */
export async function call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending;
  if (!response.ok) throw apiError(response, error);
  return data as T;
}

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
