/** Throwaway databases for tests: a temp SQLite file, or a fresh PostgreSQL database. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export type TestDialect = 'sqlite' | 'postgres';
const ALL_DIALECTS: readonly TestDialect[] = ['sqlite', 'postgres'];

/** The dialects the suites run on: all, or those SIGHTLINE_TEST_DIALECTS names (comma-separated), e.g. `sqlite`. */
function selectedDialects(value: string | undefined): readonly TestDialect[] {
  if (value === undefined || value.trim() === '') return ALL_DIALECTS;
  const names = value.split(',').map((name) => name.trim().toLowerCase());
  for (const name of names) {
    if (!ALL_DIALECTS.includes(name as TestDialect)) {
      throw new Error(`SIGHTLINE_TEST_DIALECTS: unknown dialect "${name}"; use sqlite, postgres or both, comma-separated`);
    }
  }
  return ALL_DIALECTS.filter((dialect) => names.includes(dialect));
}

export const DIALECTS: readonly TestDialect[] = selectedDialects(process.env.SIGHTLINE_TEST_DIALECTS);

export interface TestDatabase {
  dialect: TestDialect;
  /** PostgreSQL URL of the database (undefined = default SQLite in the working dir). */
  url: string | undefined;
  workingDir: string;
  drop(): Promise<void>;
}

export interface TestDatabaseNames {
  /** Prefix of the temp working directory, e.g. 'sightline-test-'. */
  dirPrefix: string;
  /** Prefix of the PostgreSQL database name, e.g. 'sl_test'. */
  databasePrefix: string;
}

let counter = 0;

/** PostgreSQL admin URL from the environment (set by scripts/run-tests.mjs or CI). */
export function postgresAdminUrl(): string {
  const url = process.env.SIGHTLINE_TEST_DATABASE_URL;
  if (!url) throw new Error('PostgreSQL is required for the tests: set SIGHTLINE_TEST_DATABASE_URL or install the postgresql package');
  return url;
}

/** Creates an empty database of the dialect plus a temp working directory. */
export async function createTestDatabase(dialect: TestDialect, names: TestDatabaseNames): Promise<TestDatabase> {
  const workingDir = fs.mkdtempSync(path.join(os.tmpdir(), names.dirPrefix));
  const removeDir = () => fs.rmSync(workingDir, { recursive: true, force: true });
  if (dialect === 'sqlite') return { dialect, url: undefined, workingDir, drop: async () => removeDir() };
  const admin = new URL(postgresAdminUrl());
  const name = `${names.databasePrefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    dialect,
    url: url.toString(),
    workingDir,
    drop: async () => {
      const dropper = new pg.Client({ connectionString: admin.toString() });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
      removeDir();
    },
  };
}
