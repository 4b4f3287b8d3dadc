/**
 * GET /v1/projects/{p}/spans/otlpv1 (Phoenix's spanSearch): the OTLP/JSON-like shape field by
 * field, nanosecond times written digit for digit, each filter, keyset paging, and the 4xx answers.
 */
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { unique } from '../helpers/auth.js';
import { at, collectPages, expectError, getOk, newSpanId, newTraceId, request, sendSpans } from '../helpers/query.js';
import { describeEachDialect } from '../helpers/server.js';

const EMPTY = {
  array_value: null,
  bool_value: null,
  bytes_value: null,
  double_value: null,
  int_value: null,
  kvlist_value: null,
  string_value: null,
};

interface OtlpSpan {
  span_id: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
  [key: string]: unknown;
}

describeEachDialect('spanSearch (otlpv1)', (server) => {
  const project = unique('otlp');
  const traceId = newTraceId();
  const otherTraceId = newTraceId();
  const root = newSpanId();
  const child = newSpanId();
  const path = `/v1/projects/${project}/spans/otlpv1`;

  before(async () => {
    await sendSpans(server().url, project, [
      {
        traceId,
        spanId: root,
        name: 'agent',
        kind: 'AGENT',
        start: at(0, 456_789n),
        duration: 2_000_000_001n,
        status: 'OK',
        attributes: { 'input.value': 'hi', 'llm.token_count.total': 7, temperature: { double: 0.5 }, streaming: true, tags: ['a', 'b'] },
        events: [{ name: 'note', time: at(1, 5n), attributes: { level: 'info' } }],
      },
      {
        traceId,
        spanId: child,
        parentSpanId: root,
        name: 'llm',
        kind: 'LLM',
        start: at(10),
        status: 'ERROR',
        statusMessage: 'rate limited',
        attributes: { 'llm.model_name': 'gpt-x' },
      },
      { traceId: otherTraceId, name: 'tool', kind: 'TOOL', start: at(20), attributes: { 'llm.model_name': 'other' } },
    ]);
  });

  it("answers Phoenix's OtlpSpan shape, every field present, times as exact integer nanoseconds", async () => {
    const response = await request(server().url, 'GET', `${path}?span_id=${root}`);
    assert.equal(response.status, 200);
    // Written digit for digit: a JavaScript number would round the last digits (2^53 is about 9e15).
    assert.match(response.text, new RegExp(`"start_time_unix_nano":${at(0, 456_789n)}[,}]`));
    assert.match(response.text, new RegExp(`"end_time_unix_nano":${at(0, 456_789n) + 2_000_000_001n}[,}]`));
    assert.match(response.text, new RegExp(`"time_unix_nano":${at(1, 5n)}[,}]`));
    const body = response.body as { data: OtlpSpan[]; next_cursor: string | null };
    assert.equal(body.next_cursor, null);
    assert.equal(body.data.length, 1);
    const span = body.data[0]!;
    const byKey = Object.fromEntries(span.attributes.map((pair) => [pair.key, pair.value]));
    assert.deepEqual(byKey, {
      'openinference.span.kind': { ...EMPTY, string_value: 'AGENT' },
      'input.value': { ...EMPTY, string_value: 'hi' },
      'llm.token_count.total': { ...EMPTY, int_value: 7 },
      temperature: { ...EMPTY, double_value: 0.5 },
      streaming: { ...EMPTY, bool_value: true },
      tags: {
        ...EMPTY,
        array_value: {
          values: [
            { ...EMPTY, string_value: 'a' },
            { ...EMPTY, string_value: 'b' },
          ],
        },
      },
    });
    const { attributes: _attributes, start_time_unix_nano, end_time_unix_nano, events, ...rest } = span;
    assert.equal(typeof start_time_unix_nano, 'number');
    assert.equal(typeof end_time_unix_nano, 'number');
    assert.deepEqual(rest, {
      dropped_attributes_count: null,
      dropped_events_count: null,
      dropped_links_count: null,
      flags: null,
      kind: 'SPAN_KIND_INTERNAL',
      links: null,
      name: 'agent',
      parent_span_id: null,
      span_id: root,
      status: { code: 1, message: null },
      trace_id: traceId,
      trace_state: null,
    });
    const [event] = events as { name: string; attributes: unknown; dropped_attributes_count: null; time_unix_nano: number }[];
    assert.deepEqual(
      { ...event, time_unix_nano: typeof event!.time_unix_nano },
      {
        attributes: [{ key: 'level', value: { ...EMPTY, string_value: 'info' } }],
        dropped_attributes_count: null,
        name: 'note',
        time_unix_nano: 'number',
      },
    );
    const llm = (await getOk(server().url, `${path}?span_id=${child}`)).data[0] as OtlpSpan;
    assert.deepEqual(llm.status, { code: 2, message: 'rate limited' });
    assert.equal(llm.parent_span_id, root);
    assert.equal(llm.events, null, 'no events: null, as Phoenix');
  });

  it('filters by trace, parent (null for roots), name, status code and attribute', async () => {
    const names = async (query: string) =>
      ((await getOk(server().url, `${path}?${query}`)).data as OtlpSpan[]).map((span) => span.name).sort();
    assert.deepEqual(await names(''), ['agent', 'llm', 'tool']);
    assert.deepEqual(await names(`trace_id=${traceId}`), ['agent', 'llm']);
    assert.deepEqual(await names('parent_id=null'), ['agent', 'tool']);
    assert.deepEqual(await names(`parent_id=${root}`), ['llm']);
    assert.deepEqual(await names('name=llm&name=tool'), ['llm', 'tool']);
    assert.deepEqual(await names('status_code=ERROR'), ['llm']);
    assert.deepEqual(await names('attribute=llm.model_name:gpt-x'), ['llm']);
    assert.deepEqual(await names(`start_time=${new Date(Number(at(10) / 1_000_000n)).toISOString()}`), ['llm', 'tool']);
  });

  it('pages newest first with next_cursor', async () => {
    const { items, pages } = await collectPages<OtlpSpan>(server().url, path, 1);
    assert.equal(pages, 3);
    assert.deepEqual(
      items.map((span) => span.name),
      ['tool', 'llm', 'agent'],
    );
  });

  it('answers 422 for a bad status code, limit or cursor, and 404 for an unknown project', async () => {
    expectError(await request(server().url, 'GET', `${path}?status_code=FINE`), 422, /status_code/);
    expectError(await request(server().url, 'GET', `${path}?limit=0`), 422, /limit/);
    expectError(await request(server().url, 'GET', `${path}?limit=1001`), 422, /limit/);
    expectError(await request(server().url, 'GET', `${path}?cursor=nonsense`), 422, /cursor/);
    expectError(await request(server().url, 'GET', `${path}?attribute=novalue`), 422, /attribute/);
    expectError(await request(server().url, 'GET', `/v1/projects/${unique('missing')}/spans/otlpv1`), 404);
  });
});
