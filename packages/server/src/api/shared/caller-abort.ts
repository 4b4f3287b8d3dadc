/** A request's work (a provider call) stopped when its caller goes away. */
import type { FastifyReply } from 'fastify';

/** Aborts when the connection closes before the answer was sent (a closed tab, a cancelled client). */
export function abortWhenCallerLeaves(reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  return abort.signal;
}
