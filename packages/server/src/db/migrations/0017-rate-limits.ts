/**
 * Per-client request counts of the rate-limited routes (docs/auth.md, "Protection against
 * guessing and forgery"): kept in the database rather than in each process, so that replicas
 * behind a load balancer share one limit (docs/deployment.md).
 */
import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

export function up(_context: MigrationContext) {
  return async (db: Kysely<unknown>): Promise<void> => {
    await db.schema
      .createTable('rate_limits')
      // The route and the client address, e.g. "POST /auth/login 203.0.113.7".
      .addColumn('bucket', 'text', (c) => c.primaryKey())
      .addColumn('hits', 'integer', (c) => c.notNull())
      // Milliseconds since the epoch: the window's remaining time is plain arithmetic.
      .addColumn('window_started_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('rate_limits_window').on('rate_limits').column('window_started_at').execute();
  };
}
