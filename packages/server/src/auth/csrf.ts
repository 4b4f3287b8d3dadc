/** CSRF checks (docs/auth.md, "Protection against guessing and forgery"). */

/**
 * The trusted-origins check, when SERVICE_CSRF_TRUSTED_ORIGINS is set: every request's Origin
 * header (or, without it, the Referer's origin) must be trusted or one of the server's own.
 */
export function isTrustedRequest(
  trustedOrigins: readonly string[],
  ownOrigins: readonly string[],
  originHeader: string | undefined,
  refererHeader: string | undefined,
): boolean {
  if (trustedOrigins.length === 0) return true;
  const origin = requestOrigin(originHeader, refererHeader);
  if (origin === undefined) return true; // non-browser clients send neither
  return origin !== '' && (ownOrigins.includes(origin) || trustedOrigins.includes(origin));
}

export interface BrowserHeaders {
  origin: string | undefined;
  referer: string | undefined;
  /** Sec-Fetch-Site: set by the browser, never by a page's script. */
  secFetchSite: string | undefined;
}

/**
 * The check that is always on for a state-changing request whose credential is the session
 * cookie (the one credential a browser adds by itself to a request another page makes): the
 * browser's own word, `Sec-Fetch-Site`, which no page's script can set. `same-site` and
 * `cross-site` pass only from a trusted origin; `same-origin`, `none` (the user's own
 * navigation) and a request without the header pass. A page of the same site on another port is
 * same-site: SameSite=Strict cookies do not stop it, this does. Origin and Referer are not read
 * here: without trusted origins the observability-auth spec leaves them unvalidated
 * (SERVICE_CSRF_TRUSTED_ORIGINS), and with them isTrustedRequest checks them on every request.
 */
export function isSameOriginRequest(trustedOrigins: readonly string[], _ownOrigins: readonly string[], headers: BrowserHeaders): boolean {
  const site = headers.secFetchSite?.trim().toLowerCase();
  if (site !== 'same-site' && site !== 'cross-site') return true;
  const origin = requestOrigin(headers.origin, headers.referer);
  return origin !== undefined && origin !== '' && trustedOrigins.includes(origin);
}

/** The Origin header's origin, else the Referer's; '' when unreadable or opaque (`null`); undefined without either. */
function requestOrigin(originHeader: string | undefined, refererHeader: string | undefined): string | undefined {
  if (originHeader !== undefined) return originHeader.trim() === 'null' ? '' : originOf(originHeader);
  if (refererHeader !== undefined) return originOf(refererHeader);
  return undefined;
}

function originOf(value: string): string {
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : '';
  } catch {
    return '';
  }
}
