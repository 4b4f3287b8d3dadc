/** Health, version and API description routes. */
import type { FastifyInstance } from 'fastify';
import { PHOENIX_COMPATIBLE_VERSION } from '../../version.js';

export async function systemRoutes(app: FastifyInstance) {
  app.get(
    '/healthz',
    { schema: { summary: 'Liveness probe', tags: ['system'], response: { 200: { type: 'string' } } } },
    async (_request, reply) => reply.type('text/plain; charset=utf-8').send('OK'),
  );
  app.get(
    '/arize_phoenix_version',
    { schema: { summary: 'Phoenix-compatible server version', tags: ['system'], response: { 200: { type: 'string' } } } },
    async (_request, reply) => reply.type('text/plain; charset=utf-8').send(PHOENIX_COMPATIBLE_VERSION),
  );
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
