/**
 * Object-level rules: who may do what to a particular user or key. The permission table
 * (permissions.ts) decides who may call a route at all; these decide, once the target is known,
 * and services call them. Each returns a boolean so the caller picks the answer the contract
 * wants (403, or 404 where existence must not leak).
 */
import type { AuthUser, UserPrincipal } from './principal.js';

/** Fetch Other User's Info: an admin reads anyone; a member only themself. */
export function mayReadUser(actor: UserPrincipal, userId: number): boolean {
  return actor.user.role === 'admin' || actor.user.id === userId;
}

/** Nobody deletes themself (the server would lose the session doing it). */
export function mayDeleteUser(actor: UserPrincipal, userId: number): boolean {
  return actor.user.id !== userId;
}

/** Nobody changes their own role (an admin cannot demote themself by accident). */
export function mayChangeRoleOf(actor: UserPrincipal, userId: number): boolean {
  return actor.user.id !== userId;
}

/** Delete Own User API Keys; Delete Other's User API Keys: the owner, or an admin. */
export function mayDeleteUserKey(actor: UserPrincipal, key: { userId: number | null }): boolean {
  return key.userId === actor.user.id || actor.user.role === 'admin';
}

/** Only a member's own username may change while a password change is pending (session only). */
export function mayRenameDuringPasswordReset(actor: UserPrincipal, passwordNeedsReset: boolean): boolean {
  return !(passwordNeedsReset && actor.via === 'session');
}

/**
 * Reviewing an annotation queue's items (next, submit, skip, release; docs/annotation-queues.md):
 * an admin, or a user the queue names as a reviewer. Managing the queue is for every member
 * (the permission table); the annotation-queues service calls this with the queue's reviewers.
 */
export function mayReviewQueue(actor: Pick<AuthUser, 'id' | 'role'>, queue: { reviewerIds: readonly number[] }): boolean {
  return actor.role === 'admin' || queue.reviewerIds.includes(actor.id);
}
