/** Throwaway databases for tests: a temp SQLite file, or a fresh PostgreSQL database. */
import { createTestDatabase as createDatabase, type TestDatabase, type TestDialect } from '@sightline/common/testing';

export { DIALECTS, postgresAdminUrl, type TestDatabase, type TestDialect } from '@sightline/common/testing';

/** Creates an empty database of the dialect (url: value for SERVICE_SQL_DATABASE_URL) plus a temp working directory. */
export function createTestDatabase(dialect: TestDialect): Promise<TestDatabase> {
  return createDatabase(dialect, { dirPrefix: 'sightline-test-', databasePrefix: 'sl_test' });
}
