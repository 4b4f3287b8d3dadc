/** Password recovery by email: ask for a link, then set a new password with it. */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../../config.js';
import type { PasswordResetService } from '../../auth/password-reset-service.js';
import { authRateLimit } from '../shared/rate-limits.js';
import { NoContent } from './auth-schemas.js';
import { errors } from '../shared/schemas.js';

export async function passwordResetRoutes(instance: FastifyInstance, { config, resets }: { config: Config; resets: PasswordResetService }) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['auth'];

  app.post(
    '/auth/password-reset-email',
    {
      config: authRateLimit(config),
      schema: {
        tags,
        summary: 'Mail a password reset link (204 whether or not the email is known)',
        operationId: 'requestPasswordReset',
        response: {
          204: NoContent('Accepted (a mail is sent only to an existing local user)'),
          503: Type.Object({ detail: Type.String() }, { description: 'SMTP is not configured' }),
          ...errors(422, 429),
        },
        body: Type.Object({ email: Type.Unknown() }),
      },
    },
    async (request, reply) => {
      resets.requestReset(request.body.email);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/auth/password-reset',
    {
      config: authRateLimit(config),
      schema: {
        tags,
        summary: 'Set a new password with a mailed token; ends every session of the user',
        operationId: 'resetPassword',
        response: { 204: NoContent('Password changed; every session of the user ended'), ...errors(422, 429) },
        body: Type.Object({ token: Type.Unknown(), password: Type.Unknown() }),
      },
    },
    async (request, reply) => {
      await resets.resetPassword(request.body.token, request.body.password);
      return reply.code(204).send(null);
    },
  );
}
