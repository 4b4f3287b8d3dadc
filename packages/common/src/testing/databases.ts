/** Throwaway databases for tests: a temp SQLite file, or a fresh PostgreSQL database. */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
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

/**
 * A migrated schema to copy instead of migrating each test database from empty: every suite that
 * starts a server would otherwise replay all the migrations (about two seconds on PostgreSQL),
 * which was the largest single cost of `npm test`. Suites that test the migrations themselves
 * create empty databases and run them.
 */
export interface DatabaseTemplate {
  /** Changes whenever the built schema would, e.g. a hash of the migrations' sources. */
  key: string;
  /** The SQLite file name in the working directory that `build` writes and servers open. */
  sqliteFile: string;
  /** Brings an empty database to the template's schema and closes every connection to it. */
  build(database: TestDatabase): Promise<void>;
}

let counter = 0;

/** PostgreSQL admin URL from the environment (set by scripts/run-tests.mjs or CI). */
export function postgresAdminUrl(): string {
  const url = process.env.SIGHTLINE_TEST_DATABASE_URL;
  if (!url) throw new Error('PostgreSQL is required for the tests: set SIGHTLINE_TEST_DATABASE_URL or install the postgresql package');
  return url;
}

/**
 * Creates a database of the dialect plus a temp working directory: empty, or a copy of `template`
 * (built once per key and machine, by whichever test process needs it first).
 */
export async function createTestDatabase(
  dialect: TestDialect,
  names: TestDatabaseNames,
  template?: DatabaseTemplate,
): Promise<TestDatabase> {
  const workingDir = fs.mkdtempSync(path.join(os.tmpdir(), names.dirPrefix));
  const removeDir = () => fs.rmSync(workingDir, { recursive: true, force: true });
  if (dialect === 'sqlite') {
    if (template) fs.copyFileSync(await sqliteTemplateFile(template, names), path.join(workingDir, template.sqliteFile));
    return { dialect, url: undefined, workingDir, drop: async () => removeDir() };
  }
  const admin = new URL(postgresAdminUrl());
  const name = `${names.databasePrefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const source = template ? await postgresTemplateDatabase(template, names) : undefined;
  await adminQuery(admin, `CREATE DATABASE ${name}${source ? ` TEMPLATE ${source}` : ''}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    dialect,
    url: url.toString(),
    workingDir,
    drop: async () => {
      await adminQuery(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      removeDir();
    },
  };
}

async function adminQuery(admin: URL, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

/** A migrated SQLite file in the temp directory; concurrent builders each rename a complete copy into place. */
async function sqliteTemplateFile(template: DatabaseTemplate, names: TestDatabaseNames): Promise<string> {
  const file = path.join(os.tmpdir(), `${names.dirPrefix}template-${template.key}.db`);
  if (fs.existsSync(file)) return file;
  const empty = await createTestDatabase('sqlite', names);
  try {
    await template.build(empty);
    const partial = `${file}.${randomUUID()}`;
    fs.copyFileSync(path.join(empty.workingDir, template.sqliteFile), partial);
    fs.renameSync(partial, file);
  } finally {
    await empty.drop();
  }
  return file;
}

/**
 * A migrated PostgreSQL database to copy with CREATE DATABASE … TEMPLATE. It is built under a
 * temporary name and renamed, so a copy never starts from a half-built one; when two processes
 * build at once, the rename of the second fails and its copy is dropped.
 */
async function postgresTemplateDatabase(template: DatabaseTemplate, names: TestDatabaseNames): Promise<string> {
  const admin = new URL(postgresAdminUrl());
  const name = `${names.databasePrefix}_template_${template.key}`;
  const exists = await adminQuery(admin, `SELECT 1 FROM pg_database WHERE datname = '${name}'`);
  if (exists.rowCount) return name;
  const empty = await createTestDatabase('postgres', names);
  const built = new URL(empty.url!).pathname.slice(1);
  try {
    await template.build(empty);
    // The builder's connections may still be closing on the server's side: a rename waits for them.
    for (let attempt = 0; ; attempt++) {
      try {
        await adminQuery(admin, `ALTER DATABASE ${built} RENAME TO ${name}`);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
        await sleep(100);
      }
    }
    fs.rmSync(empty.workingDir, { recursive: true, force: true });
  } catch (error) {
    await empty.drop();
    if ((error as { code?: string }).code !== '42P04') throw error;
  }
  return name;
}
