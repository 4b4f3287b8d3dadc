/**
 * POST /v1/log: authenticate, read and check the body in the contract's order, commit, answer.
 * Most requests never reach this Fastify route: http/log-handler.ts answers them on node:http
 * with the same checks; this route serves the rest (a query string, a Content-Type Fastify must
 * judge, requests while the server closes).
 */
import { InvalidInputError } from '@sightline/common';
import type { FastifyInstance } from 'fastify';
import { checkLogBody, isObject, MESSAGES, MICROS_PER_MS } from '@sightline/monitor-sdk/log';
import { toRecordRow } from '../store/record-rows.js';
import type { RecordQueue } from '../store/record-queue.js';
import type { SpacesService } from '../spaces/spaces-service.js';
import { authenticateHook, grantOf, spaceKeyMatches } from './auth.js';
import { OK_BODY, messageBody } from './errors.js';

export interface LogRouteOptions {
  spaces: SpacesService;
  queue: RecordQueue;
}

/** Content-Type of every answer of the log API. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** The body as a JSON object, or a 400 "invalid JSON body". */
export function parseJsonObject(body: unknown): Record<string, unknown> {
  if (!Buffer.isBuffer(body) || body.length === 0) throw new InvalidInputError(MESSAGES.invalidJson, true);
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidInputError(MESSAGES.invalidJson, true);
  }
  if (!isObject(parsed)) throw new InvalidInputError(MESSAGES.invalidJson, true);
  return parsed;
}

export async function logRoute(app: FastifyInstance, { spaces, queue }: LogRouteOptions): Promise<void> {
  app.post('/v1/log', { onRequest: authenticateHook(spaces) }, async (request, reply) => {
    const grant = grantOf(request);
    const body = parseJsonObject(request.body);
    const nowMs = Date.now();
    const check = checkLogBody(body, { nowMs, spaceKeyMatches: (spaceKey) => spaceKeyMatches(grant, spaceKey) });
    reply.type(JSON_TYPE);
    if (!check.ok) return reply.code(check.status).send(messageBody(check.message));
    // A full queue or an unavailable database throws UnavailableError: 503 with Retry-After.
    await queue.enqueue(toRecordRow(grant.spaceId, check.record, nowMs * MICROS_PER_MS));
    return reply.send(OK_BODY);
  });
}
