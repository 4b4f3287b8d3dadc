/** System and user API keys: creation (key shown once), listing, deletion with the spec's ownership rules. */
import type { ApiKeyRecord, ApiKeysRepository, ApiKeyWithOwner } from '../db/repositories/api-keys-repository.js';
import { InvalidInputError, NotFoundError } from '@sightline/common';
import { generateApiKey, hashApiKey } from './api-key-secrets.js';
import type { Authenticator } from './authenticator.js';
import { mayDeleteUserKey } from './policies.js';
import type { UserPrincipal } from './principal.js';

export interface ApiKeyInput {
  name: string;
  description?: string | null;
  expiresAt?: string | null;
}

export interface CreatedApiKey extends ApiKeyRecord {
  key: string;
}

interface Dependencies {
  apiKeys: ApiKeysRepository;
  authenticator: Authenticator;
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;

/** The API keys service. */
export function createApiKeysService({ apiKeys, authenticator }: Dependencies) {
  const validated = (input: ApiKeyInput, now: Date) => {
    const name = input.name.trim();
    if (name === '' || name.length > 200) throw new InvalidInputError('name must be 1 to 200 characters');
    let expiresAt: string | null = null;
    if (input.expiresAt !== undefined && input.expiresAt !== null) {
      const time = Date.parse(input.expiresAt);
      if (Number.isNaN(time)) throw new InvalidInputError('expires_at must be an ISO 8601 date-time');
      if (time <= now.getTime()) throw new InvalidInputError('expires_at must be in the future');
      expiresAt = new Date(time).toISOString();
    }
    return { name, description: input.description?.trim() || null, expiresAt };
  };

  const create = async (kind: 'system' | 'user', actor: UserPrincipal, input: ApiKeyInput): Promise<CreatedApiKey> => {
    const now = new Date();
    const fields = validated(input, now);
    const key = generateApiKey();
    const record = await apiKeys.insert(
      { kind, userId: kind === 'user' ? actor.user.id : null, createdBy: actor.user.id, keyHash: hashApiKey(key), ...fields },
      now.toISOString(),
    );
    return { ...record, key };
  };

  return {
    createUserKey: (actor: UserPrincipal, input: ApiKeyInput) => create('user', actor, input),
    createSystemKey: (actor: UserPrincipal, input: ApiKeyInput) => create('system', actor, input),
    listOwn: (actor: UserPrincipal): Promise<ApiKeyRecord[]> => apiKeys.listForUser(actor.user.id),
    listSystem: (): Promise<ApiKeyRecord[]> => apiKeys.listSystem(),
    listUserKeys: (limit: number, beforeId?: number): Promise<ApiKeyWithOwner[]> => apiKeys.listUserKeys(limit, beforeId),

    /** Deletes a user key: the owner's own, or anyone's for an admin; another member's key is "not found". */
    async deleteUserKey(actor: UserPrincipal, id: number): Promise<void> {
      const key = await apiKeys.findById(id);
      // Another member's key answers 404, as an unknown one: its existence must not leak.
      const visible = key && key.kind === 'user' && mayDeleteUserKey(actor, key);
      if (!visible) throw new NotFoundError('API key not found');
      await apiKeys.delete(id);
      authenticator.invalidate();
    },

    async deleteSystemKey(id: number): Promise<void> {
      const key = await apiKeys.findById(id);
      if (key?.kind !== 'system') throw new NotFoundError('API key not found');
      await apiKeys.delete(id);
      authenticator.invalidate();
    },
  };
}
