/**
 * The path prefix the server runs under (SERVICE_HOST_ROOT_PATH), e.g. "" or "/sightline".
 * The server writes it into index.html as `window.__SIGHTLINE_ROOT__` (and a matching
 * `<base href>`), so one build works under any root path. Every link, asset and API call uses it.
 */
declare global {
  interface Window {
    __SIGHTLINE_ROOT__?: string;
  }
}

function detectRoot(): string {
  const injected = window.__SIGHTLINE_ROOT__;
  if (typeof injected === 'string') return injected.replace(/\/+$/, '');
  return '';
}

export const ROOT_PATH = detectRoot();

/** A server URL (API call, OAuth2 login, …) for a path that starts with `/`. */
export function serverUrl(path: string): string {
  return `${ROOT_PATH}${path}`;
}
