/** Health, readiness, version and API description routes. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { UnavailableError } from '@sightline/common';
import { PHOENIX_COMPATIBLE_VERSION } from '../../version.js';

/** Resolves when the database answers a trivial statement; rejects otherwise. */
export type ReadinessCheck = () => Promise<void>;

/** How long the readiness probe waits for the database before answering 503. */
export const READINESS_TIMEOUT_MS = 5_000;

/**
 * GET /readyz: `OK` (plain text, as /healthz) when the database answers within READINESS_TIMEOUT_MS,
 * else 503 with Retry-After, so a load balancer stops sending requests to a replica whose
 * database is away while /healthz keeps it alive.
 */
export async function answerReadiness(ready: ReadinessCheck, reply: FastifyReply): Promise<FastifyReply> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), READINESS_TIMEOUT_MS);
  });
  try {
    await Promise.race([ready(), timeout]);
  } catch {
    throw new UnavailableError('not ready: the database does not answer', 5);
  } finally {
    clearTimeout(timer);
  }
  return reply.type('text/plain; charset=utf-8').send('OK');
}

export async function systemRoutes(app: FastifyInstance, { ready }: { ready: ReadinessCheck }) {
  app.get(
    '/healthz',
    { schema: { summary: 'Liveness probe', tags: ['system'], response: { 200: { type: 'string' } } } },
    async (_request, reply) => reply.type('text/plain; charset=utf-8').send('OK'),
  );
  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness probe',
        description: 'OK (plain text) when the database answers; 503 with Retry-After when it does not.',
        tags: ['system'],
        response: { 200: { type: 'string' } },
      },
    },
    async (_request, reply) => answerReadiness(ready, reply),
  );
  app.get(
    '/arize_phoenix_version',
    { schema: { summary: 'Phoenix-compatible server version', tags: ['system'], response: { 200: { type: 'string' } } } },
    async (_request, reply) => reply.type('text/plain; charset=utf-8').send(PHOENIX_COMPATIBLE_VERSION),
  );
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
