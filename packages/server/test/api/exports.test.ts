/**
 * Exports (docs/export.md), on both dialects: spans and traces of a filter as CSV, JSONL and
 * Parquet (each read back by an independent reader: csv-parse, JSON.parse, hyparquet), with their
 * headers, long attribute values in full, the 422s before any byte, a client that leaves mid-file;
 * scheduled exports writing only what arrived since their last run, a failed run losing nothing;
 * who may do what, and scheduled exports off without SERVICE_EXPORT_DIR.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { SPAN_COLUMNS, TRACE_COLUMNS } from '../../src/exports/export-columns.js';
import {
  AUTH_ENV,
  anonymous,
  createActiveUser,
  createSystemKey,
  bearerClient,
  expectStatus,
  sessionOf,
  setupDefaultAdmin,
  unique,
} from '../helpers/auth.js';
import { at, expectError, getOk, newTraceId, request, sendSpans, type QuerySpan, waitForSearch } from '../helpers/query.js';
import { describeEachDialect, startTestServer } from '../helpers/server.js';

const exportDir = await mkdtemp(path.join(os.tmpdir(), 'sightline-exports-'));
after(() => rm(exportDir, { recursive: true, force: true }));

/** Traces of the corpus: a root with a long input, an LLM child, a tool span in every fourth, an error in every tenth. */
const TRACES = 500;
const LONG_INPUT = (i: number) => `question ${i} ${'q'.repeat(6000)} end`;

function trace(i: number, start: bigint, traceId = newTraceId()): QuerySpan[] {
  const rootId = `${i.toString(16).padStart(8, '0')}00000001`;
  const spans: QuerySpan[] = [
    {
      traceId,
      spanId: rootId,
      name: 'agent',
      kind: 'CHAIN',
      start,
      duration: 500_000_000n,
      status: 'OK',
      attributes: {
        'input.value': LONG_INPUT(i),
        'output.value': `answer ${i}`,
        'session.id': `session-${i % 5}`,
        'user.id': `user-${i % 3}`,
      },
    },
    {
      traceId,
      parentSpanId: rootId,
      name: 'llm',
      kind: 'LLM',
      start: start + 100_000_000n,
      duration: 200_000_000n,
      status: i % 10 === 0 ? 'ERROR' : 'OK',
      statusMessage: i % 10 === 0 ? '=1+1 failed' : '',
      attributes: {
        'llm.model_name': 'gpt-4o',
        'llm.token_count.prompt': 100,
        'llm.token_count.completion': 20,
        'llm.token_count.total': 120,
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': `message ${i} ${'m'.repeat(2000)}`,
      },
    },
  ];
  if (i % 4 === 0)
    spans.push({ traceId, parentSpanId: rootId, name: 'search', kind: 'TOOL', start: start + 300_000_000n, status: 'OK', attributes: {} });
  return spans;
}

const startOf = (i: number) => at(i * 1000, 123n);
const nowNanos = () => BigInt(Date.now()) * 1_000_000n;

async function download(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  const body = Buffer.from(await response.arrayBuffer());
  return { response, body };
}

const arrayBufferOf = (buffer: Buffer) => buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;

async function readParquet(buffer: Buffer) {
  const file = arrayBufferOf(buffer);
  const metadata = parquetMetadata(file);
  // Times read raw (nanoseconds as bigint), so that every digit can be compared.
  const rows = (await parquetReadObjects({ file, utf8: true, parsers: { timestampFromNanoseconds: (nanos: bigint) => nanos } })) as Record<
    string,
    unknown
  >[];
  return { metadata, rows };
}

const csvRows = (text: string) => {
  const [header, ...rows] = parse(text) as string[][];
  return rows.map((row) => Object.fromEntries(header!.map((name, index) => [name, row[index]!])));
};

describeEachDialect(
  'exports',
  (current) => {
    const url = () => current().url;
    const project = unique('exports');
    const base = () => `${url()}/v1/projects/${project}`;
    let traceIds: string[] = [];

    before(async () => {
      traceIds = Array.from({ length: TRACES }, () => newTraceId());
      const spans = traceIds.flatMap((traceId, i) => trace(i, startOf(i), traceId));
      for (let start = 0; start < spans.length; start += 250) await sendSpans(url(), project, spans.slice(start, start + 250));
      // Every root's words in the search index: SQLite's indexer, holding back on a busy machine,
      // indexes later spans first (docs/search.md), so the last trace found says nothing of the others.
      await waitForSearch(url(), project, 'answer', { count: TRACES, timeoutMs: 30_000 });
      // Costs are computed by their job, which follows ingest: run it now.
      await current().server.jobs.runNow('costs');
    });

    it('CSV of every span: the file as an attachment, oldest first, long values in full, costs, formulas defused', async () => {
      const { response, body } = await download(`${base()}/spans/export?format=csv`);
      assert.equal(response.status, 200, body.toString());
      assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
      assert.match(response.headers.get('content-disposition') ?? '', /^attachment; filename="exports[\w-]*-spans-\d{8}T\d{6}Z\.csv"$/);
      const [header] = parse(body.toString('utf8'), { toLine: 1 }) as string[][];
      assert.deepEqual(
        header,
        SPAN_COLUMNS.map((column) => column.name),
      );
      const rows = csvRows(body.toString('utf8'));
      assert.equal(rows.length, TRACES * 2 + TRACES / 4);
      const starts = rows.map((row) => row.start_time!);
      assert.deepEqual(starts, [...starts].sort(), 'oldest first');
      assert.equal(rows[0]!.start_time, '2025-11-22T00:00:00.000000123Z');
      const root = rows.find((row) => row.name === 'agent' && row.trace_id === traceIds[7]);
      assert.equal(JSON.parse(root!.attributes!)['input.value'], LONG_INPUT(7));
      const llm = rows.find((row) => row.name === 'llm' && row.trace_id === traceIds[10])!;
      assert.equal(llm.status_code, 'ERROR');
      assert.equal(llm.status_message, "'=1+1 failed");
      assert.equal(JSON.parse(llm.attributes!)['llm.input_messages.0.message.content'], `message 10 ${'m'.repeat(2000)}`);
      assert.equal(llm.token_count_total, '120');
      assert.ok(Number(llm.cost_total) > 0, `an LLM span of a priced model has a cost: ${llm.cost_total}`);
      assert.equal(root!.cost_total, '');
      assert.equal(root!.latency_ms, '500');
    });

    it('JSONL with a filter and the span list filters: an object per line, only the spans that match', async () => {
      const { response, body } = await download(
        `${base()}/spans/export?format=jsonl&filter=${encodeURIComponent("span_kind == 'TOOL' or status_code == 'ERROR'")}&name=search`,
      );
      assert.equal(response.status, 200, body.toString());
      assert.equal(response.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
      assert.match(response.headers.get('content-disposition') ?? '', /filename="[^"]+\.jsonl"$/);
      const lines = body
        .toString('utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.equal(lines.length, TRACES / 4);
      assert.ok(lines.every((line) => line.span_kind === 'TOOL' && line.name === 'search'));
      assert.deepEqual(
        Object.keys(lines[0]),
        SPAN_COLUMNS.map((column) => column.name),
      );
      assert.equal(typeof lines[0].attributes, 'object');
      // A condition on an attribute, through the windows of the time index.
      const errors = await download(`${base()}/spans/export?format=jsonl&filter=${encodeURIComponent("status_code == 'ERROR'")}`);
      const failed = errors.body
        .toString('utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.equal(failed.length, TRACES / 10);
      // A search of the spans' texts.
      const searched = await download(`${base()}/spans/export?format=jsonl&search=${encodeURIComponent('"question 7"')}`);
      const found = searched.body
        .toString('utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.deepEqual(
        found.map((line) => line.trace_id),
        [traceIds[7]],
      );
      assert.ok(failed.every((line) => line.name === 'llm' && line.status_message === '=1+1 failed'));
    });

    it('Parquet of a time range: typed columns, exact nanosecond times, long values intact', async () => {
      const range = `start_time=${encodeURIComponent('2025-11-22T00:01:40Z')}&end_time=${encodeURIComponent('2025-11-22T00:03:20Z')}`;
      const { response, body } = await download(`${base()}/spans/export?format=parquet&${range}`);
      assert.equal(response.status, 200, body.toString());
      assert.equal(response.headers.get('content-type'), 'application/vnd.apache.parquet');
      assert.match(response.headers.get('content-disposition') ?? '', /filename="[^"]+\.parquet"$/);
      const { metadata, rows } = await readParquet(body);
      // Traces 100 to 199: their roots and LLM spans, and a tool span in every fourth.
      assert.equal(metadata.num_rows, 225n);
      const schema = Object.fromEntries(metadata.schema.slice(1).map((element) => [element.name, element]));
      assert.deepEqual(
        Object.keys(schema),
        SPAN_COLUMNS.map((column) => column.name),
      );
      assert.deepEqual(schema.start_time?.logical_type, { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'NANOS' });
      assert.equal(schema.latency_ms?.type, 'DOUBLE');
      assert.equal(schema.token_count_total?.type, 'INT64');
      assert.equal(schema.name?.converted_type, 'UTF8');
      assert.equal(rows[0]!.start_time, startOf(100));
      const root = rows.find((row) => row.name === 'agent' && row.trace_id === traceIds[150])!;
      assert.equal(JSON.parse(root.attributes as string)['input.value'], LONG_INPUT(150));
      assert.equal(root.end_time, startOf(150) + 500_000_000n);
      assert.equal(rows.find((row) => row.name === 'llm')!.token_count_prompt, 100n);
    });

    it('traces: a row per trace with its root, status, tokens, cost, session and user; a filter tests their spans', async () => {
      const { response, body } = await download(`${base()}/traces/export?format=csv`);
      assert.equal(response.status, 200, body.toString());
      assert.match(response.headers.get('content-disposition') ?? '', /-traces-\d{8}T\d{6}Z\.csv"$/);
      const [header] = parse(body.toString('utf8'), { toLine: 1 }) as string[][];
      assert.deepEqual(
        header,
        TRACE_COLUMNS.map((column) => column.name),
      );
      const rows = csvRows(body.toString('utf8'));
      assert.deepEqual(
        rows.map((row) => row.trace_id),
        traceIds,
      );
      const tenth = rows[10]!;
      assert.equal(tenth.status, 'ERROR');
      assert.equal(tenth.error_count, '1');
      assert.equal(tenth.root_span_name, 'agent');
      assert.equal(tenth.input, LONG_INPUT(10));
      assert.equal(tenth.output, 'answer 10');
      assert.equal(tenth.span_count, '2');
      assert.equal(tenth.token_count_total, '120');
      assert.ok(Number(tenth.cost_total) > 0);
      assert.equal(tenth.session_id, 'session-0');
      assert.equal(tenth.user_id, 'user-1');
      assert.equal(rows[12]!.span_count, '3');
      assert.equal(rows[11]!.status, 'OK');

      const tools = await download(`${base()}/traces/export?format=parquet&filter=${encodeURIComponent("name == 'search'")}`);
      assert.equal(tools.response.status, 200, tools.body.toString());
      const { rows: withTools } = await readParquet(tools.body);
      assert.deepEqual(
        withTools.map((row) => row.trace_id),
        traceIds.filter((_, i) => i % 4 === 0),
      );
      assert.equal(withTools[1]!.span_count, 3n);
      const jsonl = await download(`${base()}/traces/export?format=jsonl&filter=${encodeURIComponent("status_code == 'ERROR'")}`);
      assert.equal(jsonl.body.toString('utf8').trimEnd().split('\n').length, TRACES / 10);
      // The trace list's other filters: one user's traces, and the words of their spans.
      const ofUser = await download(`${base()}/traces/export?format=jsonl&user_id=user-1`);
      const users = ofUser.body
        .toString('utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.deepEqual(
        users.map((line) => line.trace_id),
        traceIds.filter((_, i) => i % 3 === 1),
      );
      const searched = await download(`${base()}/traces/export?format=jsonl&search=${encodeURIComponent('"answer 42"')}`);
      assert.deepEqual(
        searched.body
          .toString('utf8')
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line).trace_id),
        [traceIds[42]],
      );
    });

    it('a bad format, filter or time answers 422 before any byte; an unknown project 404', async () => {
      for (const [what, query] of [
        ['no format', ''],
        ['format xml', 'format=xml'],
        ['a filter that does not parse', `format=csv&filter=${encodeURIComponent('name ==')}`],
        ['a filter on something no condition can test', `format=csv&filter=${encodeURIComponent("start_time > '2025'")}`],
        ['a bad start time', 'format=csv&start_time=yesterday'],
        ['an end before the start', 'format=parquet&start_time=2025-11-23T00:00:00Z&end_time=2025-11-22T00:00:00Z'],
        ['a bad attribute filter', 'format=csv&attribute=nocolon'],
      ] as const) {
        for (const target of ['spans', 'traces']) {
          if (target === 'traces' && what === 'a bad attribute filter') continue;
          const response = await request(url(), 'GET', `/v1/projects/${project}/${target}/export?${query}`);
          expectError(response, 422);
          assert.match(response.headers.get('content-type') ?? '', /application\/json/, `${target}: ${what}`);
          assert.equal(response.headers.get('content-disposition'), null, `${target}: ${what}`);
        }
      }
      expectError(await request(url(), 'GET', `/v1/projects/${unique('nowhere')}/spans/export?format=csv`), 404);
    });

    it('a client that leaves mid-file stops the export; the server answers and stores as before', async () => {
      for (const format of ['csv', 'parquet']) {
        const abort = new AbortController();
        const response = await fetch(`${base()}/spans/export?format=${format}`, { signal: abort.signal });
        assert.equal(response.status, 200);
        const reader = response.body!.getReader();
        const first = await reader.read();
        assert.ok(first.value && first.value.length > 0);
        abort.abort();
        await reader.read().catch(() => undefined);
      }
      // Many downloads cut short in a row leave nothing behind.
      for (let i = 0; i < 5; i++) {
        const abort = new AbortController();
        const response = await fetch(`${base()}/traces/export?format=jsonl`, { signal: abort.signal });
        await response.body!.getReader().read();
        abort.abort();
      }
      const again = await download(`${base()}/traces/export?format=jsonl`);
      assert.equal(again.body.toString('utf8').trimEnd().split('\n').length, TRACES);
      const fresh = newTraceId();
      await sendSpans(url(), project, [{ traceId: fresh, name: 'after the cut', start: nowNanos() }]);
      const found = await getOk(url(), `/v1/projects/${project}/spans?trace_id=${fresh}`);
      assert.equal(found.data.length, 1);
    });

    it('a scheduled export writes what arrived since its last run, and only that, into its own files', async () => {
      const own = unique('scheduled');
      await sendSpans(url(), own, trace(0, nowNanos()));
      assert.deepEqual((await getOk(url(), '/v1/scheduled_exports/status')).data, { enabled: true });
      const created = expectStatus(
        await request(url(), 'POST', `/v1/projects/${own}/scheduled_exports`, {
          name: 'LLM spans',
          target: 'span',
          format: 'parquet',
          filter: "span_kind == 'LLM'",
          interval_minutes: 60,
        }),
        200,
      ).body.data;
      assert.equal(created.directory, `${own}/LLM_spans`);
      assert.equal(created.enabled, true);
      const id = created.id;
      const run = async () => expectStatus(await request(url(), 'POST', `/v1/scheduled_exports/${id}/run`), 200).body.data;

      // What was stored before the export existed is not its business.
      const empty = await run();
      assert.equal(empty.row_count, 0);
      assert.equal(empty.file, null);

      const firstTraces = Array.from({ length: 12 }, (_, i) => trace(i, nowNanos()));
      await sendSpans(url(), own, firstTraces.flat());
      const first = await run();
      assert.equal(first.row_count, 12);
      assert.match(first.file, new RegExp(`^${own}/LLM_spans/\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3}Z\\.parquet$`));
      const firstFile = await readFile(path.join(exportDir, first.file));
      assert.equal(first.byte_count, firstFile.length);
      const { rows } = await readParquet(firstFile);
      assert.deepEqual(rows.map((row) => row.trace_id).sort(), firstTraces.map((spans) => spans[0]!.traceId).sort());
      assert.ok(rows.every((row) => row.span_kind === 'LLM'));

      const secondTraces = Array.from({ length: 5 }, (_, i) => trace(i, nowNanos()));
      await sendSpans(url(), own, secondTraces.flat());
      const second = await run();
      assert.equal(second.row_count, 5);
      assert.notEqual(second.file, first.file);
      const { rows: newer } = await readParquet(await readFile(path.join(exportDir, second.file)));
      assert.deepEqual(newer.map((row) => row.trace_id).sort(), secondTraces.map((spans) => spans[0]!.traceId).sort());
      assert.deepEqual(await readFile(path.join(exportDir, first.file)), firstFile, 'a written file is never touched again');
      // Nothing but the two files: no temporary file is left.
      assert.deepEqual(
        (await readdir(path.join(exportDir, own, 'LLM_spans'))).sort(),
        [path.basename(first.file), path.basename(second.file)].sort(),
      );

      const runs = await getOk(url(), `/v1/scheduled_exports/${id}/runs`);
      assert.deepEqual(
        runs.data.map((each: { row_count: number }) => each.row_count),
        [5, 12, 0],
      );
      const jobs = await getOk(url(), '/v1/system/jobs');
      assert.ok(jobs.data.some((job: { name: string }) => job.name === 'scheduled-exports'));
    });

    it('a scheduled trace export writes a row per trace whose root span arrived', async () => {
      const own = unique('scheduled-traces');
      await sendSpans(url(), own, trace(0, nowNanos()));
      const id = expectStatus(
        await request(url(), 'POST', `/v1/projects/${own}/scheduled_exports`, {
          name: 'traces',
          target: 'trace',
          format: 'csv',
          interval_minutes: 5,
        }),
        200,
      ).body.data.id;
      const fresh = Array.from({ length: 4 }, (_, i) => trace(i + 1, nowNanos()));
      await sendSpans(url(), own, fresh.flat());
      const ran = expectStatus(await request(url(), 'POST', `/v1/scheduled_exports/${id}/run`), 200).body.data;
      assert.equal(ran.row_count, 4);
      const rows = csvRows(await readFile(path.join(exportDir, ran.file), 'utf8'));
      assert.deepEqual(rows.map((row) => row.trace_id).sort(), fresh.map((spans) => spans[0]!.traceId).sort());
      assert.ok(rows.every((row) => row.root_span_name === 'agent' && row.input!.startsWith('question')));
    });

    it('a run that cannot write records its error and loses nothing: the next run writes those rows', async () => {
      const own = unique('blocked');
      await sendSpans(url(), own, trace(0, nowNanos()));
      const id = expectStatus(
        await request(url(), 'POST', `/v1/projects/${own}/scheduled_exports`, {
          name: 'all',
          target: 'span',
          format: 'jsonl',
          interval_minutes: 1,
        }),
        200,
      ).body.data.id;
      // A file where the export's folder should be: the run cannot create it.
      const blocker = path.join(exportDir, own);
      await writeFile(blocker, 'not a folder');
      const spans = await sendSpans(url(), own, trace(1, nowNanos()));
      const failed = expectStatus(await request(url(), 'POST', `/v1/scheduled_exports/${id}/run`), 200).body.data;
      assert.equal(failed.row_count, 0);
      assert.equal(failed.file, null);
      assert.match(failed.error, /EEXIST|ENOTDIR|not a directory|exists/i);
      await rm(blocker);
      const later = expectStatus(await request(url(), 'POST', `/v1/scheduled_exports/${id}/run`), 200).body.data;
      assert.equal(later.error, null);
      assert.equal(later.row_count, spans.length);
      const lines = (await readFile(path.join(exportDir, later.file), 'utf8')).trimEnd().split('\n');
      assert.deepEqual(lines.map((line) => JSON.parse(line).span_id).sort(), spans.map((span) => span.spanId).sort());
    });

    it('definitions are checked, paused, renamed and deleted; names never leave the directory', async () => {
      const own = unique('checks');
      await sendSpans(url(), own, trace(0, nowNanos()));
      const path_ = `/v1/projects/${own}/scheduled_exports`;
      const valid = { name: '../../../../tmp/escape', target: 'span', format: 'csv', interval_minutes: 10 };
      expectError(await request(url(), 'POST', path_, { ...valid, filter: 'name ==' }), 422, /filter/);
      expectError(await request(url(), 'POST', path_, { ...valid, interval_minutes: 0 }), 422);
      expectError(await request(url(), 'POST', path_, { ...valid, format: 'xlsx' }), 422);
      expectError(await request(url(), 'POST', path_, { ...valid, target: 'session' }), 422);
      const created = expectStatus(await request(url(), 'POST', path_, valid), 200).body.data;
      const [folder, name, ...rest] = created.directory.split('/');
      assert.equal(folder, own);
      assert.deepEqual(rest, []);
      assert.ok(!name.startsWith('.') && name.endsWith('tmp_escape'), name);
      expectError(await request(url(), 'POST', path_, valid), 409);
      const one = `/v1/scheduled_exports/${created.id}`;
      expectError(await request(url(), 'PATCH', one, { target: 'trace' }), 422, /target/);
      const paused = expectStatus(await request(url(), 'PATCH', one, { enabled: false, name: 'renamed' }), 200).body.data;
      assert.equal(paused.enabled, false);
      assert.equal(paused.directory, `${own}/renamed`);
      expectError(await request(url(), 'POST', `${one}/run`), 422, /paused/);
      const listed = await getOk(url(), path_);
      assert.deepEqual(
        listed.data.map((each: { name: string }) => each.name),
        ['renamed'],
      );
      await sendSpans(url(), own, trace(1, nowNanos()));
      expectStatus(await request(url(), 'PATCH', one, { enabled: true }), 200);
      const ran = expectStatus(await request(url(), 'POST', `${one}/run`), 200).body.data;
      assert.ok(path.resolve(exportDir, ran.file).startsWith(`${exportDir}${path.sep}${own}${path.sep}renamed${path.sep}`));
      expectStatus(await request(url(), 'DELETE', one), 204);
      expectError(await request(url(), 'GET', one), 404);
      expectError(await request(url(), 'GET', `${one}/runs`), 404);
      assert.ok(existsSync(path.join(exportDir, ran.file)), 'the files of a deleted export stay');
    });
  },
  { SERVICE_EXPORT_DIR: exportDir },
);

describeEachDialect(
  'exports with auth on and no export directory',
  (current) => {
    const url = () => current().url;
    const project = unique('exports-auth');

    it('anyone who reads spans may export them; only admins set scheduled exports, which are off without a directory', async () => {
      const admin = await setupDefaultAdmin(url());
      const adminClient = sessionOf(url(), admin);
      const member = await createActiveUser(url(), adminClient, 'member');
      const memberClient = bearerClient(url(), member.key);
      const system = bearerClient(url(), (await createSystemKey(adminClient)).key);
      await sendSpans(url(), project, trace(0, nowNanos()), { authorization: `Bearer ${member.key}` });

      for (const client of [memberClient, system, sessionOf(url(), member)]) {
        const response = await client.get(`/v1/projects/${project}/spans/export?format=csv`);
        expectStatus(response, 200);
        // A header and the trace's three spans.
        assert.equal(parse(response.body as string).length, 4);
      }
      expectStatus(await anonymous(url()).get(`/v1/projects/${project}/traces/export?format=csv`), 401);

      const definition = { name: 'nightly', target: 'span', format: 'parquet', interval_minutes: 60 };
      expectStatus(await memberClient.post(`/v1/projects/${project}/scheduled_exports`, definition), 403);
      expectStatus(await system.post(`/v1/projects/${project}/scheduled_exports`, definition), 403);
      const off = expectStatus(await adminClient.post(`/v1/projects/${project}/scheduled_exports`, definition), 422);
      assert.match(off.body.detail, /SERVICE_EXPORT_DIR/);
      assert.deepEqual(expectStatus(await memberClient.get('/v1/scheduled_exports/status'), 200).body.data, { enabled: false });
      assert.deepEqual(expectStatus(await memberClient.get(`/v1/projects/${project}/scheduled_exports`), 200).body.data, []);
      const jobs = expectStatus(await system.get('/v1/system/jobs'), 200).body.data as { name: string }[];
      assert.ok(!jobs.some((job) => job.name === 'scheduled-exports'), 'no job without a directory');
    });
  },
  AUTH_ENV,
);

it('a server stopping cuts the downloads in progress rather than waiting for their clients', async () => {
  const server = await startTestServer('sqlite');
  let closed = false;
  try {
    const project = unique('stopping');
    for (let i = 0; i < 4; i++)
      await sendSpans(server.url, project, Array.from({ length: 100 }, (_, t) => trace(i * 100 + t, at(t))).flat());
    // A client that reads the first bytes of a large file, then nothing more.
    const response = await fetch(`${server.url}/v1/projects/${project}/spans/export?format=csv`);
    assert.equal(response.status, 200);
    await response.body!.getReader().read();
    const started = Date.now();
    await server.close();
    closed = true;
    assert.ok(Date.now() - started < 5_000, `closed in ${Date.now() - started} ms`);
  } finally {
    if (!closed) await server.close();
  }
});
