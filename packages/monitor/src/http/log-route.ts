/** POST /v1/log: authenticate, read and check the body in the contract's order, commit, answer. */
import type { FastifyInstance } from 'fastify';
import { MICROS_PER_MS } from '../log/time.js';
import { checkLogBody, isObject, MESSAGES } from '../log/validate.js';
import { toRecordRow } from '../store/record-rows.js';
import { QueueFullError, type WriteQueue } from '../store/write-queue.js';
import type { SpacesService } from '../spaces/spaces-service.js';
import { authenticateHook, grantOf, spaceKeyMatches } from './auth.js';
import { MonitorHttpError, OK_BODY, messageBody } from './errors.js';

export interface LogRouteOptions {
  spaces: SpacesService;
  queue: WriteQueue;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** The body as a JSON object, or a 400 "invalid JSON body". */
export function parseJsonObject(body: unknown): Record<string, unknown> {
  if (!Buffer.isBuffer(body) || body.length === 0) throw new MonitorHttpError(400, MESSAGES.invalidJson);
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new MonitorHttpError(400, MESSAGES.invalidJson);
  }
  if (!isObject(parsed)) throw new MonitorHttpError(400, MESSAGES.invalidJson);
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
    try {
      await queue.enqueue(toRecordRow(grant.spaceId, check.record, nowMs * MICROS_PER_MS));
    } catch (error) {
      if (error instanceof QueueFullError) {
        throw new MonitorHttpError(503, error.message, { 'retry-after': String(error.retryAfterSeconds) });
      }
      throw error;
    }
    return reply.send(OK_BODY);
  });
}
