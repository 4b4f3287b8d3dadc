/** SQL for API keys. Only the key's hash is stored. */
import type { Kysely, Selectable } from 'kysely';
import type { ApiKeysTable, DB } from '../schema.js';
import type { Role } from './users-repository.js';

export interface ApiKeyRecord {
  id: number;
  kind: 'system' | 'user';
  userId: number | null;
  createdBy: number | null;
  name: string;
  description: string | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

export interface ApiKeyWithOwner extends ApiKeyRecord {
  owner: { id: number; username: string; email: string; role: Role; deleted: boolean } | null;
}

export interface NewApiKey {
  kind: 'system' | 'user';
  userId: number | null;
  createdBy: number | null;
  name: string;
  description: string | null;
  keyHash: string;
  expiresAt: string | null;
}

function toRecord(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: Number(row.id),
    kind: row.kind,
    userId: row.user_id === null ? null : Number(row.user_id),
    createdBy: row.created_by === null ? null : Number(row.created_by),
    name: row.name,
    description: row.description,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
  };
}

export type ApiKeysRepository = ReturnType<typeof createApiKeysRepository>;

/** API keys repository over a Kysely connection (or transaction). */
export function createApiKeysRepository(db: Kysely<DB>) {
  const withOwner = () =>
    db
      .selectFrom('api_keys')
      .leftJoin('users', 'users.id', 'api_keys.user_id')
      .selectAll('api_keys')
      .select([
        'users.username as owner_username',
        'users.email as owner_email',
        'users.role as owner_role',
        'users.deleted_at as owner_deleted_at',
      ]);
  type Row = Awaited<ReturnType<ReturnType<typeof withOwner>['executeTakeFirstOrThrow']>>;
  const toOwned = (row: Row): ApiKeyWithOwner => ({
    ...toRecord(row),
    owner:
      row.user_id === null
        ? null
        : {
            id: Number(row.user_id),
            username: row.owner_username ?? '',
            email: row.owner_email ?? '',
            role: (row.owner_role ?? 'member') as Role,
            deleted: row.owner_deleted_at !== null,
          },
  });
  return {
    async insert(key: NewApiKey, now: string): Promise<ApiKeyRecord> {
      const row = await db
        .insertInto('api_keys')
        .values({
          kind: key.kind,
          user_id: key.userId,
          created_by: key.createdBy,
          name: key.name,
          description: key.description,
          key_hash: key.keyHash,
          created_at: now,
          expires_at: key.expiresAt,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRecord(row);
    },
    async findByHash(keyHash: string): Promise<ApiKeyWithOwner | undefined> {
      const row = await withOwner().where('api_keys.key_hash', '=', keyHash).executeTakeFirst();
      return row && toOwned(row);
    },
    async findById(id: number): Promise<ApiKeyWithOwner | undefined> {
      const row = await withOwner().where('api_keys.id', '=', id).executeTakeFirst();
      return row && toOwned(row);
    },
    async listSystem(): Promise<ApiKeyRecord[]> {
      return (await db.selectFrom('api_keys').selectAll().where('kind', '=', 'system').orderBy('id', 'desc').execute()).map(toRecord);
    },
    async listForUser(userId: number): Promise<ApiKeyRecord[]> {
      return (await db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').execute()).map(toRecord);
    },
    /** Every user key with its owner, newest first, keyset-paginated by id. */
    async listUserKeys(limit: number, beforeId?: number): Promise<ApiKeyWithOwner[]> {
      let query = withOwner().where('api_keys.kind', '=', 'user').orderBy('api_keys.id', 'desc').limit(limit);
      if (beforeId !== undefined) query = query.where('api_keys.id', '<=', beforeId);
      return (await query.execute()).map(toOwned);
    },
    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('api_keys').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async deleteForUser(userId: number): Promise<void> {
      await db.deleteFrom('api_keys').where('user_id', '=', userId).execute();
    },
    async countAll(): Promise<number> {
      const row = await db
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },
    async touch(id: number, now: string): Promise<void> {
      await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', id).execute();
    },
  };
}
