/** GET /v1/projects/{p}/spans (every filter, keyset pagination, validation) and GET /v1/spans/{id}. */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { toGlobalId } from '../../src/api/shared/global-id.js';
import { nanosToIso } from '../../src/span-model/time.js';
import { describeEachDialect } from '../helpers/server.js';
import { unique } from '../helpers/auth.js';
import { EXPORTER_KINDS, exportSampleTrace, hrToNanos, makeExporter } from '../helpers/otel.js';
import { at, collectPages, expectError, getOk, newSpanId, newTraceId, request, sendSpans, type QuerySpan } from '../helpers/query.js';

interface ApiSpan {
  id: string;
  name: string;
  context: { trace_id: string; span_id: string };
  parent_id: string | null;
  span_kind: string;
  start_time: string;
  end_time: string;
  status_code: string;
  status_message: string;
  attributes: Record<string, unknown>;
  events: { name: string; timestamp: string; attributes: Record<string, unknown> }[];
  latency_ms: number;
  token_count_prompt: number | null;
  token_count_completion: number | null;
  token_count_total: number | null;
}

const NINE_DIGITS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/;
const rowid = (id: string) => Number(/^Span:(\d+)$/.exec(Buffer.from(id, 'base64').toString())![1]);

/** The expected API form of a span recorded by the OpenTelemetry SDK. */
function expectedFromSdk(sent: ReadableSpan) {
  const attributes: Record<string, unknown> = { ...sent.attributes };
  delete attributes['openinference.span.kind'];
  const start = hrToNanos(sent.startTime);
  const end = hrToNanos(sent.endTime);
  return {
    name: sent.name,
    context: { trace_id: sent.spanContext().traceId, span_id: sent.spanContext().spanId },
    parent_id: sent.parentSpanContext?.spanId ?? null,
    start_time: nanosToIso(start),
    end_time: nanosToIso(end),
    status_code: (['UNSET', 'OK', 'ERROR'] as const)[sent.status.code],
    status_message: sent.status.message ?? '',
    attributes,
    events: sent.events.map((event) => ({
      name: event.name,
      timestamp: nanosToIso(hrToNanos(event.time)),
      attributes: event.attributes ?? {},
    })),
    latency_ms: Number(end - start) / 1e6,
  };
}

describeEachDialect('spans API', (server) => {
  const url = () => server().url;

  for (const kind of EXPORTER_KINDS) {
    it(`returns spans sent by the ${kind} exporter in Phoenix's shape with exact nanosecond times`, async () => {
      const project = unique(`spans-${kind}`);
      const exporter = makeExporter(kind, url(), server().grpcUrl);
      const { spans: sent } = await exportSampleTrace(exporter, { 'service.name': project }, kind);
      const body = await getOk(url(), `/v1/projects/${encodeURIComponent(project)}/spans`);
      assert.equal(body.next_cursor, null);
      assert.equal(body.data.length, 3);
      // Newest first: tool (base+2 s), llm (base+0.22 s), agent (base+0.12 s).
      assert.deepEqual(
        body.data.map((span: ApiSpan) => span.name),
        [`${kind} tool`, `${kind} llm`, `${kind} agent`],
      );
      for (const span of body.data as ApiSpan[]) {
        const sdk = sent.find((candidate) => candidate.spanContext().spanId === span.context.span_id)!;
        assert.ok(sdk, `span ${span.name} was sent`);
        const { id, span_kind, token_count_prompt, token_count_completion, token_count_total, ...rest } = span;
        assert.deepEqual(rest, expectedFromSdk(sdk));
        assert.match(Buffer.from(id, 'base64').toString(), /^Span:\d+$/);
        assert.match(span.start_time, NINE_DIGITS);
        assert.match(span.end_time, NINE_DIGITS);
        if (span.name.endsWith('llm')) {
          assert.equal(span_kind, 'LLM');
          assert.deepEqual([token_count_prompt, token_count_completion, token_count_total], [120, 30, 150]);
          assert.equal(span.start_time, '2025-11-22T00:00:00.223456789Z');
          assert.equal(span.end_time, '2025-11-22T00:00:01.999999999Z');
          assert.equal(span.latency_ms, 1776.54321);
          assert.equal(span.events[0]!.timestamp, '2025-11-22T00:00:00.323456789Z');
        } else {
          assert.equal(span_kind, span.name.endsWith('tool') ? 'TOOL' : 'CHAIN');
          assert.deepEqual([token_count_prompt, token_count_completion, token_count_total], [null, null, null]);
        }
      }
    });
  }

  /** A small project with typed attributes for the filter tests. */
  const data = {
    project: '',
    traceA: newTraceId(),
    traceB: newTraceId(),
    spans: {} as Record<string, QuerySpan>,
  };
  before(async () => {
    data.project = unique('filters');
    const rootA = newSpanId();
    const llmA = newSpanId();
    const rootB = newSpanId();
    const missingParent = newSpanId();
    const sent = await sendSpans(url(), data.project, [
      {
        traceId: data.traceA,
        spanId: rootA,
        name: 'agent',
        kind: 'CHAIN',
        start: at(0),
        duration: 100_000_000n,
        status: 'OK',
        attributes: { 'user.id': '12345', 'metadata.tier': 'gold', 'session.id': 's:1', 'we"ird\\key': 'odd' },
      },
      {
        traceId: data.traceA,
        spanId: llmA,
        parentSpanId: rootA,
        name: 'chat',
        kind: 'LLM',
        start: at(10, 123n),
        duration: 50_000_000n,
        attributes: {
          'llm.model_name': 'gpt-4o',
          'llm.token_count.prompt': 100,
          'llm.token_count.completion': 20,
          'llm.temperature': 0.5,
          'llm.streaming': true,
          retries: { int: 3 },
          flag: 'true',
          'tag.tags': ['x', 'y'],
        },
        events: [{ name: 'first token', time: at(12, 7n), attributes: { index: 0 } }],
      },
      { traceId: data.traceA, parentSpanId: rootA, name: 'search', kind: 'TOOL', start: at(70), status: 'ERROR', statusMessage: 'timeout' },
      { traceId: data.traceB, spanId: rootB, name: 'agent', kind: 'AGENT', start: at(1000), attributes: { 'user.id': 12345 } },
      {
        traceId: data.traceB,
        parentSpanId: rootB,
        name: 'chat',
        kind: 'LLM',
        start: at(1010),
        attributes: { 'llm.model_name': 'claude', 'llm.streaming': false, flag: true, retries: { double: 3.5 } },
      },
      { traceId: data.traceB, parentSpanId: missingParent, name: 'orphan', start: at(1020) },
    ]);
    for (const span of sent) data.spans[`${span.traceId === data.traceA ? 'A' : 'B'}:${span.name}`] = span;
    data.spans.missingParent = { traceId: data.traceB, spanId: missingParent, start: 0n };
  });

  const list = (query: string) => getOk(url(), `/v1/projects/${encodeURIComponent(data.project)}/spans${query}`);
  const namesOf = async (query: string) =>
    (await list(query)).data.map((span: ApiSpan) => `${span.context.trace_id === data.traceA ? 'A' : 'B'}:${span.name}`);

  it('lists newest first by default and oldest first with order=asc', async () => {
    const all = ['B:orphan', 'B:chat', 'B:agent', 'A:search', 'A:chat', 'A:agent'];
    assert.deepEqual(await namesOf(''), all);
    assert.deepEqual(await namesOf('?order=asc'), [...all].reverse());
  });

  it('filters by trace id (repeatable, any case)', async () => {
    assert.deepEqual(await namesOf(`?trace_id=${data.traceA}`), ['A:search', 'A:chat', 'A:agent']);
    assert.deepEqual(await namesOf(`?trace_id=${data.traceA.toUpperCase()}&trace_id=${data.traceB}`), await namesOf(''));
    assert.deepEqual(await namesOf(`?trace_id=${newTraceId()}`), []);
  });

  it('filters by span id and by parent id, including parent_id=null for roots and orphans of a missing parent', async () => {
    assert.deepEqual(await namesOf(`?span_id=${data.spans['A:chat']!.spanId}&span_id=${data.spans['B:agent']!.spanId}`), [
      'B:agent',
      'A:chat',
    ]);
    assert.deepEqual(await namesOf('?parent_id=null'), ['B:agent', 'A:agent']);
    assert.deepEqual(await namesOf(`?parent_id=${data.spans['A:agent']!.spanId}`), ['A:search', 'A:chat']);
    assert.deepEqual(await namesOf(`?parent_id=${data.spans.missingParent!.spanId}`), ['B:orphan']);
    assert.deepEqual(await namesOf(`?parent_id=${newSpanId()}`), []);
  });

  it('filters by name, span kind and status code (each repeatable)', async () => {
    assert.deepEqual(await namesOf('?name=chat'), ['B:chat', 'A:chat']);
    assert.deepEqual(await namesOf('?name=search&name=orphan'), ['B:orphan', 'A:search']);
    assert.deepEqual(await namesOf('?span_kind=LLM'), ['B:chat', 'A:chat']);
    assert.deepEqual(await namesOf('?span_kind=AGENT&span_kind=TOOL'), ['B:agent', 'A:search']);
    assert.deepEqual(await namesOf('?span_kind=UNKNOWN'), ['B:orphan']);
    assert.deepEqual(await namesOf('?status_code=ERROR'), ['A:search']);
    assert.deepEqual(await namesOf('?status_code=OK&status_code=ERROR'), ['A:search', 'A:agent']);
    assert.deepEqual(await namesOf(`?status_code=UNSET&span_kind=LLM&trace_id=${data.traceB}`), ['B:chat']);
    expectError(await request(url(), 'GET', `/v1/projects/${data.project}/spans?span_kind=llm`), 422);
    expectError(await request(url(), 'GET', `/v1/projects/${data.project}/spans?status_code=FAILED`), 422);
  });

  it('filters on start time: start_time inclusive, end_time exclusive, to the nanosecond', async () => {
    const chatStart = nanosToIso(at(10, 123n));
    assert.equal(chatStart, '2025-11-22T00:00:00.010000123Z');
    assert.deepEqual(await namesOf(`?start_time=${chatStart}&end_time=${nanosToIso(at(1000))}`), ['A:search', 'A:chat']);
    assert.deepEqual(await namesOf(`?start_time=${nanosToIso(at(10, 124n))}&end_time=${nanosToIso(at(1000, 1n))}`), [
      'B:agent',
      'A:search',
    ]);
    assert.deepEqual(await namesOf(`?end_time=${chatStart}`), ['A:agent']);
    // Offsets convert to UTC; an unencoded "+" arrives as a space and still means "+".
    assert.deepEqual(await namesOf('?start_time=2025-11-22T01:00:01%2B01:00'), ['B:orphan', 'B:chat', 'B:agent']);
    assert.deepEqual(await namesOf('?start_time=2025-11-22T01:00:01+01:00'), ['B:orphan', 'B:chat', 'B:agent']);
    assert.deepEqual(await namesOf('?start_time=2025-11-21T23:00:01-01:00'), ['B:orphan', 'B:chat', 'B:agent']);
    assert.deepEqual(await namesOf('?start_time=2025-11-22&end_time=2025-11-22T00:00:00.000000001'), ['A:agent']);
  });

  it('filters on attributes: as a string, and as a number or boolean when the value reads as one', async () => {
    // "12345" is stored as a string on A:agent and as an integer on B:agent.
    assert.deepEqual(await namesOf('?attribute=user.id:12345'), ['B:agent', 'A:agent']);
    assert.deepEqual(await namesOf('?attribute=user.id:%2212345%22'), ['A:agent']);
    assert.deepEqual(await namesOf('?attribute=llm.temperature:0.5'), ['A:chat']);
    assert.deepEqual(await namesOf('?attribute=llm.temperature:0.50'), ['A:chat']);
    assert.deepEqual(await namesOf('?attribute=retries:3'), ['A:chat']);
    assert.deepEqual(await namesOf('?attribute=retries:3.0'), ['A:chat']);
    assert.deepEqual(await namesOf('?attribute=retries:3.5'), ['B:chat']);
    assert.deepEqual(await namesOf('?attribute=llm.streaming:true'), ['A:chat']);
    assert.deepEqual(await namesOf('?attribute=llm.streaming:false'), ['B:chat']);
    // "true" is a string on A:chat and a boolean on B:chat.
    assert.deepEqual(await namesOf('?attribute=flag:true'), ['B:chat', 'A:chat']);
    assert.deepEqual(await namesOf('?attribute=flag:%22true%22'), ['A:chat']);
    assert.deepEqual(await namesOf('?attribute=llm.model_name:gpt-4o'), ['A:chat']);
    assert.deepEqual(await namesOf('?attribute=llm.model_name:gpt-4'), []);
    // Split at the first colon only; several filters AND together; odd keys are matched exactly.
    assert.deepEqual(await namesOf('?attribute=session.id:s:1'), ['A:agent']);
    assert.deepEqual(await namesOf('?attribute=metadata.tier:gold&attribute=user.id:12345'), ['A:agent']);
    assert.deepEqual(await namesOf('?attribute=metadata.tier:gold&attribute=user.id:99'), []);
    assert.deepEqual(await namesOf(`?attribute=${encodeURIComponent('we"ird\\key:odd')}`), ['A:agent']);
    assert.deepEqual(await namesOf('?attribute=missing.key:1'), []);
  });

  it('filters on long values and list attributes, stored compressed (docs/ingest.md), as on short ones', async () => {
    const project = unique('long-filters');
    const question = `How do I return a damaged blender bought in March? Order ${'#'.repeat(3)} 1234, paid by card.`;
    const answer = `Sorry to hear that. Returns of damaged items are free within 90 days: ${'print the label; '.repeat(3)}`;
    const model = `arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-${'v2'.repeat(10)}`;
    assert.ok(question.length > 64 && answer.length > 64 && model.length > 64);
    const traceId = newTraceId();
    // Filler first (oldest), so a newest-first scan crosses several rounds of rows before reaching them.
    const filler = Array.from({ length: 1200 }, (_, i) => ({
      traceId,
      name: 'filler',
      kind: 'LLM',
      start: at(i),
      attributes: { 'input.value': `${question} (variant ${i})`, 'llm.input_messages.0.message.role': 'system' },
    }));
    await sendSpans(url(), project, filler.slice(0, 600));
    await sendSpans(url(), project, filler.slice(600));
    await sendSpans(url(), project, [
      {
        traceId,
        name: 'asked',
        kind: 'LLM',
        start: at(5000),
        attributes: {
          'input.value': question,
          'output.value': answer,
          'llm.input_messages.0.message.role': 'user',
          'llm.input_messages.0.message.content': question,
          'llm.model_name': model,
          'user.id': 'u1',
        },
      },
      {
        traceId,
        name: 'echoed',
        kind: 'CHAIN',
        start: at(5001),
        attributes: { 'input.value': answer, 'output.value': question, 'user.id': 'u2' },
      },
      { traceId, name: 'short', kind: 'CHAIN', start: at(5002), attributes: { 'input.value': 'hi', 'user.id': 'u1' } },
      { traceId, name: 'scored', kind: 'RETRIEVER', start: at(5003), attributes: { 'retrieval.documents.0.document.score': 0.5 } },
    ]);
    const path = `/v1/projects/${encodeURIComponent(project)}/spans`;
    const names = async (query: string) => ((await getOk(url(), `${path}${query}`)).data as ApiSpan[]).map((span) => span.name);
    const filter = (key: string, value: string) => `attribute=${encodeURIComponent(`${key}:${value}`)}`;
    assert.deepEqual(await names(`?${filter('input.value', question)}`), ['asked']);
    assert.deepEqual(await names(`?${filter('output.value', question)}`), ['echoed']);
    assert.deepEqual(await names(`?${filter('input.value', answer)}`), ['echoed']);
    assert.deepEqual(await names(`?${filter('llm.input_messages.0.message.content', question)}`), ['asked']);
    assert.deepEqual(await names(`?${filter('input.value', 'hi')}`), ['short']);
    assert.deepEqual(await names(`?${filter('input.value', `${question} (variant 7)`)}`), ['filler']);
    assert.deepEqual(await names(`?${filter('input.value', `${question}!`)}`), []);
    // A short value under a list key, numbers under one by value, and a long value under a key kept in the JSON column.
    assert.deepEqual(await names(`?${filter('llm.input_messages.0.message.role', 'user')}`), ['asked']);
    assert.deepEqual(await names(`?${filter('retrieval.documents.0.document.score', '0.50')}`), ['scored']);
    assert.deepEqual(await names(`?${filter('retrieval.documents.0.document.score', '"0.5"')}`), []);
    assert.deepEqual(await names(`?${filter('llm.model_name', model)}`), ['asked']);
    // Long and short filters together, and with the other filters.
    assert.deepEqual(await names(`?${filter('input.value', question)}&${filter('user.id', 'u1')}`), ['asked']);
    assert.deepEqual(await names(`?${filter('input.value', question)}&${filter('user.id', 'u2')}`), []);
    assert.deepEqual(await names(`?${filter('input.value', question)}&span_kind=CHAIN`), []);
    // Pages of a long-value filter: 1,200 matches under a list key, met in rounds of rows, one page at a time.
    const systemPages = await collectPages<ApiSpan>(url(), `${path}?${filter('llm.input_messages.0.message.role', 'system')}`, 350);
    assert.equal(systemPages.items.length, 1200);
    assert.equal(new Set(systemPages.items.map((span) => span.id)).size, 1200);
    assert.equal(systemPages.pages, 4);
    const oldest = await collectPages<ApiSpan>(url(), `${path}?order=asc&${filter('input.value', `${question} (variant 1199)`)}`, 1);
    assert.deepEqual(
      oldest.items.map((span) => span.name),
      ['filler'],
    );
    // The attributes come back whole.
    const [asked] = (await getOk(url(), `${path}?${filter('input.value', question)}`)).data as ApiSpan[];
    assert.deepEqual(asked!.attributes, {
      'input.value': question,
      'output.value': answer,
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.content': question,
      'llm.model_name': model,
      'user.id': 'u1',
    });
  });

  it('rejects malformed attribute filters with 422', async () => {
    for (const filter of ['nocolon', ':value', 'key:', 'key:null', 'key:[1]', 'key:{"a":1}']) {
      expectError(
        await request(url(), 'GET', `/v1/projects/${data.project}/spans?attribute=${encodeURIComponent(filter)}`),
        422,
        /attribute/,
      );
    }
  });

  it('keeps attributes, events and token counts as stored, without openinference.span.kind', async () => {
    const [chat] = (await list(`?span_id=${data.spans['A:chat']!.spanId}`)).data as ApiSpan[];
    assert.deepEqual(chat!.attributes, {
      'llm.model_name': 'gpt-4o',
      'llm.token_count.prompt': 100,
      'llm.token_count.completion': 20,
      'llm.temperature': 0.5,
      'llm.streaming': true,
      retries: 3,
      flag: 'true',
      'tag.tags': ['x', 'y'],
    });
    assert.deepEqual(chat!.events, [{ name: 'first token', timestamp: '2025-11-22T00:00:00.012000007Z', attributes: { index: 0 } }]);
    assert.equal(chat!.parent_id, data.spans['A:agent']!.spanId);
    assert.deepEqual([chat!.token_count_prompt, chat!.token_count_completion, chat!.token_count_total], [100, 20, 120]);
    assert.equal(chat!.latency_ms, 50);
    const [search] = (await list('?status_code=ERROR')).data as ApiSpan[];
    assert.equal(search!.status_message, 'timeout');
    assert.equal(search!.start_time, '2025-11-22T00:00:00.070000000Z');
  });

  it('pages through ties in start time in both orders without duplicates or gaps', async () => {
    const project = unique('paging');
    const traceId = newTraceId();
    // 23 spans, three per start time: the id breaks the ties.
    await sendSpans(
      url(),
      project,
      Array.from({ length: 23 }, (_, i) => ({ traceId, name: `s${i}`, start: at(Math.floor(i / 3) * 10) })),
    );
    const path = `/v1/projects/${encodeURIComponent(project)}/spans`;
    const whole = (await getOk(url(), `${path}?limit=1000`)).data as ApiSpan[];
    assert.equal(whole.length, 23);
    for (let i = 1; i < whole.length; i++) {
      const [a, b] = [whole[i - 1]!, whole[i]!];
      assert.ok(
        a.start_time > b.start_time || (a.start_time === b.start_time && rowid(a.id) > rowid(b.id)),
        'sorted by (start_time, id) descending',
      );
    }
    for (const limit of [1, 4, 5, 23]) {
      const { items, pages } = await collectPages<ApiSpan>(url(), path, limit);
      assert.deepEqual(
        items.map((span) => span.id),
        whole.map((span) => span.id),
        `limit ${limit}`,
      );
      assert.equal(pages, Math.ceil(23 / limit));
      const ascending = await collectPages<ApiSpan>(url(), `${path}?order=asc`, limit);
      assert.deepEqual(
        ascending.items.map((span) => span.id),
        whole.map((span) => span.id).reverse(),
        `asc, limit ${limit}`,
      );
    }
    // Filters keep applying on later pages.
    const roots = await collectPages<ApiSpan>(url(), `${path}?name=s1&name=s2&name=s22`, 1);
    assert.deepEqual(
      roots.items.map((span) => span.name),
      ['s22', 's2', 's1'],
    );
  });

  it('answers 422 for bad limits, cursors and times, and 404 for an unknown project', async () => {
    const path = `/v1/projects/${encodeURIComponent(data.project)}/spans`;
    for (const limit of ['0', '1001', '-1', 'ten', '2.5']) expectError(await request(url(), 'GET', `${path}?limit=${limit}`), 422, /limit/);
    assert.equal((await list('?limit=1000')).data.length, 6);
    const first = await list('?limit=2');
    assert.ok(first.next_cursor);
    expectError(await request(url(), 'GET', `${path}?cursor=garbage!`), 422, /invalid cursor/);
    expectError(await request(url(), 'GET', `${path}?cursor=${first.next_cursor}&order=asc`), 422, /invalid cursor/);
    expectError(await request(url(), 'GET', `${path}?cursor=${toGlobalId('Span', 3)}`), 422, /invalid cursor/);
    const tampered = Buffer.from('spans.start_time.desc:abc:1').toString('base64url');
    expectError(await request(url(), 'GET', `${path}?cursor=${tampered}`), 422, /invalid cursor/);
    const traces = await getOk(url(), `/v1/projects/${encodeURIComponent(data.project)}/traces?limit=1`);
    expectError(await request(url(), 'GET', `${path}?cursor=${traces.next_cursor}`), 422, /invalid cursor/);
    for (const time of [
      'yesterday',
      '2025-13-01T00:00:00Z',
      '2025-02-30',
      '2025-11-22T24:00:00Z',
      '1969-12-31T23:59:59Z',
      '2300-01-01T00:00:00Z',
    ]) {
      expectError(await request(url(), 'GET', `${path}?start_time=${encodeURIComponent(time)}`), 422, /start_time/);
    }
    expectError(await request(url(), 'GET', `${path}?start_time=2025-11-22T00:00:01Z&end_time=2025-11-22T00:00:01Z`), 422, /after/);
    expectError(await request(url(), 'GET', `/v1/projects/${unique('nowhere')}/spans`), 404, /not found/);
    expectError(await request(url(), 'GET', `/v1/projects/${toGlobalId('Project', 999999)}/spans`), 404);
  });

  it('reads one span by GlobalID or OpenTelemetry id, with its project id; 404 otherwise', async () => {
    const chat = data.spans['A:chat']!;
    const byHex = await getOk(url(), `/v1/spans/${chat.spanId}`);
    assert.equal(byHex.data.context.span_id, chat.spanId);
    assert.equal(byHex.data.name, 'chat');
    assert.equal(byHex.data.start_time, '2025-11-22T00:00:00.010000123Z');
    const project = (await getOk(url(), `/v1/projects/${encodeURIComponent(data.project)}`)).data;
    assert.equal(byHex.data.project_id, project.id);
    const byGlobalId = await getOk(url(), `/v1/spans/${byHex.data.id}`);
    assert.deepEqual(byGlobalId, byHex);
    assert.deepEqual(await getOk(url(), `/v1/spans/${chat.spanId!.toUpperCase()}`), byHex);
    const [listed] = (await list(`?span_id=${chat.spanId}`)).data as ApiSpan[];
    const { project_id, ...withoutProject } = byHex.data;
    assert.deepEqual(withoutProject, listed);
    expectError(await request(url(), 'GET', `/v1/spans/${newSpanId()}`), 404, /not found/);
    expectError(await request(url(), 'GET', `/v1/spans/${toGlobalId('Span', 999999)}`), 404);
    expectError(await request(url(), 'GET', `/v1/spans/${toGlobalId('Trace', rowid(byHex.data.id))}`), 404);
    expectError(await request(url(), 'GET', '/v1/spans/not-an-id'), 404);
  });
});
