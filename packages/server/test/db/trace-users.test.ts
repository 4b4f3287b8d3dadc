/**
 * The user of each trace (migration 0020, span-model/trace-users.ts): the migration fills it in for traces
 * stored before it, both span writers keep it as spans arrive (mixed users and late users
 * included), and the span list's `user.id` filter reads that user's traces: the same answers,
 * pages and order as testing every span, through the index on SQLite (checked on the plans of the
 * very statements the repository ran), a user with many traces a few traces at a time.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { applyMigrations } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { createRepositories } from '../../src/db/repositories/index.js';
import type { SpanRecord } from '../../src/db/repositories/spans-repository.js';
import type { DB } from '../../src/db/schema.js';
import { sqlDialect } from '../../src/db/sql-dialect.js';
import { MAX_USER_TRACES_READ, MIXED_USERS, userKeyOf } from '../../src/span-model/trace-users.js';
import type { SpanRow } from '../../src/span-model/span-rows.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { spanRow } from '../helpers/span-row.js';
import { openLoggedKysely, openSpanWriter } from '../helpers/span-writer.js';
import { insertProject } from '../helpers/stored.js';

const PROJECT = 'users';
const USER_INDEX = 'traces_project_user';
/** The index of a span list that walks the project in time order. */
const WALK_INDEX = 'spans_project_start_id';
const START = 1_764_000_000_000_000_000n;

interface FixtureSpan {
  trace: string;
  spanId: string;
  start: bigint;
  attributes: Record<string, unknown>;
}

let spanCounter = 0;
const traceId = (name: string) => Buffer.from(name).toString('hex').padEnd(32, '0').slice(0, 32);
/** One span of trace `trace`; each later span starts later, so newest-first order is by creation. */
function span(trace: string, user?: unknown): FixtureSpan {
  const n = spanCounter++;
  const attributes: Record<string, unknown> = { 'llm.model_name': 'gpt-4o-mini' };
  if (user !== undefined) attributes['user.id'] = user;
  return { trace, spanId: n.toString(16).padStart(16, '0'), start: START + BigInt(n) * 1000n, attributes };
}

/** Written before the migration, as any release since 0019 stored spans. */
const OLD = [
  span('old-alice', 'alice'),
  span('old-alice'),
  span('old-mixed', 'alice'),
  span('old-mixed', 'bob'),
  span('old-number', 12345),
  span('old-string', '12345'),
  span('old-boolean', true),
  span('old-none'),
  span('old-list', ['alice']),
];
/** Written after it through the span writer, in batches. */
const BATCHES = [
  [span('new-bob', 'bob'), span('new-late'), span('new-split', 'carol'), span('new-in-batch', 'erin'), span('new-in-batch', 'frank')],
  [span('new-late', 'carol'), span('new-split', 'dave'), span('old-alice', 'alice'), span('new-bob', 'bob'), span('new-fraction', 0.5)],
];
const ALL = [...OLD, ...BATCHES.flat()];

/** The user key each trace must end with. */
const EXPECTED_KEYS: Record<string, string | null> = {
  'old-alice': 'alice',
  'old-mixed': MIXED_USERS,
  'old-number': '12345',
  'old-string': '12345',
  'old-boolean': MIXED_USERS,
  'old-none': null,
  'old-list': null,
  'new-bob': 'bob',
  'new-late': 'carol',
  'new-split': MIXED_USERS,
  'new-in-batch': MIXED_USERS,
  'new-fraction': MIXED_USERS,
};

function toRow(fixture: FixtureSpan): SpanRow {
  return spanRow({
    projectName: PROJECT,
    traceId: traceId(fixture.trace),
    spanId: fixture.spanId,
    name: 'chat',
    spanKind: 'LLM',
    startTime: fixture.start,
    endTime: fixture.start,
    statusCode: 'OK',
    attributes: JSON.stringify(fixture.attributes),
    userKey: userKeyOf(fixture.attributes['user.id']),
  });
}

/** Inserts spans with plain SQL on the schema before 0020 (no traces.user_id yet). */
async function insertBeforeMigration(
  db: Kysely<DB>,
  dialect: 'sqlite' | 'postgres',
  projectId: number,
  spans: FixtureSpan[],
): Promise<void> {
  const json = sqlDialect(dialect).json;
  const traceRowids = new Map<string, number>();
  for (const fixture of spans) {
    const start = sql`cast(${fixture.start.toString()} as bigint)`;
    let rowid = traceRowids.get(fixture.trace);
    if (rowid === undefined) {
      const trace = await sql<{ id: number }>`INSERT INTO traces (project_id, trace_id, start_time, end_time)
        VALUES (${projectId}, ${traceId(fixture.trace)}, ${start}, ${start}) RETURNING id`.execute(db);
      rowid = Number(trace.rows[0]!.id);
      traceRowids.set(fixture.trace, rowid);
    }
    await sql`INSERT INTO spans (trace_rowid, project_id, span_id, parent_id, name, span_kind, start_time, end_time,
        status_code, status_message, attributes, events)
      VALUES (${rowid}, ${projectId}, ${fixture.spanId}, NULL, 'chat', 'LLM', ${start}, ${start}, 'OK', '', ${json(fixture.attributes)}, ${json([])})`.execute(
      db,
    );
  }
}

/** The span ids a filter must find, newest first. */
function expected(spans: FixtureSpan[], match: (value: unknown) => boolean): string[] {
  return spans
    .filter((fixture) => Object.hasOwn(fixture.attributes, 'user.id') && match(fixture.attributes['user.id']))
    .sort((a, b) => (a.start > b.start ? -1 : 1))
    .map((fixture) => fixture.spanId);
}

for (const dialect of DIALECTS) {
  describe(`the user of each trace (migration 0020) [${dialect}]`, () => {
    let database: TestDatabase;
    let db: Kysely<DB>;
    let statements: CompiledQuery[] = [];
    let projectId: number;
    let write: (rows: SpanRow[]) => Promise<void>;
    let closeWriter: () => Promise<void>;

    before(async () => {
      database = await createTestDatabase(dialect);
      const file = path.join(database.workingDir, 'sightline.db');
      db = openLoggedKysely(database, file, () => statements);
      const all = migrations({ dialect });
      assert.ok('0020-trace-users' in all);
      await applyMigrations(db as Kysely<unknown>, dialect, Object.fromEntries(Object.entries(all).filter(([name]) => name < '0020')));
      projectId = await insertProject(db, PROJECT);
      await insertBeforeMigration(db, dialect, projectId, OLD);
      await applyMigrations(db as Kysely<unknown>, dialect, all);
      const writer = openSpanWriter(database, file);
      write = writer.write;
      closeWriter = writer.close;
      for (const batch of BATCHES) await write(batch.map(toRow));
    });
    after(async () => {
      await closeWriter?.();
      await db?.destroy();
      await database?.drop();
    });

    /** The SQLite query plans of the statements `list` runs. */
    const plansOf = async (list: () => Promise<SpanRecord[]>) => {
      statements = [];
      const records = await list();
      const ran = statements;
      statements = [];
      const plans: string[] = [];
      if (dialect === 'sqlite') {
        for (const statement of ran) {
          const rows = await db.executeQuery(CompiledQuery.raw(`explain query plan ${statement.sql}`, [...statement.parameters]));
          plans.push(rows.rows.map((row) => (row as { detail: string }).detail).join('\n'));
        }
      }
      return { records, plan: plans.join('\n') };
    };

    /** Every page of the list for one user.id filter, five spans a page, and the plans of its first page. */
    const listAll = async (candidates: (string | number | boolean)[]) => {
      const repository = createRepositories(db, dialect).spans;
      const found: SpanRecord[] = [];
      let plan: string | undefined;
      for (;;) {
        const tail = found.at(-1);
        const listed = await plansOf(() =>
          repository.list(
            { projectId, attributes: [{ key: 'user.id', candidates }] },
            { limit: 5, order: 'desc', ...(tail ? { from: { key: BigInt(tail.startTime), id: tail.id } } : {}) },
          ),
        );
        const page = listed.records;
        plan ??= listed.plan;
        // The cursor position is inclusive: a later page starts with the last span of the one before.
        found.push(...page.filter((record) => record.id !== tail?.id));
        if (page.length < 5) return { ids: found.map((record) => record.spanId), plan };
      }
    };

    it('fills in the user of traces stored before it, and the writer keeps it as spans arrive', async () => {
      const rows = await db.selectFrom('traces').select(['trace_id', 'user_id']).execute();
      const byTrace = Object.fromEntries(rows.map((row) => [row.trace_id, row.user_id]));
      for (const [name, key] of Object.entries(EXPECTED_KEYS)) assert.equal(byTrace[traceId(name)], key, name);
    });

    it('finds a user’s spans through their traces: every page, newest first, as the exact test decides', async () => {
      const cases: [(string | number | boolean)[], (value: unknown) => boolean][] = [
        [['alice'], (value) => value === 'alice'],
        [['bob'], (value) => value === 'bob'],
        [['carol'], (value) => value === 'carol'],
        [['dave'], (value) => value === 'dave'],
        [['frank'], (value) => value === 'frank'],
        [['12345', 12345], (value) => value === '12345' || value === 12345],
        [[12345], (value) => value === 12345],
        [['12345'], (value) => value === '12345'],
        [['true', true], (value) => value === 'true' || value === true],
        [[0.5], (value) => value === 0.5],
        [['nobody'], () => false],
      ];
      for (const [candidates, match] of cases) {
        const { ids, plan } = await listAll(candidates);
        assert.deepEqual(ids, expected(ALL, match), JSON.stringify(candidates));
        if (dialect === 'sqlite') {
          assert.match(plan!, new RegExp(USER_INDEX), `${JSON.stringify(candidates)}: ${plan}`);
          assert.doesNotMatch(plan!, new RegExp(WALK_INDEX), `${JSON.stringify(candidates)}: ${plan}`);
        }
      }
      assert.ok(expected(ALL, (value) => value === 'alice').length >= 3 && expected(ALL, (value) => value === 'bob').length === 3);
    });

    it(`reads a user with more than ${MAX_USER_TRACES_READ} traces a few traces at a time: every page, in both orders`, async () => {
      // Two spans a trace; every ninth trace's second span starts long after the next traces begin,
      // so that a trace's order among the others differs by its start and by its end.
      const zed: FixtureSpan[] = [];
      const base = START + 10_000_000_000n;
      for (let i = 0; i < MAX_USER_TRACES_READ + 200; i++) {
        const start = base + BigInt(i) * 10_000n;
        for (const offset of [0n, i % 9 === 0 ? 5_000_001n : 3_001n]) {
          zed.push({
            trace: `zed-${i}`,
            spanId: (spanCounter++).toString(16).padStart(16, '0'),
            start: start + offset,
            attributes: { 'user.id': 'zed' },
          });
        }
      }
      await write(zed.map(toRow));
      const repository = createRepositories(db, dialect).spans;
      const newestFirst = expected(zed, () => true);
      for (const order of ['desc', 'asc'] as const) {
        const found: SpanRecord[] = [];
        let plan = '';
        for (;;) {
          const tail = found.at(-1);
          const listed = await plansOf(() =>
            repository.list(
              { projectId, attributes: [{ key: 'user.id', candidates: ['zed'] }] },
              { limit: 97, order, ...(tail ? { from: { key: BigInt(tail.startTime), id: tail.id } } : {}) },
            ),
          );
          plan += listed.plan;
          found.push(...listed.records.filter((record) => record.id !== tail?.id));
          if (listed.records.length < 97) break;
        }
        const ids = found.map((record) => record.spanId);
        assert.deepEqual(ids, order === 'desc' ? newestFirst : [...newestFirst].reverse(), order);
        if (dialect === 'sqlite') {
          assert.match(plan, new RegExp(USER_INDEX), plan);
          assert.doesNotMatch(plan, new RegExp(WALK_INDEX), plan);
        }
      }
    });
  });
}
