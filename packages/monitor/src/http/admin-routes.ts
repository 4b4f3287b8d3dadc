/**
 * Admin REST routes for operators (the same actions as `sightline monitor create-space`,
 * `rotate-key` and `list-spaces`), guarded by `Authorization: Bearer <MONITOR_ADMIN_TOKEN>`.
 * Without MONITOR_ADMIN_TOKEN the routes are not registered at all (404).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { secretsEqual } from '../spaces/keys.js';
import { SpaceError, type SpacesService } from '../spaces/spaces-service.js';
import { MonitorHttpError } from './errors.js';
import { parseJsonObject } from './log-route.js';

export interface AdminRoutesOptions {
  spaces: SpacesService;
  adminToken: string;
}

async function refusals<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof SpaceError) throw new MonitorHttpError(error.statusCode, error.message);
    throw error;
  }
}

export async function adminRoutes(app: FastifyInstance, { spaces, adminToken }: AdminRoutesOptions): Promise<void> {
  const guard = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (match === null || !secretsEqual(match[1]!, adminToken)) {
      done(
        new MonitorHttpError(401, 'a valid admin token is required: Authorization: Bearer <MONITOR_ADMIN_TOKEN>', {
          'www-authenticate': 'Bearer',
        }),
      );
      return;
    }
    done();
  };
  const optionalBody = (body: unknown): Record<string, unknown> => (Buffer.isBuffer(body) && body.length > 0 ? parseJsonObject(body) : {});

  app.get('/v1/admin/spaces', { onRequest: guard }, async () => ({ data: await spaces.listSpaces() }));

  app.post('/v1/admin/spaces', { onRequest: guard }, async (request, reply) => {
    const body = parseJsonObject(request.body);
    const issued = await refusals(() => spaces.createSpace(body.name));
    return reply.code(201).send({ data: issued });
  });

  app.post('/v1/admin/spaces/:space_id/rotate-key', { onRequest: guard }, async (request) => {
    const { space_id: spaceId } = request.params as { space_id: string };
    if (!/^\d{1,15}$/.test(spaceId)) throw new MonitorHttpError(404, `no space has the id ${spaceId}`);
    const body = optionalBody(request.body);
    const rotateSpaceKey = body.space_key ?? false;
    if (typeof rotateSpaceKey !== 'boolean') throw new MonitorHttpError(400, 'space_key must be true or false');
    return { data: await refusals(() => spaces.rotateKey(spaceId, { spaceKey: rotateSpaceKey })) };
  });
}
