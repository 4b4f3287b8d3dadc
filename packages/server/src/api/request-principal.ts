/** Narrowing helpers for handlers whose permission row already guarantees a user. */
import type { FastifyRequest } from 'fastify';
import type { UserPrincipal } from '../auth/principal.js';
import { ForbiddenError } from '@sightline/common';

/** The calling user; 403 for anything else (the permission table normally prevents reaching here). */
export function requireUser(request: FastifyRequest): UserPrincipal {
  if (request.principal.kind !== 'user') throw new ForbiddenError('this needs a user session or user API key');
  return request.principal;
}
