/**
 * The runner's JSON calls: plain fetch with the client's headers, every call through
 * fetchWithRetry, a non-2xx answer thrown as SightlineError with the server's `detail`.
 */
import { SightlineError } from '../settings.js';
import { fetchWithRetry, type RetryEnvironment, type RetryOptions } from './retry.js';

export interface HttpOptions {
  baseUrl: string;
  headers: Readonly<Record<string, string>>;
  fetch?: typeof globalThis.fetch | undefined;
  retry?: RetryOptions | undefined;
  signal?: AbortSignal | undefined;
  environment?: RetryEnvironment | undefined;
}

/** Sends one JSON request (retried as docs/experiments.md says) and returns the parsed body. */
export type JsonRequest = <T>(method: 'GET' | 'POST', path: string, body?: unknown) => Promise<T>;

/** A JsonRequest bound to one server, credential and abort signal. */
export function createJsonRequest(options: HttpOptions): JsonRequest {
  const fetcher = options.fetch ?? globalThis.fetch;
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  const withBody: Record<string, string> = { ...headers, 'content-type': 'application/json' };
  return async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
    const url = `${options.baseUrl}${path}`;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const response = await fetchWithRetry(
      () => fetcher(url, { method, headers: payload === undefined ? headers : withBody, body: payload, signal: options.signal }),
      options.retry,
      options.signal,
      options.environment,
    );
    const text = await response.text();
    let parsed: unknown = null;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (!response.ok) {
      const detail = parsed !== null && typeof parsed === 'object' && 'detail' in parsed ? (parsed as { detail: unknown }).detail : parsed;
      throw new SightlineError(response.status, detail ?? response.statusText);
    }
    return parsed as T;
  };
}
