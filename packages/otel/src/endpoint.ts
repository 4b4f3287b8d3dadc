/** Where spans go: the collector endpoint, always ending in /v1/traces. */

export const DEFAULT_ENDPOINT = 'http://127.0.0.1:6006';

/** The OTLP/HTTP traces URL for a server base URL (or a URL that already names /v1/traces). */
export function tracesUrl(endpoint: string): string {
  const url = new URL(endpoint);
  if (!url.pathname.endsWith('/v1/traces')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/traces`;
  return url.toString();
}
