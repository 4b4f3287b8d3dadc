/** Narrowing helpers for handlers whose permission row already guarantees a user. */
import type { FastifyRequest } from 'fastify';
import type { UserPrincipal } from '../../auth/principal.js';
import { ForbiddenError } from '@sightline/common';

/** The calling user; 403 for anything else (the permission table normally prevents reaching here). */
export function requireUser(request: FastifyRequest): UserPrincipal {
  if (request.principal.kind !== 'user') throw new ForbiddenError('this needs a user session or user API key');
  return request.principal;
}

/** The calling user's row id, recorded on what they write; null for system keys and with auth off. */
export function callerUserId(request: FastifyRequest): number | null {
  return request.principal?.kind === 'user' ? request.principal.user.id : null;
}

/** The calling user's row id when they are not an admin (a member); null for admins, system keys and with auth off. */
export function memberUserId(request: FastifyRequest): number | null {
  return request.principal?.kind === 'user' && request.principal.user.role !== 'admin' ? request.principal.user.id : null;
}
