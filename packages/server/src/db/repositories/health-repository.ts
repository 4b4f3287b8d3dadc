/** SQL of the readiness probe: one trivial statement that only a database that answers can run. */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../schema.js';

export type HealthRepository = ReturnType<typeof createHealthRepository>;

export function createHealthRepository(db: Kysely<DB>) {
  return {
    /** Resolves when the database answers `select 1`; rejects with the driver's error otherwise. */
    async ping(): Promise<void> {
      await sql`select 1`.execute(db);
    },
  };
}
