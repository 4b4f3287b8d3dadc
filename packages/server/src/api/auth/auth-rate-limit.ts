/** The per-IP limit of the routes that check a credential. */
import type { FastifyContextConfig } from 'fastify';
import type {} from '@fastify/rate-limit';
import type { Config } from '../../config.js';

/** Per-IP limit on credential-guessing routes (docs/auth.md, "Protection against guessing and forgery"). */
export function authRateLimit(config: Config): FastifyContextConfig {
  return { rateLimit: config.disableRateLimit ? false : { max: 30, timeWindow: 60_000 } };
}
