/** Where the client connects and how it authenticates, and the error every failed call throws. */

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
