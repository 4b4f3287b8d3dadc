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
 * cookie (the one credential a browser adds by itself to a request another page makes). It
 * passes when the browser says the request comes from the same origin or from the user
 * (`Sec-Fetch-Site: same-origin` or `none`), or when its Origin (else Referer) is one of the
 * server's own origins or a trusted one; `same-site` and `cross-site` pass only from a trusted
 * origin. A page of the same site on another port is another origin: SameSite=Strict cookies do
 * not stop it, this does. A request with none of these headers is not a browser's page (a
 * script with a cookie jar) and passes.
 */
export function isSameOriginRequest(trustedOrigins: readonly string[], ownOrigins: readonly string[], headers: BrowserHeaders): boolean {
  const site = headers.secFetchSite?.trim().toLowerCase();
  if (site === 'same-origin' || site === 'none') return true;
  const origin = requestOrigin(headers.origin, headers.referer);
  // The browser's word wins over a Referer: a page elsewhere only passes when an operator trusts its origin.
  if (site === 'same-site' || site === 'cross-site') return origin !== undefined && origin !== '' && trustedOrigins.includes(origin);
  if (origin === undefined) return true;
  return origin !== '' && (ownOrigins.includes(origin) || trustedOrigins.includes(origin));
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
