/** Response shapes of users and API keys; the database shape never leaks past these. */
import type { ApiKeyRecord, ApiKeyWithOwner } from '../../db/repositories/api-keys-repository.js';
import type { UserRecord } from '../../db/repositories/users-repository.js';
import { toGlobalId } from '../shared/global-id.js';

/** A user as every route returns it. */
export function presentUser(user: UserRecord) {
  return {
    id: toGlobalId('User', user.id),
    email: user.email,
    username: user.username,
    role: user.role,
    auth_method: user.authMethod,
    password_needs_reset: user.passwordNeedsReset,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
  };
}

/** An API key without its secret. */
export function presentApiKey(key: ApiKeyRecord) {
  return {
    id: toGlobalId('ApiKey', key.id),
    name: key.name,
    description: key.description,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    last_used_at: key.lastUsedAt,
  };
}

/** A user key with its owner, for the admin list of all user keys. */
export function presentUserApiKey(key: ApiKeyWithOwner) {
  return {
    ...presentApiKey(key),
    user: key.owner ? { id: toGlobalId('User', key.owner.id), username: key.owner.username, email: key.owner.email } : null,
  };
}
