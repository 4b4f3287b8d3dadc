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

/** An answer: status, extra headers (Retry-After, WWW-Authenticate) and the JSON body. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** The options errorAnswer needs (a subset of ErrorHandlerOptions). */
export type ErrorAnswerOptions = Pick<ErrorHandlerOptions, 'body' | 'invalidStatus' | 'internalMessage' | 'logger'>;

/** The answer to a domain error, with the service's status for invalid input. */
function domainAnswer(error: DomainError, options: ErrorAnswerOptions): ErrorAnswer {
  const { status, headers } = httpAnswer(error);
  const code = status === 422 && options.invalidStatus !== undefined ? options.invalidStatus : status;
  return { status: code, headers, body: options.body(error.message) };
}

/** The answer to an error that is neither a domain error nor a client error: the database is away (503), else a bug (500, logged). */
function serverFaultAnswer(
  error: unknown,
  options: ErrorAnswerOptions,
  logger: FastifyBaseLogger,
  method: string,
  url: string,
): ErrorAnswer {
  if (isDatabaseUnavailable(error)) {
    logger.warn({ err: error, method, url: url.split('?')[0] }, 'database unavailable');
    return { status: 503, headers: { 'retry-after': '5' }, body: options.body('the database is unavailable right now; retry later') };
  }
  logger.error({ err: error, method, url: url.split('?')[0] }, 'unhandled error');
  return { status: 500, headers: {}, body: options.body(options.internalMessage) };
}

/**
 * The answer installErrorHandlers gives to an error a handler threw, for handlers that answer on
 * node:http directly (the monitor's POST /v1/log): domain errors by their kind, an absent database
 * 503, anything else 500 (logged with method and path, never the body).
 */
export function errorAnswer(
  error: unknown,
  options: ErrorAnswerOptions & { logger: FastifyBaseLogger },
  method: string,
  url: string,
): ErrorAnswer {
  if (error instanceof DomainError) return domainAnswer(error, options);
  return serverFaultAnswer(error, options, options.logger, method, url);
}

/** Installs the error and not-found handlers on the root instance. */
export function installErrorHandlers(app: FastifyInstance, options: ErrorHandlerOptions): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    reply.type('application/json; charset=utf-8');
    if (error instanceof DomainError) {
      const answer = domainAnswer(error, options);
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
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
    const answer = serverFaultAnswer(error, options, options.logger ?? request.log, request.method, request.url);
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
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
