/**
 * Answers sent before the request's body was read whole close the connection. A refusal can come
 * while the body is still arriving (an upload failing at its first line, a body over the limit sent
 * without a length): the rest of it then stays on the connection, where Node does not drain a body
 * a parser began to read, and the next request sent on the kept-alive connection would never be
 * answered. Closing costs the client one reconnect.
 */
import type { FastifyInstance } from 'fastify';

/** Adds the hook to the root instance, so that every scope, error and 404 gets it. */
export function closeAfterUnfinishedBodies(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    if (!request.raw.complete) reply.header('connection', 'close');
  });
}
