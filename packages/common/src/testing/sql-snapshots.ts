/**
 * SQL snapshot tests (docs/architecture.md, "Where SQL lives"): a package's repository methods run
 * once each on a real, migrated database of every dialect, their statements are captured through
 * Kysely's log hook (and, for raw prepared statements, handed in), and the whole is compared with
 * the checked-in `<dialect>.snap.sql`, so that a query change shows in review.
 * `SIGHTLINE_UPDATE_SQL_SNAPSHOTS=1` rewrites the files instead.
 */
import type SQLite from 'better-sqlite3';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { createPgPool } from '../postgres.js';
import { openSqlite } from '../sqlite.js';
import { createTestDatabase, DIALECTS, type TestDatabaseNames, type TestDialect } from './databases.js';

/** Each method's name (its section in the file) and a call with sample arguments, in the order they run. */
export type SqlScenario = [name: string, run: () => Promise<unknown>][];

/** What a package's scenario is built on. */
export interface SqlSnapshotDatabase<DB> {
  dialect: TestDialect;
  /** A Kysely on the test database whose every statement is captured. */
  db: Kysely<DB>;
  /** The PostgreSQL URL, or the SQLite file, of the test database (for raw connections). */
  url: string;
  /** Captures a statement the current method runs outside Kysely (a raw prepared statement). */
  capture(sql: string): void;
}

export interface SqlSnapshotOptions<DB> {
  /** The folder that holds `<dialect>.snap.sql`. */
  folder: string;
  /** Names of the throwaway databases. */
  names: TestDatabaseNames;
  /**
   * Migrates the database and stores the rows the scenario needs (none of these statements is
   * snapshotted), then returns the scenario and, optionally, the repositories by name (as the
   * scenario names them, `name.method`): the test then fails on a method the scenario never runs.
   */
  prepare(database: SqlSnapshotDatabase<DB>): Promise<{ scenario: SqlScenario; repositories?: Record<string, object> }>;
  /** Attaches other files to the SQLite connection, as the service's own opener does (`file` is the database's). */
  sqliteAttach?: (connection: SQLite.Database, file: string) => void;
}

/** `name.method` of every method of the repositories that no section of the scenario is named after (`name.method` or `name.method (…)`). */
export function methodsNotRun(scenario: SqlScenario, repositories: Record<string, object>): string[] {
  const run = new Set(scenario.map(([name]) => name.split(' ')[0]));
  return Object.entries(repositories).flatMap(([name, repository]) =>
    Object.entries(repository)
      .filter(([method, value]) => typeof value === 'function' && !run.has(`${name}.${method}`))
      .map(([method]) => `${name}.${method}`),
  );
}

/** One section per method: a comment with its name, then each statement on its own, whitespace folded. */
export function renderSqlSnapshot(sections: [string, string[]][]): string {
  return `${sections.map(([name, sqls]) => [`-- ${name}`, ...sqls.map((text) => `${text.replace(/\s+/g, ' ').trim()};`)].join('\n')).join('\n\n')}\n`;
}

/** Declares, per dialect, the test that runs the scenario and compares its SQL with the snapshot file. */
export function describeSqlSnapshots<DB>(options: SqlSnapshotOptions<DB>): void {
  for (const dialect of DIALECTS) {
    const snapshot = path.join(options.folder, `${dialect}.snap.sql`);
    describe(`repository SQL snapshots [${dialect}]`, () => {
      const opened: (() => Promise<void>)[] = [];
      after(async () => {
        for (const close of opened.reverse()) await close();
      });

      it(`every repository method's SQL matches ${path.relative(process.cwd(), snapshot)}`, async () => {
        const database = await createTestDatabase(dialect, options.names);
        opened.push(() => database.drop());
        const url = database.url ?? path.join(database.workingDir, 'snapshots.db');
        const statements: string[] = [];
        const sqlite = () => {
          const connection = openSqlite(url);
          options.sqliteAttach?.(connection, url);
          return connection;
        };
        const db = new Kysely<DB>({
          dialect:
            database.url === undefined ? new SqliteDialect({ database: sqlite() }) : new PostgresDialect({ pool: createPgPool(url, 1) }),
          log: (event) => void statements.push(event.query.sql),
        });
        opened.push(() => db.destroy());
        const { scenario, repositories } = await options.prepare({ dialect, db, url, capture: (sql) => void statements.push(sql) });
        if (repositories !== undefined) assert.deepEqual(methodsNotRun(scenario, repositories), [], 'add these methods to the scenario');
        statements.length = 0;
        const sections: [string, string[]][] = [];
        for (const [name, run] of scenario) {
          await run();
          sections.push([name, statements.splice(0)]);
        }
        for (const [name, sqls] of sections) assert.ok(sqls.length > 0, `${name} ran no statement`);
        const actual = renderSqlSnapshot(sections);
        if (process.env.SIGHTLINE_UPDATE_SQL_SNAPSHOTS === '1') fs.writeFileSync(snapshot, actual);
        assert.ok(fs.existsSync(snapshot), `missing ${snapshot}: run with SIGHTLINE_UPDATE_SQL_SNAPSHOTS=1`);
        assert.equal(
          actual,
          fs.readFileSync(snapshot, 'utf8'),
          'a repository query changed: review it, then run with SIGHTLINE_UPDATE_SQL_SNAPSHOTS=1',
        );
      });
    });
  }
}
