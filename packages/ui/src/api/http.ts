/**
 * The one way the UI talks to the server: the typed client generated from the server's OpenAPI
 * document (@sightline/client), so every path, parameter, body and answer is checked by the
 * compiler; errors as ApiError, and session expiry handled here. On a 401 the request is retried
 * once after a silent POST /auth/refresh; when that fails too, the listeners of
 * `onSessionExpired` send the user to the login page. A form with a file goes by `sendForm`,
 * which reports the upload's progress, with the same session handling. No other module calls fetch or spells an
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

/** The POST routes without path parameters that answer JSON: where `sendForm` may send a form. */
export type FormPath = {
  [Path in keyof paths]: paths[Path] extends {
    parameters: { path?: never };
    post: { responses: { 200: { content: { 'application/json': unknown } } } };
  }
    ? Path
    : never;
}[keyof paths];

/** The JSON answer (200) of a form route. */
export type FormAnswer<Path extends FormPath> = paths[Path] extends {
  post: { responses: { 200: { content: { 'application/json': infer Answer } } } };
}
  ? Answer
  : never;

/** How much of a form's body the browser has sent; `total` is 0 while it is not known. */
export interface FormProgress {
  sent: number;
  total: number;
}

/** The headers of an XMLHttpRequest's answer, as a fetch Response has them. */
function headersOf(request: XMLHttpRequest): Headers {
  const headers = new Headers();
  for (const line of request
    .getAllResponseHeaders()
    .trim()
    .split(/[\r\n]+/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return headers;
}

/** One XMLHttpRequest POST of the form, its answer as a Response. */
function postForm(
  url: string,
  form: FormData,
  onProgress: ((progress: FormProgress) => void) | undefined,
  signal: AbortSignal | undefined,
) {
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const request = new XMLHttpRequest();
    request.open('POST', url);
    request.upload.onprogress = (event) => onProgress?.({ sent: event.loaded, total: event.lengthComputable ? event.total : 0 });
    request.onload = () =>
      resolve(
        new Response(request.status === 204 ? null : request.responseText, {
          status: request.status,
          statusText: request.statusText,
          headers: headersOf(request),
        }),
      );
    request.onerror = () => reject(new TypeError('The server could not be reached: the upload did not finish.'));
    request.onabort = () => reject(signal?.reason ?? new DOMException('The upload was cancelled.', 'AbortError'));
    signal?.addEventListener('abort', () => request.abort(), { once: true });
    request.send(form);
  });
}

/**
 * Sends a form (a file and its fields) to a POST route and answers like `call`. It goes by
 * XMLHttpRequest, the browser's one request API that reports how much of the body has been
 * sent (fetch does not), so that a big file shows its progress; the browser reads the file from
 * disk as it sends it, never whole into memory (docs/ui.md, "Datasets"). A 401 refreshes the
 * session and sends the form again, as every other call does.
 */
export async function sendForm<Path extends FormPath>(
  path: Path,
  form: FormData,
  options: { onProgress?: (progress: FormProgress) => void; signal?: AbortSignal } = {},
): Promise<FormAnswer<Path>> {
  const response = await withSession(() => postForm(`${baseUrl}${path}`, form, options.onProgress, options.signal));
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON (a proxy's error page): apiError keeps the status line.
  }
  if (!response.ok) throw apiError(response, body);
  return body as FormAnswer<Path>;
}

const OTLP_TRACES: keyof paths = '/v1/traces';

/** Where OpenTelemetry exporters send traces (OTLP over HTTP), for the setup hints. */
export const collectorUrl = `${baseUrl}${OTLP_TRACES}`;
