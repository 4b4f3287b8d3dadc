/**
 * SQLite's plans of the statements behind the pages that stalled a 10M-span server
 * (docs/performance.md, "Pages at 10 million spans"). SQLite plans without statistics, so a plan
 * here is the plan there: each assertion names the index or loop order that made the statement
 * read every trace or span of a project, and failed before its fix.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openSqlite } from '@sightline/common';
import type SQLite from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import { createAnnotationsRepository } from '../../src/db/repositories/annotations-repository.js';
import { createProjectsRepository } from '../../src/db/repositories/projects-repository.js';
import { createSessionsRepository } from '../../src/db/repositories/sessions-repository.js';
import { createTracesRepository } from '../../src/db/repositories/traces-repository.js';
import { createMigratedTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { openLoggedKysely } from '../helpers/span-writer.js';

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i.toString(16).padStart(30, '0')}`);

describe('SQLite plans of the pages at scale', () => {
  let test: TestDatabase;
  let connection: SQLite.Database;
  let statements: CompiledQuery[] = [];
  let db: ReturnType<typeof openLoggedKysely>;

  before(async () => {
    test = await createMigratedTestDatabase('sqlite');
    const file = path.join(test.workingDir, 'sightline.db');
    db = openLoggedKysely(test, file, () => statements);
    connection = openSqlite(file);
  });
  after(async () => {
    await db?.destroy();
    connection?.close();
    await test?.drop();
  });

  /** The plan's lines (EXPLAIN QUERY PLAN's `detail`) of each statement `run` sends. */
  const plans = async (run: () => Promise<unknown>): Promise<string[][]> => {
    statements = [];
    await run();
    return statements.map((statement) =>
      (connection.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`).all(...(statement.parameters as unknown[])) as { detail: string }[]).map(
        (row) => row.detail,
      ),
    );
  };

  it('looks annotations up by 100 trace or session ids on the ids, not the project', async () => {
    const annotations = createAnnotationsRepository(db, 'sqlite');
    for (const [kind, table] of [
      ['trace', 't'],
      ['session', 't'],
    ] as const) {
      const [plan] = await plans(() => annotations.list(kind, { projectId: 1, targets: ids('a', 100), identifiers: [], limit: 101 }));
      const lookup = plan!.find((line) => line.startsWith(`SEARCH ${table} `));
      assert.ok(lookup, plan!.join('\n'));
      assert.match(lookup, new RegExp(`\\(${kind}_id=\\?\\)`), `${kind}: ${lookup}`);
    }
  });

  it('asks whether 100 trace or session ids are in a project on the ids', async () => {
    const traces = createTracesRepository(db, 'sqlite');
    const sessions = createSessionsRepository(db, 'sqlite');
    for (const [kind, run] of [
      ['trace', () => traces.anyInProject(1, ids('b', 100))],
      ['session', () => sessions.anyInProject(1, ids('c', 100))],
    ] as const) {
      const [plan] = await plans(run);
      assert.match(plan!.join('\n'), new RegExp(`^SEARCH \\w+ USING \\w*\\s?INDEX \\w+ \\(${kind}_id=\\?\\)$`, 'm'), plan!.join('\n'));
    }
  });

  it("summarises annotations from the annotations when they are few, not from the range's spans", async () => {
    const annotations = createAnnotationsRepository(db, 'sqlite');
    const all = await plans(() => annotations.labelCounts(1, 0n, 10n ** 18n));
    const summaries = all.filter((plan) => plan.some((line) => line.includes('USE TEMP B-TREE FOR GROUP BY')));
    assert.equal(summaries.length, 2, JSON.stringify(all));
    for (const plan of summaries) assert.match(plan[0]!, /^SCAN a\b/, plan.join('\n'));
  });

  it('lists projects testing for an ordinary trace before an experiment trace', async () => {
    const projects = createProjectsRepository(db, 'sqlite');
    const [plan] = await plans(() => projects.list({ limit: 100, excludeExperimentProjects: true }));
    const traceLoops = plan!.filter((line) => /^(SEARCH|SCAN) (other|t)\b/.test(line));
    assert.ok(traceLoops.length >= 2, plan!.join('\n'));
    assert.match(traceLoops[0]!, /^(SEARCH|SCAN) other\b/, plan!.join('\n'));
  });
});
