/** Spaces and their keys: issue, rotate, list, and resolve an API key on the request path. */
import { ConflictError, InvalidInputError, NotFoundError, TtlCache } from '@sightline/common';
import type { WithTransaction } from '../db/repositories/index.js';
import type { SpacesRepository } from '../db/repositories/spaces-repository.js';
import { formatIsoMicros, nowMicros } from '@sightline/monitor-sdk/log';
import { generateApiKey, generateSpaceKey, hashKey } from './keys.js';

/** What a valid API key grants: its space, and the digest its space key must match. */
export interface KeyGrant {
  spaceId: number;
  spaceKeyHash: Buffer;
  /** The space key once it has matched spaceKeyHash (lives as long as the cached grant). */
  verifiedSpaceKey: Buffer | null;
}

export interface IssuedSpace {
  space_id: string;
  name: string;
  space_key: string;
  api_key: string;
}

export interface RotatedKeys {
  space_id: string;
  name: string;
  api_key: string;
  /** Present when the space key was rotated too. */
  space_key?: string;
}

export interface SpaceSummary {
  space_id: string;
  name: string;
  created_at: string;
  active_api_keys: number;
}

/** How long a key check is cached: a revocation elsewhere is seen within this time. */
export const KEY_CACHE_TTL_MS = 5_000;
export const MAX_SPACE_NAME_LENGTH = 200;

export class SpacesService {
  private readonly grants = new TtlCache<KeyGrant | null>(KEY_CACHE_TTL_MS);

  /** `withTransaction` binds the repositories to one transaction (writes of several rows). */
  constructor(
    private readonly spaces: SpacesRepository,
    private readonly withTransaction: WithTransaction,
  ) {}

  /** Creates a space with one API key; the keys are returned once and only their hashes are kept. */
  async createSpace(rawName: unknown): Promise<IssuedSpace> {
    const name = spaceName(rawName);
    const spaceKey = generateSpaceKey();
    const apiKey = generateApiKey();
    const now = nowMicros();
    const id = await this.withTransaction(async ({ spaces }) => {
      const spaceId = await spaces.insertSpace(name, hashKey(spaceKey), now);
      await spaces.insertApiKey(spaceId, hashKey(apiKey), now);
      return spaceId;
    });
    return { space_id: String(id), name, space_key: spaceKey, api_key: apiKey };
  }

  /**
   * Issues a new API key for a space (by id, or by a name only one space has) and revokes the
   * previous ones; with `spaceKey` the space key is replaced too.
   */
  async rotateKey(space: string | number, options: { spaceKey?: boolean } = {}): Promise<RotatedKeys> {
    const found = await this.findSpace(space);
    const apiKey = generateApiKey();
    const spaceKey = options.spaceKey ? generateSpaceKey() : null;
    const now = nowMicros();
    await this.withTransaction(async ({ spaces }) => {
      await spaces.revokeApiKeys(found.id, now);
      await spaces.insertApiKey(found.id, hashKey(apiKey), now);
      if (spaceKey !== null) await spaces.setSpaceKeyHash(found.id, hashKey(spaceKey));
    });
    this.grants.clear();
    return { space_id: String(found.id), name: found.name, api_key: apiKey, ...(spaceKey !== null && { space_key: spaceKey }) };
  }

  async listSpaces(): Promise<SpaceSummary[]> {
    const rows = await this.spaces.listWithKeyCounts();
    return rows.map((row) => ({
      space_id: String(row.id),
      name: row.name,
      created_at: formatIsoMicros(row.createdAt),
      active_api_keys: row.activeApiKeys,
    }));
  }

  /**
   * The grant of an API key from the in-memory cache, if known there: a grant, null (known
   * invalid), or undefined. Keyed by the presented key, so the hot path skips hashing.
   */
  cachedGrant(apiKey: string): KeyGrant | null | undefined {
    return this.grants.get(apiKey);
  }

  /** Looks an API key up by its hash (and caches the answer for a few seconds). */
  async resolveApiKey(apiKey: string): Promise<KeyGrant | null> {
    const cached = this.grants.get(apiKey);
    if (cached !== undefined) return cached;
    const key = await this.spaces.findActiveApiKey(hashKey(apiKey));
    const grant =
      key === null ? null : { spaceId: key.spaceId, spaceKeyHash: Buffer.from(key.spaceKeyHash, 'hex'), verifiedSpaceKey: null };
    this.grants.set(apiKey, grant);
    return grant;
  }

  private async findSpace(space: string | number): Promise<{ id: number; name: string }> {
    const text = String(space).trim();
    if (text === '') throw new InvalidInputError('give the space id or name');
    if (/^\d{1,15}$/.test(text)) {
      const found = await this.spaces.findById(Number(text));
      if (found === null) throw new NotFoundError(`no space has the id ${text}`);
      return found;
    }
    const named = await this.spaces.listByName(text, 2);
    if (named.length === 0) throw new NotFoundError(`no space is named "${text}"`);
    if (named.length > 1) throw new ConflictError(`several spaces are named "${text}"; give the space id instead`);
    return named[0]!;
  }
}

function spaceName(raw: unknown): string {
  if (typeof raw !== 'string' || raw.trim() === '') throw new InvalidInputError('the space name must be a non-empty string');
  const name = raw.trim();
  if (name.length > MAX_SPACE_NAME_LENGTH)
    throw new InvalidInputError(`the space name must be at most ${MAX_SPACE_NAME_LENGTH} characters long`);
  if (!name.isWellFormed() || /[\u0000-\u001f\u007f]/.test(name))
    throw new InvalidInputError('the space name must not contain control characters');
  return name;
}
