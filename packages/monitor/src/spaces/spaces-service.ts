/** Spaces and their keys: issue, rotate, list, and resolve an API key on the request path. */
import { ConflictError, InvalidInputError, NotFoundError, TtlCache } from '@sightline/common';
import type { MonitorDatabase } from '../db/database.js';
import { formatIsoMicros, nowMicros } from '../log/time.js';
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

  constructor(private readonly database: MonitorDatabase) {}

  /** Creates a space with one API key; the keys are returned once and only their hashes are kept. */
  async createSpace(rawName: unknown): Promise<IssuedSpace> {
    const name = spaceName(rawName);
    const spaceKey = generateSpaceKey();
    const apiKey = generateApiKey();
    const now = nowMicros();
    const id = await this.database.db.transaction().execute(async (trx) => {
      const space = await trx
        .insertInto('monitor_spaces')
        .values({ name, space_key_hash: hashKey(spaceKey), created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('monitor_api_keys')
        .values({ space_id: space.id, key_hash: hashKey(apiKey), created_at: now })
        .execute();
      return Number(space.id);
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
    await this.database.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('monitor_api_keys')
        .set({ revoked_at: now })
        .where('space_id', '=', found.id)
        .where('revoked_at', 'is', null)
        .execute();
      await trx
        .insertInto('monitor_api_keys')
        .values({ space_id: found.id, key_hash: hashKey(apiKey), created_at: now })
        .execute();
      if (spaceKey !== null)
        await trx
          .updateTable('monitor_spaces')
          .set({ space_key_hash: hashKey(spaceKey) })
          .where('id', '=', found.id)
          .execute();
    });
    this.grants.clear();
    return { space_id: String(found.id), name: found.name, api_key: apiKey, ...(spaceKey !== null && { space_key: spaceKey }) };
  }

  async listSpaces(): Promise<SpaceSummary[]> {
    const rows = await this.database.db
      .selectFrom('monitor_spaces as s')
      .leftJoin('monitor_api_keys as k', (join) => join.onRef('k.space_id', '=', 's.id').on('k.revoked_at', 'is', null))
      .select((eb) => ['s.id', 's.name', 's.created_at', eb.fn.count<number>('k.id').as('keys')])
      .groupBy(['s.id', 's.name', 's.created_at'])
      .orderBy('s.id')
      .execute();
    return rows.map((row) => ({
      space_id: String(row.id),
      name: row.name,
      created_at: formatIsoMicros(Number(row.created_at)),
      active_api_keys: Number(row.keys),
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
    const keyHash = hashKey(apiKey);
    const row = await this.database.db
      .selectFrom('monitor_api_keys as k')
      .innerJoin('monitor_spaces as s', 's.id', 'k.space_id')
      .select(['k.space_id', 's.space_key_hash'])
      .where('k.key_hash', '=', keyHash)
      .where('k.revoked_at', 'is', null)
      .executeTakeFirst();
    const grant =
      row === undefined
        ? null
        : { spaceId: Number(row.space_id), spaceKeyHash: Buffer.from(row.space_key_hash, 'hex'), verifiedSpaceKey: null };
    this.grants.set(apiKey, grant);
    return grant;
  }

  private async findSpace(space: string | number): Promise<{ id: number; name: string }> {
    const text = String(space).trim();
    if (text === '') throw new InvalidInputError('give the space id or name');
    const byId = /^\d{1,15}$/.test(text);
    const rows = await this.database.db
      .selectFrom('monitor_spaces')
      .select(['id', 'name'])
      .$call((query) => (byId ? query.where('id', '=', Number(text)) : query.where('name', '=', text)))
      .limit(2)
      .execute();
    if (rows.length === 0) throw new NotFoundError(byId ? `no space has the id ${text}` : `no space is named "${text}"`);
    if (rows.length > 1) throw new ConflictError(`several spaces are named "${text}"; give the space id instead`);
    return { id: Number(rows[0]!.id), name: rows[0]!.name };
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
