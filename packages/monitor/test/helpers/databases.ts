/** Throwaway databases for tests: a temp SQLite file, or a fresh PostgreSQL database. */
import { createTestDatabase as createDatabase, type TestDialect } from '@sightline/common/testing';

export { DIALECTS, postgresAdminUrl, type TestDialect } from '@sightline/common/testing';

export interface TestDatabase {
  dialect: TestDialect;
  /** Value for MONITOR_DATABASE_URL (undefined = default SQLite in the working dir). */
  url: string | undefined;
  workingDir: string;
  /** MONITOR_DATABASE_URL and SERVICE_WORKING_DIR for this database. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** Creates an empty database of the dialect plus a temp working directory. */
export async function createTestDatabase(dialect: TestDialect): Promise<TestDatabase> {
  const database = await createDatabase(dialect, { dirPrefix: 'sightline-monitor-test-', databasePrefix: 'slm_test' });
  const env: Record<string, string> = { SERVICE_WORKING_DIR: database.workingDir };
  if (database.url !== undefined) env.MONITOR_DATABASE_URL = database.url;
  return { ...database, env };
}
