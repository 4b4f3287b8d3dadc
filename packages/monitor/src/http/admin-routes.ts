/**
 * Admin REST routes for operators (the same actions as `sightline monitor create-space`,
 * `rotate-key` and `list-spaces`), guarded by `Authorization: Bearer <MONITOR_ADMIN_TOKEN>`.
 * Without MONITOR_ADMIN_TOKEN the routes are not registered at all (404).
 */
import { InvalidInputError, NotFoundError, UnauthenticatedError } from '@sightline/common';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { secretsEqual } from '../spaces/keys.js';
import type { SpacesService } from '../spaces/spaces-service.js';
import { parseJsonObject } from './log-route.js';

export interface AdminRoutesOptions {
  spaces: SpacesService;
  adminToken: string;
}

export async function adminRoutes(app: FastifyInstance, { spaces, adminToken }: AdminRoutesOptions): Promise<void> {
  const guard = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (match === null || !secretsEqual(match[1]!, adminToken)) {
      done(new UnauthenticatedError('a valid admin token is required: Authorization: Bearer <MONITOR_ADMIN_TOKEN>'));
      return;
    }
    done();
  };
  const optionalBody = (body: unknown): Record<string, unknown> => (Buffer.isBuffer(body) && body.length > 0 ? parseJsonObject(body) : {});

  app.get('/v1/admin/spaces', { onRequest: guard }, async () => ({ data: await spaces.listSpaces() }));

  app.post('/v1/admin/spaces', { onRequest: guard }, async (request, reply) => {
    const body = parseJsonObject(request.body);
    const issued = await spaces.createSpace(body.name);
    return reply.code(201).send({ data: issued });
  });

  app.post('/v1/admin/spaces/:space_id/rotate-key', { onRequest: guard }, async (request) => {
    const { space_id: spaceId } = request.params as { space_id: string };
    if (!/^\d{1,15}$/.test(spaceId)) throw new NotFoundError(`no space has the id ${spaceId}`);
    const body = optionalBody(request.body);
    const rotateSpaceKey = body.space_key ?? false;
    if (typeof rotateSpaceKey !== 'boolean') throw new InvalidInputError('space_key must be true or false', true);
    return { data: await spaces.rotateKey(spaceId, { spaceKey: rotateSpaceKey }) };
  });
}
