/**
 * The one error-handler installer of both services: every failure gets the service's error body,
 * domain errors map to their status once (httpAnswer), Fastify's own client errors map through a
 * table, a database that is away answers 503 with Retry-After, and anything else is logged and
 * answered 500 without internals (docs/architecture.md).
 */
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { DomainError, httpAnswer } from '../errors.js';

/** A status and the message of the answer. */
export type ClientErrorAnswer = readonly [status: number, message: string];

export interface ErrorHandlerOptions {
  /** The JSON body of every error answer (the server's `{"detail"}`, the monitor's `{"message"}`). */
  body(message: string): unknown;
  /** Answers to Fastify's own client errors by their code (FST_ERR_CTP_…). */
  clientErrors: Readonly<Record<string, ClientErrorAnswer | ((request: FastifyRequest) => ClientErrorAnswer)>>;
  /** Answer to a schema validation failure; without it the first message is a 400. */
  validation?(error: FastifyError): { status: number; body: unknown };
  /** Answer to a body that is not JSON (SyntaxError from the JSON parser). */
  malformedJson: ClientErrorAnswer;
  /** Status of an InvalidInputError that is not `malformed` (default 422; the monitor's contract says 400). */
  invalidStatus?: number;
  /** Message of the 500 answer: never the error itself. */
  internalMessage: string;
  /** Answer to a path no route serves; by default 404 `not found: <method> <path>`. */
  notFound?(request: FastifyRequest, reply: FastifyReply): unknown;
  /** Where unexpected errors are logged (with method and path, never the body or headers). */
  logger?: FastifyBaseLogger;
}

/** Installs the error and not-found handlers on the root instance. */
export function installErrorHandlers(app: FastifyInstance, options: ErrorHandlerOptions): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    reply.type('application/json; charset=utf-8');
    if (error instanceof DomainError) {
      const { status, headers } = httpAnswer(error);
      const code = status === 422 && options.invalidStatus !== undefined ? options.invalidStatus : status;
      return reply.code(code).headers(headers).send(options.body(error.message));
    }
    if (error.validation) {
      if (options.validation) {
        const answer = options.validation(error);
        return reply.code(answer.status).send(answer.body);
      }
      return reply.code(400).send(options.body(error.message));
    }
    const entry = error.code ? options.clientErrors[error.code] : undefined;
    if (entry) {
      const [status, message] = typeof entry === 'function' ? entry(request) : entry;
      return reply.code(status).send(options.body(message));
    }
    if (error instanceof SyntaxError && error.statusCode === 400) {
      return reply.code(options.malformedJson[0]).send(options.body(options.malformedJson[1]));
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.code(error.statusCode).send(options.body(error.message));
    }
    const logger = options.logger ?? request.log;
    if (isDatabaseUnavailable(error)) {
      logger.warn({ err: error, method: request.method, url: request.url.split('?')[0] }, 'database unavailable');
      return reply.code(503).header('retry-after', '5').send(options.body('the database is unavailable right now; retry later'));
    }
    logger.error({ err: error, method: request.method, url: request.url.split('?')[0] }, 'unhandled error');
    return reply.code(500).send(options.body(options.internalMessage));
  });
  app.setNotFoundHandler(
    (request, reply) =>
      options.notFound?.(request, reply) ??
      reply
        .code(404)
        .type('application/json; charset=utf-8')
        .send(options.body(`not found: ${request.method} ${request.url.split('?')[0]}`)),
  );
}
