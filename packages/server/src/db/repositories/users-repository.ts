/** SQL for users. Deleted users keep their row (email and username stay reserved). */
import type { Kysely, Selectable } from 'kysely';
import type { DB, UsersTable } from '../schema.js';

export type Role = 'admin' | 'member';
export type AuthMethod = 'LOCAL' | 'OAUTH2' | 'LDAP';

/**
 * How an LDAP user is stored without a change to the auth_method check of migration 0002: as
 * OAUTH2 with this marker as its provider (a private-use character, so no configured IDP slug,
 * lower-case letters, digits and underscores, can equal it) and its directory unique id, if any,
 * as the subject. Phoenix 20.3 answers such users with auth_method LDAP, and so does every
 * record this repository returns.
 */
export const LDAP_PROVIDER_MARKER = '\uE000LDAP';

export interface UserRecord {
  id: number;
  email: string;
  username: string;
  role: Role;
  authMethod: AuthMethod;
  passwordHash: string | null;
  passwordSalt: string | null;
  passwordNeedsReset: boolean;
  oauth2Idp: string | null;
  oauth2Sub: string | null;
  /** LDAP users: the directory's immutable id (SERVICE_LDAP_ATTR_UNIQUE_ID), lower-cased; else null. */
  ldapUniqueId: string | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export interface NewUser {
  email: string;
  username: string;
  role: Role;
  authMethod: AuthMethod;
  passwordHash?: string | null;
  passwordSalt?: string | null;
  passwordNeedsReset?: boolean;
  oauth2Idp?: string | null;
  oauth2Sub?: string | null;
  ldapUniqueId?: string | null;
}

export interface UserChanges {
  username?: string;
  role?: Role;
  passwordHash?: string;
  passwordSalt?: string;
  passwordNeedsReset?: boolean;
}

function toRecord(row: Selectable<UsersTable>): UserRecord {
  const ldap = row.auth_method === 'OAUTH2' && row.oauth2_idp === LDAP_PROVIDER_MARKER;
  return {
    id: Number(row.id),
    email: row.email,
    username: row.username,
    role: row.role,
    authMethod: ldap ? 'LDAP' : row.auth_method,
    passwordHash: row.password_hash,
    passwordSalt: row.password_salt,
    passwordNeedsReset: Boolean(row.password_needs_reset),
    oauth2Idp: ldap ? null : row.oauth2_idp,
    oauth2Sub: ldap ? null : row.oauth2_sub,
    ldapUniqueId: ldap ? row.oauth2_sub : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;

/** Users repository over a Kysely connection (or transaction). */
export function createUsersRepository(db: Kysely<DB>) {
  const active = () => db.selectFrom('users').selectAll().where('deleted_at', 'is', null);
  return {
    async findActiveById(id: number): Promise<UserRecord | undefined> {
      const row = await active().where('id', '=', id).executeTakeFirst();
      return row && toRecord(row);
    },
    /** Any user with this email, deleted or not. */
    async findByEmail(email: string): Promise<UserRecord | undefined> {
      const row = await db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
      return row && toRecord(row);
    },
    /** Any user with this username, deleted or not. */
    async findByUsername(username: string): Promise<UserRecord | undefined> {
      const row = await db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
      return row && toRecord(row);
    },
    /** The LDAP user (deleted or not) with this directory unique id (compared lower-cased). */
    async findByLdapUniqueId(uniqueId: string): Promise<UserRecord | undefined> {
      const row = await db
        .selectFrom('users')
        .selectAll()
        .where('auth_method', '=', 'OAUTH2')
        .where('oauth2_idp', '=', LDAP_PROVIDER_MARKER)
        .where('oauth2_sub', '=', uniqueId.toLowerCase())
        .executeTakeFirst();
      return row && toRecord(row);
    },
    async findByOauth2Identity(idp: string, sub: string): Promise<UserRecord | undefined> {
      const row = await db.selectFrom('users').selectAll().where('oauth2_idp', '=', idp).where('oauth2_sub', '=', sub).executeTakeFirst();
      return row && toRecord(row);
    },
    /** Active users, newest first, keyset-paginated by id. */
    async listActive(limit: number, beforeId?: number): Promise<UserRecord[]> {
      let query = active().orderBy('id', 'desc').limit(limit);
      if (beforeId !== undefined) query = query.where('id', '<=', beforeId);
      return (await query.execute()).map(toRecord);
    },
    async isEmpty(): Promise<boolean> {
      return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) === undefined;
    },
    /**
     * Locks the rows of every active admin until the end of the transaction (a write that changes
     * nothing), so two requests that each remove an admin (demotion or deletion) cannot both see
     * "another admin remains" and leave the server without one: the second waits, then counts again.
     */
    async lockActiveAdmins(): Promise<void> {
      await db.updateTable('users').set({ role: 'admin' }).where('role', '=', 'admin').where('deleted_at', 'is', null).execute();
    },
    async countActiveAdmins(): Promise<number> {
      const row = await active()
        .clearSelect()
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('role', '=', 'admin')
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },
    /** Inserts a user; a taken email or username throws a unique violation. */
    async insert(user: NewUser, now: string): Promise<UserRecord> {
      const row = await db
        .insertInto('users')
        .values({
          email: user.email,
          username: user.username,
          role: user.role,
          auth_method: user.authMethod === 'LDAP' ? 'OAUTH2' : user.authMethod,
          password_hash: user.passwordHash ?? null,
          password_salt: user.passwordSalt ?? null,
          password_needs_reset: user.passwordNeedsReset ? 1 : 0,
          oauth2_idp: user.authMethod === 'LDAP' ? LDAP_PROVIDER_MARKER : (user.oauth2Idp ?? null),
          oauth2_sub: user.authMethod === 'LDAP' ? (user.ldapUniqueId?.toLowerCase() ?? null) : (user.oauth2Sub ?? null),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toRecord(row);
    },
    async update(id: number, changes: UserChanges, now: string): Promise<UserRecord | undefined> {
      const row = await db
        .updateTable('users')
        .set({
          ...(changes.username !== undefined && { username: changes.username }),
          ...(changes.role !== undefined && { role: changes.role }),
          ...(changes.passwordHash !== undefined && { password_hash: changes.passwordHash }),
          ...(changes.passwordSalt !== undefined && { password_salt: changes.passwordSalt }),
          ...(changes.passwordNeedsReset !== undefined && { password_needs_reset: changes.passwordNeedsReset ? 1 : 0 }),
          updated_at: now,
        })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },
    /**
     * Links an active OAUTH2 user that has no IDP identity yet (created by an admin) to (idp, sub);
     * undefined when the user is not such a user (any more), e.g. another login linked it first.
     */
    async linkOauth2Identity(id: number, idp: string, sub: string, now: string): Promise<UserRecord | undefined> {
      const row = await db
        .updateTable('users')
        .set({ oauth2_idp: idp, oauth2_sub: sub, updated_at: now })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .where('auth_method', '=', 'OAUTH2')
        .where('oauth2_idp', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },
    /**
     * What an LDAP login brings from the directory to an active LDAP user: its email, its role, and
     * its unique id when it had none; a taken email throws a unique violation.
     */
    async syncLdapUser(
      id: number,
      changes: { email?: string; role?: Role; ldapUniqueId?: string },
      now: string,
    ): Promise<UserRecord | undefined> {
      const row = await db
        .updateTable('users')
        .set({
          ...(changes.email !== undefined && { email: changes.email }),
          ...(changes.role !== undefined && { role: changes.role }),
          ...(changes.ldapUniqueId !== undefined && { oauth2_sub: changes.ldapUniqueId.toLowerCase() }),
          updated_at: now,
        })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .where('auth_method', '=', 'OAUTH2')
        .where('oauth2_idp', '=', LDAP_PROVIDER_MARKER)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },
    async markDeleted(id: number, now: string): Promise<boolean> {
      const result = await db
        .updateTable('users')
        .set({ deleted_at: now, updated_at: now, password_hash: null, password_salt: null })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
