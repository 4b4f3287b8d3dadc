/** The per-IP limits of the routes that check a credential or a password. */
import type { FastifyContextConfig } from 'fastify';
import type {} from '@fastify/rate-limit';
import type { Config } from '../../config.js';

/** Per-IP limit on credential-guessing routes (docs/auth.md, "Protection against guessing and forgery"). */
export function authRateLimit(config: Config): FastifyContextConfig {
  return { rateLimit: config.disableRateLimit ? false : { max: 30, timeWindow: 60_000 } };
}

/**
 * The same per-IP limit on requests that carry a password guess: PATCH /v1/user with
 * current_password. Counted after the body is parsed, so renames alone are not limited.
 */
export function passwordGuessRateLimit(config: Config): FastifyContextConfig {
  if (config.disableRateLimit) return { rateLimit: false };
  return {
    rateLimit: {
      max: 30,
      timeWindow: 60_000,
      hook: 'preHandler',
      allowList: (request) => (request.body as { current_password?: unknown } | undefined)?.current_password === undefined,
    },
  };
}
