/**
 * Provider keys and settings stored by admins (docs/playground.md): AES-256-GCM ciphertext under
 * a key derived from SERVICE_SECRET, one row per name; values never leave the server.
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up(_context: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .createTable('secrets')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('ciphertext', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  };
}
