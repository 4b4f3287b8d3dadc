/** SQL for stored secrets: encrypted values by name (docs/playground.md); the repository never sees plaintext. */
import type { Kysely } from 'kysely';
import type { DB } from '../schema.js';

export interface StoredSecret {
  key: string;
  ciphertext: string;
  nonce: string;
  updatedAt: string;
}

export type SecretsRepository = ReturnType<typeof createSecretsRepository>;

/** Secrets repository over a Kysely connection (or transaction). */
export function createSecretsRepository(db: Kysely<DB>) {
  return {
    async find(key: string): Promise<StoredSecret | undefined> {
      const row = await db.selectFrom('secrets').selectAll().where('key', '=', key).executeTakeFirst();
      return row && { key: row.key, ciphertext: row.ciphertext, nonce: row.nonce, updatedAt: row.updated_at };
    },
    /** Every stored name with its last change (no values). */
    async listKeys(): Promise<{ key: string; updatedAt: string }[]> {
      const rows = await db.selectFrom('secrets').select(['key', 'updated_at']).orderBy('key').execute();
      return rows.map((row) => ({ key: row.key, updatedAt: row.updated_at }));
    },
    async upsert(secret: StoredSecret): Promise<void> {
      const values = { ciphertext: secret.ciphertext, nonce: secret.nonce, updated_at: secret.updatedAt };
      await db
        .insertInto('secrets')
        .values({ key: secret.key, ...values })
        .onConflict((oc) => oc.column('key').doUpdateSet(values))
        .execute();
    },
    async delete(key: string): Promise<boolean> {
      const result = await db.deleteFrom('secrets').where('key', '=', key).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
