/** SQL for spaces and their API keys: only hashes of keys are stored (spaces/keys.ts). */
import type { Kysely } from 'kysely';
import type { Micros, MonitorDB } from '../schema.js';

export interface StoredSpace {
  id: number;
  name: string;
}

export interface SpaceWithKeyCount extends StoredSpace {
  createdAt: Micros;
  /** API keys not revoked. */
  activeApiKeys: number;
}

/** What an active API key grants: its space and the hex digest of the space key. */
export interface ActiveApiKey {
  spaceId: number;
  spaceKeyHash: string;
}

export type SpacesRepository = ReturnType<typeof createSpacesRepository>;

/** Spaces repository over a Kysely connection (or transaction). */
export function createSpacesRepository(db: Kysely<MonitorDB>) {
  return {
    /** Inserts a space; returns its id. */
    async insertSpace(name: string, spaceKeyHash: string, now: Micros): Promise<number> {
      const row = await db
        .insertInto('monitor_spaces')
        .values({ name, space_key_hash: spaceKeyHash, created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },
    async insertApiKey(spaceId: number, keyHash: string, now: Micros): Promise<void> {
      await db.insertInto('monitor_api_keys').values({ space_id: spaceId, key_hash: keyHash, created_at: now }).execute();
    },
    /** Revokes every API key of the space that is still active. */
    async revokeApiKeys(spaceId: number, now: Micros): Promise<void> {
      await db
        .updateTable('monitor_api_keys')
        .set({ revoked_at: now })
        .where('space_id', '=', spaceId)
        .where('revoked_at', 'is', null)
        .execute();
    },
    async setSpaceKeyHash(spaceId: number, spaceKeyHash: string): Promise<void> {
      await db.updateTable('monitor_spaces').set({ space_key_hash: spaceKeyHash }).where('id', '=', spaceId).execute();
    },
    async findById(id: number): Promise<StoredSpace | null> {
      const row = await db.selectFrom('monitor_spaces').select(['id', 'name']).where('id', '=', id).executeTakeFirst();
      return row === undefined ? null : { id: Number(row.id), name: row.name };
    },
    /** Up to `limit` spaces of this name (names are not unique). */
    async listByName(name: string, limit: number): Promise<StoredSpace[]> {
      const rows = await db.selectFrom('monitor_spaces').select(['id', 'name']).where('name', '=', name).limit(limit).execute();
      return rows.map((row) => ({ id: Number(row.id), name: row.name }));
    },
    /** Every space with its number of active API keys, by id. */
    async listWithKeyCounts(): Promise<SpaceWithKeyCount[]> {
      const rows = await db
        .selectFrom('monitor_spaces as s')
        .leftJoin('monitor_api_keys as k', (join) => join.onRef('k.space_id', '=', 's.id').on('k.revoked_at', 'is', null))
        .select((eb) => ['s.id', 's.name', 's.created_at', eb.fn.count<number>('k.id').as('keys')])
        .groupBy(['s.id', 's.name', 's.created_at'])
        .orderBy('s.id')
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        name: row.name,
        createdAt: Number(row.created_at),
        activeApiKeys: Number(row.keys),
      }));
    },
    /** The space of an API key that is not revoked, by the key's hash. */
    async findActiveApiKey(keyHash: string): Promise<ActiveApiKey | null> {
      const row = await db
        .selectFrom('monitor_api_keys as k')
        .innerJoin('monitor_spaces as s', 's.id', 'k.space_id')
        .select(['k.space_id', 's.space_key_hash'])
        .where('k.key_hash', '=', keyHash)
        .where('k.revoked_at', 'is', null)
        .executeTakeFirst();
      return row === undefined ? null : { spaceId: Number(row.space_id), spaceKeyHash: row.space_key_hash };
    },
  };
}
