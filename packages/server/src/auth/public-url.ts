/** The server's browser-facing base URL, for links in mails, from configuration only (never a request header). */
import type { Config } from '../config.js';

/** SERVICE_ROOT_URL, else the first trusted origin, else the configured listen address; plus the root path. */
export function publicBaseUrl(config: Pick<Config, 'rootUrl' | 'csrfTrustedOrigins' | 'host' | 'port' | 'hostRootPath'>): string {
  const wildcard = config.host === '0.0.0.0' || config.host === '::';
  const host = wildcard ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
  const origin = config.rootUrl ?? config.csrfTrustedOrigins[0] ?? `http://${host}:${config.port}`;
  return origin + config.hostRootPath;
}
