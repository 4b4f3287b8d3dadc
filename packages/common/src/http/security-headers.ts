/**
 * Security headers of every answer of both services (docs/security.md, "Headers"): API answers
 * forbid any content and any framing; a page that sets its own policy (the server's UI page, the
 * API docs) keeps it. HSTS is sent only where HTTPS is certain: a TLS socket, or a public URL
 * (the server's SERVICE_ROOT_URL) naming an https origin, as when TLS ends at a proxy.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Policy of answers that are data, never a document: nothing may load, nothing may frame them. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** Policy of the API docs page (swagger-ui: its own scripts and styles, data: images, calls to the API). */
export const DOCS_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/**
 * The headers of an API answer over plain HTTP, in the order the setter adds them: for handlers
 * that answer on node:http directly, outside Fastify's hooks (the monitor's POST /v1/log).
 */
export const API_SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'content-security-policy': API_CONTENT_SECURITY_POLICY,
} as const;

/** One year with subdomains, the value OWASP ASVS 14.4.5 names. */
const HSTS = 'max-age=31536000; includeSubDomains';

export interface SecurityHeaderOptions {
  /** The public URL of the service (SERVICE_ROOT_URL); an https one turns HSTS on. */
  publicUrl?: string | null;
}

/** Sets the headers on one reply; for answers that bypass the hooks (the router's own refusals). */
export function securityHeaderSetter(options: SecurityHeaderOptions = {}): (request: FastifyRequest, reply: FastifyReply) => void {
  const publicHttps = options.publicUrl?.startsWith('https:') ?? false;
  return (request, reply) => {
    reply.header('x-content-type-options', API_SECURITY_HEADERS['x-content-type-options']);
    reply.header('x-frame-options', API_SECURITY_HEADERS['x-frame-options']);
    if (!reply.hasHeader('referrer-policy')) reply.header('referrer-policy', API_SECURITY_HEADERS['referrer-policy']);
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', API_CONTENT_SECURITY_POLICY);
    if ((publicHttps || request.protocol === 'https') && !reply.hasHeader('strict-transport-security')) {
      reply.header('strict-transport-security', HSTS);
    }
    reply.removeHeader('x-powered-by');
  };
}

/** Adds the hook to the root instance (before any plugin, so every scope, error and 404 gets the headers). */
export function securityHeaders(app: FastifyInstance, options: SecurityHeaderOptions = {}): void {
  const set = securityHeaderSetter(options);
  app.addHook('onSend', async (request, reply) => set(request, reply));
}
