/** Throwaway databases for tests: a temp SQLite file, or a fresh PostgreSQL database. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createTestDatabase as createDatabase,
  type DatabaseTemplate,
  type TestDatabase,
  type TestDialect,
} from '@sightline/common/testing';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

export { DIALECTS, postgresAdminUrl, type TestDatabase, type TestDialect } from '@sightline/common/testing';

const NAMES = { dirPrefix: 'sightline-test-', databasePrefix: 'sl_test' };
const SQLITE_FILE = 'sightline.db';

/** Creates an empty database of the dialect (url: value for SERVICE_SQL_DATABASE_URL) plus a temp working directory. */
export function createTestDatabase(dialect: TestDialect): Promise<TestDatabase> {
  return createDatabase(dialect, NAMES);
}

/** Creates a database that already has every migration applied, as a server leaves it on its first start. */
export function createMigratedTestDatabase(dialect: TestDialect): Promise<TestDatabase> {
  return createDatabase(dialect, NAMES, MIGRATED);
}

const MIGRATED: DatabaseTemplate = {
  key: sourcesHash([
    fileURLToPath(new URL('../../src/db/migrations/', import.meta.url)),
    fileURLToPath(new URL('../../../common/src/db/', import.meta.url)),
  ]),
  sqliteFile: SQLITE_FILE,
  build: async (database) => {
    const url = database.url ?? path.join(database.workingDir, SQLITE_FILE);
    const opened = openDatabase({ dialect: database.dialect, url });
    try {
      await migrateToLatest(opened);
    } finally {
      await opened.close();
    }
  },
};

/** 16 hex digits that change with any file in the folders (the template's key). */
function sourcesHash(folders: string[]): string {
  const hash = createHash('sha256');
  for (const folder of folders) {
    for (const name of fs.readdirSync(folder).sort()) {
      const file = path.join(folder, name);
      if (!fs.statSync(file).isFile()) continue;
      hash.update(name).update(fs.readFileSync(file));
    }
  }
  return hash.digest('hex').slice(0, 16);
}
