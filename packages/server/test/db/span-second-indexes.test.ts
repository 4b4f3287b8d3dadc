/**
 * SQLite's span kind and name indexes keyed by start second, then row id (migration 0023,
 * db/start-seconds.ts): the migration replaces the time-keyed ones on a database written
 * before it; lists filtered by kind or name come in exact (start time, id) order through every
 * page, in both orders, with several values, time ranges and a long-value filter; and on SQLite they read the new
 * indexes, sorting only each second's rows. PostgreSQL, whose indexes stay, gives the same lists.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { applyMigrations } from '../../src/db/migrate.js';
import { packLongJson } from '../../src/span-model/long-attributes.js';
import { migrations } from '../../src/db/migrations/index.js';
import { createRepositories } from '../../src/db/repositories/index.js';
import type { SpanFilters } from '../../src/db/repositories/spans-repository.js';
import type { DB } from '../../src/db/schema.js';
import type { SpanRow } from '../../src/span-model/span-rows.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { spanRow } from '../helpers/span-row.js';
import { openLoggedKysely, openSpanWriter } from '../helpers/span-writer.js';

const PROJECT = 'second-indexes';
const SECOND = 1_000_000_000n;
/** A whole second a little before now, so that PostgreSQL's day partitions take the spans as they are. */
const BASE = (BigInt(Date.now()) / 1000n - 600n) * SECOND;
const KINDS = ['LLM', 'CHAIN', 'TOOL'];
const NAMES = ['chat', 'search', 'plan', 'answer'];
const traceId = (n: number) => n.toString(16).padStart(32, '0');
const spanId = (n: number) => n.toString(16).padStart(16, '0');
/** A value long enough to be stored compressed beside the JSON column (span-model/long-attributes.ts); every fourth span has it. */
const LONG_INPUT = 'a long prompt '.repeat(8);
const hasLongInput = (n: number) => n % 4 === 0;

/**
 * 120 spans of 24 traces sent out of start order, as exporters send them: several in one second
 * and the same start time twice (ties broken by row id), across 12 seconds.
 */
function corpus(offset: number): SpanRow[] {
  return Array.from({ length: 60 }, (_, index) => {
    const n = offset + index;
    const second = BigInt((n * 7) % 12);
    const within = BigInt((n * 3) % 5) * 100_000_000n;
    return spanRow({
      projectName: PROJECT,
      traceId: traceId(Math.floor(n / 5)),
      spanId: spanId(n + 1),
      name: NAMES[n % NAMES.length]!,
      spanKind: KINDS[n % KINDS.length]!,
      startTime: BASE + second * SECOND + within,
      endTime: BASE + second * SECOND + within + 1n,
      longAttributes: hasLongInput(n) ? packLongJson(JSON.stringify({ 'input.value': LONG_INPUT })) : null,
    });
  });
}

interface Listed {
  id: number;
  startTime: string;
}

for (const dialect of DIALECTS) {
  describe(`span kind and name indexes keyed by second (migration 0023) [${dialect}]`, () => {
    let database: TestDatabase;
    let db: Kysely<DB>;
    let statements: CompiledQuery[] = [];
    let closeWriter: () => Promise<void>;
    let projectId: number;
    let stored: { id: number; name: string; spanKind: string; startTime: bigint; longInput: boolean }[];

    before(async () => {
      database = await createTestDatabase(dialect);
      const file = path.join(database.workingDir, 'sightline.db');
      db = openLoggedKysely(database, file, () => statements);
      const all = migrations({ dialect });
      assert.ok('0023-span-second-indexes' in all);
      await applyMigrations(db as Kysely<unknown>, dialect, Object.fromEntries(Object.entries(all).filter(([name]) => name < '0023')));
      // Half the spans as the release before 0023 stored them, half after it. Today's writer also
      // writes what later migrations add (0037's and 0048's words, 0049's notes, 0044's rollups, 0045's deletion queue,
      // 0046's rollup costs): those are made for the first half and dropped again, so that the migrations
      // from 0023 on find the older schema.
      const later = [
        '0037-full-text-search',
        '0044-dashboards',
        '0045-search-index-file',
        '0046-summary-rollups',
        '0048-span-search-vectors',
        '0049-span-search-pending',
      ] as const;
      for (const name of later) await all[name]!.up(db as Kysely<unknown>);
      let writer = openSpanWriter(database, file);
      await writer.write(corpus(0));
      await writer.close();
      for (const statement of [
        'DROP INDEX span_costs_project_time_cost',
        'DROP TABLE dashboards',
        'DROP TABLE span_rollups',
        ...(dialect === 'postgres'
          ? ['DROP TABLE span_search_pending', 'DROP TABLE span_search_vectors']
          : ['DROP TRIGGER spans_search_delete', 'DROP TABLE span_search_deletions']),
      ])
        await sql.raw(statement).execute(db);
      await applyMigrations(db as Kysely<unknown>, dialect, all);
      writer = openSpanWriter(database, file);
      closeWriter = writer.close;
      await writer.write(corpus(60));
      const rows = await sql<{
        id: number;
        project_id: number;
        name: string;
        span_kind: string;
        start_time: string;
        span_id: string;
      }>`SELECT id, project_id, name, span_kind, CAST(start_time AS TEXT) AS start_time, span_id FROM spans`.execute(db);
      stored = rows.rows.map((row) => ({
        id: Number(row.id),
        name: row.name,
        spanKind: row.span_kind,
        startTime: BigInt(row.start_time),
        longInput: hasLongInput(Number.parseInt(row.span_id, 16) - 1),
      }));
      projectId = Number(rows.rows[0]!.project_id);
    });
    after(async () => {
      await closeWriter?.();
      await db?.destroy();
      await database?.drop();
    });

    /** Every page of the list, `limit` at a time, following the keyset as the API does. */
    const allPages = async (filters: Omit<SpanFilters, 'projectId'>, order: 'asc' | 'desc', limit: number): Promise<Listed[]> => {
      const spans = createRepositories(db, dialect).spans;
      const listed: Listed[] = [];
      let from: { key: bigint; id: number } | undefined;
      for (;;) {
        const page = await spans.list({ projectId, ...filters }, { limit: limit + 1, order, ...(from ? { from } : {}) });
        listed.push(...page.slice(0, limit).map((span) => ({ id: span.id, startTime: span.startTime })));
        if (page.length <= limit) return listed;
        const next = page[limit]!;
        from = { key: BigInt(next.startTime), id: next.id };
      }
    };
    /** The same list computed here: every matching span by (start time, id). */
    const expected = (filters: Omit<SpanFilters, 'projectId'>, order: 'asc' | 'desc'): Listed[] => {
      const sign = order === 'asc' ? 1 : -1;
      return stored
        .filter((span) => !filters.spanKinds || filters.spanKinds.includes(span.spanKind))
        .filter((span) => !filters.names || filters.names.includes(span.name))
        .filter((span) => filters.startTime === undefined || span.startTime >= filters.startTime)
        .filter((span) => filters.endTime === undefined || span.startTime < filters.endTime)
        .filter((span) => !filters.attributes || span.longInput)
        .sort((a, b) => sign * (a.startTime === b.startTime ? a.id - b.id : a.startTime < b.startTime ? -1 : 1))
        .map((span) => ({ id: span.id, startTime: span.startTime.toString() }));
    };

    it('replaces the time-keyed kind and name indexes on SQLite and keeps PostgreSQL’s', async () => {
      const names =
        dialect === 'sqlite'
          ? (await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'spans'`.execute(db)).rows
          : (await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'spans'`.execute(db)).rows;
      const indexes = new Set(names.map((row) => row.name));
      const seconds = ['spans_project_kind_second', 'spans_project_name_second'];
      const times = ['spans_project_kind_start', 'spans_project_name_start'];
      for (const name of dialect === 'sqlite' ? seconds : times) assert.ok(indexes.has(name), `${name} in ${[...indexes].join(', ')}`);
      for (const name of dialect === 'sqlite' ? times : seconds) assert.ok(!indexes.has(name), name);
      assert.equal(stored.length, 120);
    });

    const cases: [string, Omit<SpanFilters, 'projectId'>][] = [
      ['one kind', { spanKinds: ['LLM'] }],
      ['two kinds', { spanKinds: ['TOOL', 'LLM'] }],
      ['one name', { names: ['search'] }],
      ['three names and two kinds', { names: ['chat', 'plan', 'answer'], spanKinds: ['CHAIN', 'TOOL'] }],
      ['a kind within a time range', { spanKinds: ['CHAIN'], startTime: BASE + 3n * SECOND + 200_000_000n, endTime: BASE + 9n * SECOND }],
      ['a kind no span has', { spanKinds: ['RETRIEVER'] }],
      [
        'two kinds with a long value (finished on the merged attributes)',
        { spanKinds: ['LLM', 'CHAIN'], attributes: [{ key: 'input.value', candidates: [LONG_INPUT] }] },
      ],
    ];
    for (const [label, filters] of cases) {
      it(`lists ${label} in exact order through every page, both ways`, async () => {
        for (const order of ['desc', 'asc'] as const) {
          const want = expected(filters, order);
          if (!label.includes('no span')) assert.ok(want.length >= 5, `${label}: ${want.length} spans`);
          assert.deepEqual(await allPages(filters, order, 4), want, `${label}, ${order}`);
        }
      });
    }

    if (dialect === 'sqlite') {
      it('reads a kind or a name through its second-keyed index, sorting only within a second', async () => {
        const plans: [Omit<SpanFilters, 'projectId'>, string, number][] = [
          [{ spanKinds: ['LLM'] }, 'spans_project_kind_second', 1],
          [{ spanKinds: ['LLM', 'TOOL'] }, 'spans_project_kind_second', 2],
          [{ names: ['chat'], startTime: BASE }, 'spans_project_name_second', 1],
        ];
        for (const [filters, index, values] of plans) {
          statements = [];
          await createRepositories(db, dialect).spans.list(
            { projectId, ...filters },
            { limit: 10, order: 'desc', from: { key: BASE + 5n * SECOND, id: 1_000 } },
          );
          const ran = statements;
          statements = [];
          assert.equal(ran.length, 1, ran.map((statement) => statement.sql).join('\n'));
          const plan = await db.executeQuery(CompiledQuery.raw(`explain query plan ${ran[0]!.sql}`, [...ran[0]!.parameters]));
          const detail = plan.rows.map((row) => (row as { detail: string }).detail).join('\n');
          // One scan per value, each a range of seconds in the index, each sorting only within a second.
          const scans = detail.match(new RegExp(`USING INDEX ${index} \\(project_id=\\? AND \\w+=\\? AND <expr>[<>]`, 'g')) ?? [];
          assert.equal(scans.length, values, detail);
          assert.equal((detail.match(/USE TEMP B-TREE FOR LAST 2 TERMS OF ORDER BY/g) ?? []).length, values, detail);
          assert.doesNotMatch(detail, /SCAN spans/, detail);
        }
      });

      it('sums tokens by model over a time range through the kind index, not the project time index', async () => {
        statements = [];
        const models = await createRepositories(db, dialect).projectMetrics.byModel({
          projectId,
          startTime: BASE + 2n * SECOND,
          endTime: BASE + 8n * SECOND,
        });
        const ran = statements;
        statements = [];
        // Every LLM span in the range, and only those.
        const inRange = stored.filter(
          (span) => span.spanKind === 'LLM' && span.startTime >= BASE + 2n * SECOND && span.startTime < BASE + 8n * SECOND,
        );
        assert.equal(
          models.reduce((sum, model) => sum + model.spanCount, 0),
          inRange.length,
        );
        assert.equal(ran.length, 1);
        const plan = await db.executeQuery(CompiledQuery.raw(`explain query plan ${ran[0]!.sql}`, [...ran[0]!.parameters]));
        const detail = plan.rows.map((row) => (row as { detail: string }).detail).join('\n');
        assert.match(
          detail,
          /USING INDEX spans_project_kind_second \(project_id=\? AND span_kind=\? AND <expr>>\? AND <expr><\?\)/,
          detail,
        );
      });
    }
  });
}
