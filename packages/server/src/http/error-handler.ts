/**
 * The server's error answers: `{"detail": "<sentence>"}` for every failure (docs/api.md, "Errors"),
 * with `errors: [{loc, msg}]` added when a request failed schema validation (422).
 */
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { API_CONTENT_SECURITY_POLICY, installErrorHandlers as install } from '@sightline/common';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** One entry per schema violation: where (`["body", "user", "email"]`) and what. */
export interface ValidationIssue {
  loc: string[];
  msg: string;
}

/** Where a value was, in the words of Phoenix's (FastAPI's) 422 bodies. */
const LOCATIONS: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** The 422 answer to a schema validation failure: one sentence naming every field, and the list. */
export function validationAnswer(error: FastifyError): { detail: string; errors: ValidationIssue[] } {
  const errors = (error.validation ?? []).map((issue) => {
    const path = issue.instancePath.split('/').filter(Boolean);
    const missing = (issue.params as { missingProperty?: unknown } | undefined)?.missingProperty;
    if (typeof missing === 'string') path.push(missing);
    // An enum failure lists the values allowed, so that the answer says what to send instead.
    const allowed = (issue.params as { allowedValues?: unknown } | undefined)?.allowedValues;
    const msg = issue.message ?? 'invalid value';
    return {
      loc: [LOCATIONS[error.validationContext ?? 'body'] ?? 'body', ...path],
      msg: issue.keyword === 'enum' && Array.isArray(allowed) ? `${msg}: ${allowed.map((value) => JSON.stringify(value)).join(', ')}` : msg,
    };
  });
  const detail = errors.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; ') || 'the request is not valid';
  return { detail, errors };
}

/** Installs the error and not-found handlers on the root instance; `notFound` may answer first (the UI's pages). */
export function installErrorHandlers(
  app: FastifyInstance,
  notFound?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined,
): void {
  install(app, {
    body: (detail) => ({ detail }),
    clientErrors: {
      FST_ERR_CTP_BODY_TOO_LARGE: [413, 'request body is too large'],
      FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'Content-Length does not match the body'],
      FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'the JSON body is empty'],
      FST_ERR_CTP_INVALID_JSON_BODY: [400, 'the body is not valid JSON'],
      FST_ERR_CTP_EMPTY_TYPE: [415, 'Content-Type header is empty'],
      FST_ERR_CTP_INVALID_TYPE: [415, 'Content-Type header is invalid'],
      FST_ERR_CTP_INVALID_MEDIA_TYPE: (request) => {
        const type = request.headers['content-type'];
        return [415, type ? `unsupported content type "${type}"` : 'the request has a body but no Content-Type header'];
      },
    },
    validation: (error) => ({ status: 422, body: validationAnswer(error) }),
    malformedJson: [400, 'the body is not valid JSON'],
    internalMessage: 'internal server error',
    notFound,
  });
}

/** Longest path parameter the router accepts (a 512-character session id, base64-encoded, fits). */
export const MAX_PARAM_LENGTH = 2048;

/**
 * The router's own refusals (a path that is not valid percent-encoding, a parameter longer than
 * MAX_PARAM_LENGTH) answered in the API's error shape instead of Fastify's: Fastify's
 * `frameworkErrors` option. These replies skip the hooks, so the security headers are set here.
 */
export function frameworkErrorsHandler(setHeaders: (request: FastifyRequest, reply: FastifyReply) => void) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const [status, detail] =
      error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? [414, `a path parameter is longer than ${MAX_PARAM_LENGTH} characters`]
        : error.code === 'FST_ERR_BAD_URL'
          ? [400, 'the path is not valid: a percent-encoded part is not UTF-8']
          : [400, 'the request is not valid'];
    setHeaders(request, reply);
    void reply.code(status).type('application/json; charset=utf-8').send({ detail });
  };
}

/**
 * Requests Node's HTTP parser refuses (headers over its 16 KiB limit, a malformed request line, a
 * request that never finished) never reach a route: answer them in the API's error shape, with the
 * headers every answer carries, and close the connection, as Fastify's own handler does.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'the request headers are too large (16 KiB at most)']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'the request took too long to arrive']
        : [400, 'malformed HTTP request'];
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\n` +
      `Content-Security-Policy: ${API_CONTENT_SECURITY_POLICY}\r\nConnection: close\r\n\r\n${body}`,
  );
}
