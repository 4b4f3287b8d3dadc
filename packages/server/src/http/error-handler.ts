/**
 * The server's error answers: `{"detail": "<sentence>"}` for every failure (docs/api.md, "Errors"),
 * with `errors: [{loc, msg}]` added when a request failed schema validation (422).
 */
import { installErrorHandlers as install } from '@sightline/common';
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
