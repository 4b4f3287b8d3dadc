/** One error handler for every route: `{"detail": ...}` bodies, 4xx for client faults, no leaked internals. */
import type { FastifyError, FastifyInstance } from 'fastify';
import { HttpError } from './errors.js';

const CLIENT_ERRORS: Record<string, [number, (error: FastifyError) => string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, () => 'request body is too large'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, () => 'Content-Length does not match the body'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, () => 'the JSON body is empty'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, () => 'the body is not valid JSON'],
  FST_ERR_CTP_EMPTY_TYPE: [415, () => 'Content-Type header is empty'],
  FST_ERR_CTP_INVALID_TYPE: [415, () => 'Content-Type header is invalid'],
};

/** Installs the error and not-found handlers on the root instance. */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) {
      return reply.code(error.statusCode).headers(error.headers).send({ detail: error.detail });
    }
    if (error.validation) {
      const detail = error.validation.map((issue) => ({
        loc: [error.validationContext ?? 'body', ...issue.instancePath.split('/').filter(Boolean)],
        msg: issue.message ?? 'invalid value',
      }));
      return reply.code(422).send({ detail });
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      const type = request.headers['content-type'];
      return reply
        .code(415)
        .send({ detail: type ? `unsupported content type "${type}"` : 'the request has a body but no Content-Type header' });
    }
    const known = error.code ? CLIENT_ERRORS[error.code] : undefined;
    if (known) return reply.code(known[0]).send({ detail: known[1](error) });
    if (error instanceof SyntaxError && error.statusCode === 400) {
      return reply.code(400).send({ detail: 'the body is not valid JSON' });
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send({ detail: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({ detail: 'internal server error' });
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send({ detail: `not found: ${request.method} ${request.url.split('?')[0]}` }));
}
