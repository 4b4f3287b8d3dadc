/**
 * Migration 0019 and the conversion of older spans (docs/ingest.md, "How attributes are stored"):
 * a database filled as the release before it wrote spans (every attribute in the JSON column)
 * reads the same before, during and after the conversion, ends with its long values compressed
 * beside the JSON column, and a conversion stopped halfway resumes where it stopped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { openDatabase, type Database } from '../../src/db/database.js';
import { applyMigrations } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { createDataAccess } from '../../src/db/repositories/index.js';
import { LONG_ATTRIBUTES_DONE, LONG_ATTRIBUTES_LAST } from '../../src/db/repositories/long-attributes-repository.js';
import type { DB } from '../../src/db/schema.js';
import { sqlDialect } from '../../src/db/sql-dialect.js';
import { loadConfig } from '../../src/config.js';
import { createLongAttributesJob } from '../../src/jobs/long-attributes-job.js';
import { startJobRunner } from '../../src/jobs/job-runner.js';
import type { RunningServer } from '../../src/server.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/databases.js';
import { startServerOn } from '../helpers/server.js';
import { insertProject } from '../helpers/stored.js';
import { at, getOk, newSpanId, newTraceId, sendSpans } from '../helpers/query.js';

const PROJECT = 'release-data';
const SESSION = 'session-before-0018';
const question = (i: number) => `Question ${i}: which of our three plans covers a team of twelve, and what does it cost per seat?`;
const answer = (i: number) => `Answer ${i}: the Team plan covers up to twenty seats at 14 USD a seat and month, billed yearly.`;

interface FixtureSpan {
  spanId: string;
  parentId: string | null;
  traceId: string;
  name: string;
  kind: string;
  start: bigint;
  attributes: Record<string, unknown>;
}

/** Spans as a test writes them: two traces of one session, roots with long input and output, children of every kind of value. */
function fixture(spansPerTrace: number): FixtureSpan[] {
  const spans: FixtureSpan[] = [];
  for (const [t, traceId] of [newTraceId(), newTraceId()].entries()) {
    const rootId = newSpanId();
    spans.push({
      spanId: rootId,
      parentId: null,
      traceId,
      name: 'turn',
      kind: 'CHAIN',
      start: at(t * 100_000),
      attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': question(t), 'output.value': answer(t), 'session.id': SESSION },
    });
    for (let i = 1; i < spansPerTrace; i++) {
      const n = t * spansPerTrace + i;
      spans.push({
        spanId: newSpanId(),
        parentId: rootId,
        traceId,
        name: i % 10 === 0 ? 'lookup' : 'chat',
        kind: i % 10 === 0 ? 'TOOL' : 'LLM',
        start: at(t * 100_000 + i),
        // Every tenth span has short values only: it needs no conversion.
        attributes:
          i % 10 === 0
            ? { 'openinference.span.kind': 'TOOL', 'tool.name': 'search', retries: 2, ok: true, tags: ['a', 'b'] }
            : {
                'openinference.span.kind': 'LLM',
                'llm.model_name': 'gpt-4o-mini',
                'llm.input_messages.0.message.role': 'user',
                'llm.input_messages.0.message.content': question(n),
                'llm.output_messages.0.message.content': answer(n),
                'input.value': question(n),
                'output.value': answer(n),
                'llm.token_count.prompt': n,
                'embedding.vector': Array.from({ length: 20 }, (_, k) => k / 3),
              },
      });
    }
  }
  return spans;
}

/**
 * Writes the spans as the release before migration 0019 did (span-writes-*.ts of that release):
 * the whole attribute object as JSON in `attributes`, on a schema migrated up to 0017 only.
 */
async function writeAsRelease(db: Kysely<DB>, dialect: 'sqlite' | 'postgres', spans: FixtureSpan[]): Promise<void> {
  const json = sqlDialect(dialect).json;
  const projectId = await insertProject(db, PROJECT);
  const traceIds = [...new Set(spans.map((span) => span.traceId))];
  const times = spans.map((span) => span.start);
  const session = await db
    .insertInto('project_sessions')
    .values({
      project_id: projectId,
      session_id: SESSION,
      start_time: sql`cast(${times[0]!.toString()} as bigint)`,
      end_time: sql`cast(${times.at(-1)!.toString()} as bigint)`,
    } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  const traceRowids = new Map<string, number>();
  for (const traceId of traceIds) {
    const own = spans.filter((span) => span.traceId === traceId).map((span) => span.start);
    const row = await db
      .insertInto('traces')
      .values({
        project_id: projectId,
        trace_id: traceId,
        start_time: sql`cast(${own[0]!.toString()} as bigint)`,
        end_time: sql`cast(${(own.at(-1)! + 1_000_000n).toString()} as bigint)`,
        project_session_rowid: session.id,
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    traceRowids.set(traceId, Number(row.id));
  }
  for (const span of spans) {
    await sql`INSERT INTO spans (trace_rowid, project_id, span_id, parent_id, name, span_kind, start_time, end_time,
        status_code, status_message, attributes, events, llm_token_count_prompt, llm_token_count_completion, llm_token_count_total)
      VALUES (${traceRowids.get(span.traceId)!}, ${projectId}, ${span.spanId}, ${span.parentId}, ${span.name}, ${span.kind},
        cast(${span.start.toString()} as bigint), cast(${(span.start + 1_000_000n).toString()} as bigint), 'OK', '',
        ${json(span.attributes)}, ${json([])}, NULL, NULL, NULL)`.execute(db);
  }
}

/** A test database migrated to 0017 and filled as the release did. */
async function releaseDatabase(dialect: 'sqlite' | 'postgres', spans: FixtureSpan[]): Promise<TestDatabase> {
  const database = await createTestDatabase(dialect);
  const config = loadConfig({
    SERVICE_WORKING_DIR: database.workingDir,
    ...(database.url ? { SERVICE_SQL_DATABASE_URL: database.url } : {}),
  });
  const opened = openDatabase(config.database);
  try {
    const all = migrations({ dialect });
    const release = Object.fromEntries(Object.entries(all).filter(([name]) => name < '0019'));
    assert.ok('0019-long-attributes' in all && !('0019-long-attributes' in release), 'every migration before the one under test');
    await applyMigrations(opened.db as Kysely<unknown>, dialect, release);
    await writeAsRelease(opened.db, dialect, spans);
  } finally {
    await opened.close();
  }
  return database;
}

/** The API's attributes of a fixture span (the span kind moves to span_kind). */
function apiAttributes(span: FixtureSpan): Record<string, unknown> {
  const { 'openinference.span.kind': _kind, ...rest } = span.attributes;
  return rest;
}

/** Every span of the project through the API, by span id. */
async function apiSpans(url: string): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  let cursor: string | null = null;
  do {
    const page = await getOk(url, `/v1/projects/${PROJECT}/spans?limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
    for (const span of page.data as { context: { span_id: string }; attributes: Record<string, unknown> }[]) {
      found.set(span.context.span_id, span.attributes);
    }
    cursor = page.next_cursor;
  } while (cursor);
  return found;
}

/** What the stored rows hold: JSON column objects, compressed bytes, and the conversion's job_state rows. */
async function storedRows(database: Database) {
  const rows = await database.db.selectFrom('spans').select(['span_id', 'attributes', 'long_attributes']).orderBy('id').execute();
  const state = await database.db
    .selectFrom('job_state')
    .select(['name', 'value'])
    .where('name', 'in', [LONG_ATTRIBUTES_LAST, LONG_ATTRIBUTES_DONE])
    .execute();
  const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
  return {
    rows: rows.map((row) => ({ spanId: row.span_id, json: json(row.attributes), long: row.long_attributes })),
    state: Object.fromEntries(state.map((row) => [row.name, Number(row.value)])),
    bytes: rows.reduce((sum, row) => sum + JSON.stringify(json(row.attributes)).length + (row.long_attributes?.length ?? 0), 0),
  };
}

for (const dialect of DIALECTS) {
  describe(`migration 0019 converts a database written by the release before it [${dialect}]`, () => {
    const spans = fixture(600);
    let database: TestDatabase;
    let server: RunningServer | null = null;
    before(async () => {
      database = await releaseDatabase(dialect, spans);
    });
    after(async () => {
      await server?.close();
      await database?.drop();
    });

    it('reads the same before and after the conversion, and stores the long values compressed', async () => {
      const expected = new Map(spans.map((span) => [span.spanId, apiAttributes(span)]));
      const longFilter = `attribute=${encodeURIComponent(`input.value:${question(7)}`)}`;
      // Migrated, not converted yet (no server runs the job): the rows are in the release's form and read as before.
      const config = loadConfig({
        SERVICE_WORKING_DIR: database.workingDir,
        ...(database.url ? { SERVICE_SQL_DATABASE_URL: database.url } : {}),
      });
      const opened = openDatabase(config.database);
      let before: Awaited<ReturnType<typeof storedRows>>;
      try {
        await applyMigrations(opened.db as Kysely<unknown>, dialect, migrations({ dialect }));
        before = await storedRows(opened);
        assert.ok(before.rows.every((row) => row.long === null));
        const repositories = createDataAccess(opened).repositories;
        const project = (await repositories.projects.findByName(PROJECT))!;
        const page = await repositories.spans.list(
          { projectId: project.id, attributes: [{ key: 'input.value', candidates: [question(7)] }] },
          { limit: 10, order: 'desc' },
        );
        assert.deepEqual(
          page.map((span) => span.spanId),
          [spans[7]!.spanId],
        );
        const all = await repositories.spans.list({ projectId: project.id }, { limit: 2000, order: 'asc' });
        assert.deepEqual(
          new Map(all.map((span) => [span.spanId, span.attributes])),
          new Map(spans.map((span) => [span.spanId, span.attributes])),
        );
      } finally {
        await opened.close();
      }

      server = await startServerOn(database);
      // During the conversion (or after it, on a fast machine): the same answers.
      assert.deepEqual(await apiSpans(server.url), expected);
      assert.deepEqual((await getOk(server.url, `/v1/projects/${PROJECT}/spans?${longFilter}`)).data.length, 1);

      await server.longAttributesJob.finished();
      const converted = await storedRows(server.database);
      assert.equal(converted.state[LONG_ATTRIBUTES_LAST], spans.length, 'the migration recorded the newest row');
      assert.equal(converted.state[LONG_ATTRIBUTES_DONE], spans.length, 'the job went all the way');
      for (const [index, row] of converted.rows.entries()) {
        const original = spans[index]!;
        assert.equal(row.spanId, original.spanId);
        if (original.name === 'lookup') {
          assert.equal(row.long, null, 'short values only: left as it was');
          assert.deepEqual(row.json, original.attributes);
        } else {
          assert.ok(row.long, `${original.name} ${index} has long values`);
          assert.equal(row.json['input.value'], undefined);
          assert.equal(row.json['llm.input_messages.0.message.role'], undefined);
        }
      }
      assert.ok(converted.bytes < before.bytes * 0.5, `attribute bytes ${before.bytes} -> ${converted.bytes}`);

      assert.deepEqual(await apiSpans(server.url), expected);
      const [found] = (await getOk(server.url, `/v1/projects/${PROJECT}/spans?${longFilter}`)).data;
      assert.equal(found.context.span_id, spans[7]!.spanId);
      assert.deepEqual(
        (await getOk(server.url, `/v1/projects/${PROJECT}/spans?attribute=llm.token_count.prompt:8`)).data.map(
          (span: { context: { span_id: string } }) => span.context.span_id,
        ),
        [spans[8]!.spanId],
      );
      const session = (await getOk(server.url, `/v1/sessions/${SESSION}`)).data;
      assert.equal(session.first_input, question(0));
      assert.equal(session.last_output, answer(1));
    });

    it('stores new spans in the new form and, restarted, has nothing left to do', async () => {
      const traceId = newTraceId();
      const [sent] = await sendSpans(server!.url, PROJECT, [
        { traceId, name: 'new', start: at(500_000), attributes: { 'input.value': question(9999), short: 'x' } },
      ]);
      await server!.close();
      server = await startServerOn(database);
      await server.longAttributesJob.finished();
      const stored = await storedRows(server.database);
      assert.equal(stored.state[LONG_ATTRIBUTES_DONE], spans.length);
      const row = stored.rows.find((candidate) => candidate.spanId === sent!.spanId)!;
      assert.deepEqual(row.json, { short: 'x' });
      assert.ok(row.long);
      const span = (await getOk(server.url, `/v1/spans/${sent!.spanId}`)).data;
      assert.deepEqual(span.attributes, { 'input.value': question(9999), short: 'x' });
    });
  });

  describe(`the conversion job resumes where it stopped [${dialect}]`, () => {
    it('records its progress with each batch', async () => {
      const spans = fixture(150);
      const database = await releaseDatabase(dialect, spans);
      const config = loadConfig({
        SERVICE_WORKING_DIR: database.workingDir,
        ...(database.url ? { SERVICE_SQL_DATABASE_URL: database.url } : {}),
      });
      const opened = openDatabase(config.database);
      // The runner's timers never keep a process alive (a server's sockets do); here nothing else would.
      const keepAlive = setInterval(() => {}, 1000);
      try {
        await applyMigrations(opened.db as Kysely<unknown>, dialect, migrations({ dialect }));
        const { repositories, withTransaction } = createDataAccess(opened);
        assert.deepEqual(await repositories.longAttributes.progress(), { last: 300, done: 0 });
        let batches = 0;
        const stopping = createLongAttributesJob({
          repository: repositories.longAttributes,
          withTransaction,
          batchSpans: 40,
          delayMs: 0,
          onProgress: () => {
            batches++;
            if (batches === 2) void runner.stop();
          },
        });
        const runner = startJobRunner([stopping], { leases: repositories.jobLeases });
        await stopping.finished();
        await runner.stop();
        const halfway = await repositories.longAttributes.progress();
        assert.equal(halfway.done, 80, 'two batches of 40 rows');
        const rows = await opened.db.selectFrom('spans').select(['id', 'long_attributes']).orderBy('id').execute();
        // Row 1 (a root), rows 11, 21, … (short values only) need nothing; every other row up to 80 is converted, none after.
        for (const row of rows) {
          const needs = row.id === 1 || row.id === 151 || ((row.id - 1) % 150) % 10 !== 0;
          assert.equal(row.long_attributes !== null, needs && row.id <= 80, `row ${row.id}`);
        }
        const resumed = createLongAttributesJob({ repository: repositories.longAttributes, withTransaction, batchSpans: 40, delayMs: 0 });
        const again = startJobRunner([resumed], { leases: repositories.jobLeases });
        await resumed.finished();
        await again.stop();
        assert.deepEqual(await repositories.longAttributes.progress(), { last: 300, done: 300 });
        const after = await opened.db.selectFrom('spans').select(['id', 'long_attributes']).where('long_attributes', 'is', null).execute();
        assert.equal(after.length, 28, 'only the 28 spans with short values only');
      } finally {
        clearInterval(keepAlive);
        await opened.close();
        await database.drop();
      }
    });
  });
}
