/** CSRF trusted-origins check (docs/auth.md, "Protection against guessing and forgery"). */

/**
 * Whether a request may proceed: with no trusted origins configured everything passes; otherwise
 * the Origin header (or, without it, the Referer's origin) must be trusted or the server's own.
 */
export function isTrustedRequest(
  trustedOrigins: readonly string[],
  ownOrigin: string,
  originHeader: string | undefined,
  refererHeader: string | undefined,
): boolean {
  if (trustedOrigins.length === 0) return true;
  let origin: string;
  if (originHeader !== undefined) {
    if (originHeader.trim() === 'null') return false;
    origin = originOf(originHeader);
  } else if (refererHeader !== undefined) {
    origin = originOf(refererHeader);
  } else {
    return true; // non-browser clients send neither
  }
  return origin !== '' && (origin === ownOrigin || trustedOrigins.includes(origin));
}

function originOf(value: string): string {
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : '';
  } catch {
    return '';
  }
}
