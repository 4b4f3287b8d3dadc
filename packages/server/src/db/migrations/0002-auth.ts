/** Users, API keys, sessions and their tokens, login failures. */
import { sql, type Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up({ dialect }: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    const pg = dialect === 'postgres';
    const serial = pg ? 'bigserial' : 'integer';
    await db.schema
      .createTable('users')
      .addColumn('id', serial, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('username', 'text', (c) => c.notNull().unique())
      .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'member')`))
      .addColumn('auth_method', 'text', (c) => c.notNull().check(sql`auth_method in ('LOCAL', 'OAUTH2')`))
      .addColumn('password_hash', 'text')
      .addColumn('password_salt', 'text')
      .addColumn('password_needs_reset', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('oauth2_idp', 'text')
      .addColumn('oauth2_sub', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('deleted_at', 'text')
      .addUniqueConstraint('users_oauth2_identity', ['oauth2_idp', 'oauth2_sub'])
      .execute();
    await db.schema
      .createTable('api_keys')
      .addColumn('id', serial, (c) => c.primaryKey().$call((c) => (pg ? c : c.autoIncrement())))
      .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('system', 'user')`))
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('cascade'))
      // Audit only: no foreign key, so a system key outlives the admin who made it.
      .addColumn('created_by', 'bigint')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text')
      .addColumn('last_used_at', 'text')
      .execute();
    await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();
    await db.schema
      .createTable('sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .execute();
    await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
    await db.schema
      .createTable('auth_tokens')
      .addColumn('jti', 'text', (c) => c.primaryKey())
      .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('access', 'refresh')`))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .execute();
    await db.schema.createIndex('auth_tokens_session').on('auth_tokens').column('session_id').execute();
    await db.schema
      .createTable('login_failures')
      .addColumn('email', 'text', (c) => c.primaryKey())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('window_started_at', 'text', (c) => c.notNull())
      .addColumn('locked_until', 'text')
      .execute();
  };
}
