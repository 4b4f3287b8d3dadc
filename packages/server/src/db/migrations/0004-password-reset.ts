/** Single-use password reset tokens (only a hash is stored). */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up(_context: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .createTable('password_reset_tokens')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .execute();
    await db.schema.createIndex('password_reset_tokens_user').on('password_reset_tokens').column('user_id').execute();
  };
}
