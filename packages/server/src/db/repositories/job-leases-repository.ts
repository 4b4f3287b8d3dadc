/**
 * Leases of the background jobs (docs/architecture.md, "Adding a background job"): on PostgreSQL a
 * session advisory lock per job name, held on one pinned connection for the whole run, so that of
 * several replicas on one database one runs a job at a time; on SQLite one process owns the
 * database, and the job runner already runs each job once at a time.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../../config.js';
import type { DB } from '../schema.js';

/** The lock namespace of job leases: keys are hashtext('sightline.job.' || name). */
const LEASE_PREFIX = 'sightline.job.';

export type JobLeasesRepository = ReturnType<typeof createJobLeasesRepository>;

export function createJobLeasesRepository(db: Kysely<DB>, dialect: Dialect) {
  return {
    /**
     * Runs `work` while holding the job's lease; resolves to `{ leased: false }` without running it
     * when another replica holds the lease.
     */
    async withLease<T>(name: string, work: () => Promise<T>): Promise<{ leased: true; value: T } | { leased: false }> {
      if (dialect === 'sqlite') return { leased: true, value: await work() };
      return db.connection().execute(async (connection) => {
        const key = `${LEASE_PREFIX}${name}`;
        const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(hashtext(${key})) AS locked`.execute(connection);
        if (!rows[0]?.locked) return { leased: false as const };
        try {
          return { leased: true as const, value: await work() };
        } finally {
          await sql`SELECT pg_advisory_unlock(hashtext(${key}))`.execute(connection);
        }
      });
    },
  };
}
