import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mergeAttributes } from '../../src/span-model/long-attributes.js';
import type { Attributes, DecodedResourceSpans, DecodedSpan } from '../../src/span-model/decoded-spans.js';
import { DEFAULT_PROJECT_NAME, SPAN_KINDS, projectNameFor, toSpanRows, type SpanRow } from '../../src/span-model/span-rows.js';
import { DEFERRED_SEARCH_TEXT } from '../../src/span-model/search-text.js';

function span(overrides: Partial<DecodedSpan> = {}): DecodedSpan {
  return {
    traceId: '0123456789abcdef0123456789abcdef',
    spanId: '0011223344556677',
    parentSpanId: null,
    name: 'span',
    kind: 1,
    startTimeUnixNano: 1_000n,
    endTimeUnixNano: 2_000n,
    attributes: {},
    events: [],
    statusCode: 0,
    statusMessage: '',
    ...overrides,
  };
}

function rowOf(attributes: Attributes, overrides: Partial<DecodedSpan> = {}): SpanRow {
  const rows = toSpanRows([{ resourceAttributes: {}, spans: [span({ attributes, ...overrides })] }]);
  assert.equal(rows.length, 1);
  return rows[0]!;
}

function llm(tokens: Attributes): Attributes {
  return { 'openinference.span.kind': 'LLM', ...tokens };
}

describe('projectNameFor', () => {
  const resource = { 'openinference.project.name': 'from-resource', 'service.name': 'from-service' };

  test('the x-project-name header wins', () => {
    assert.equal(projectNameFor(resource, 'from-header'), 'from-header');
  });

  test('then the openinference.project.name resource attribute', () => {
    assert.equal(projectNameFor(resource, undefined), 'from-resource');
  });

  test('then service.name', () => {
    assert.equal(projectNameFor({ 'service.name': 'from-service' }, undefined), 'from-service');
  });

  test('then "default"', () => {
    assert.equal(DEFAULT_PROJECT_NAME, 'default');
    assert.equal(projectNameFor({}, undefined), 'default');
  });

  test('blank strings are ignored at every level', () => {
    assert.equal(projectNameFor(resource, ''), 'from-resource');
    assert.equal(projectNameFor(resource, '   '), 'from-resource');
    assert.equal(projectNameFor({ 'openinference.project.name': ' \t', 'service.name': 'from-service' }, ' '), 'from-service');
    assert.equal(projectNameFor({ 'openinference.project.name': '', 'service.name': '  ' }, ''), 'default');
  });

  test('non-string attributes are ignored', () => {
    assert.equal(projectNameFor({ 'openinference.project.name': 42, 'service.name': 'svc' }, undefined), 'svc');
    assert.equal(projectNameFor({ 'openinference.project.name': null, 'service.name': ['x'] }, undefined), 'default');
    assert.equal(projectNameFor({ 'service.name': { a: 'b' } }, undefined), 'default');
  });

  test('surrounding whitespace is trimmed', () => {
    assert.equal(projectNameFor({}, '  header  '), 'header');
    assert.equal(projectNameFor({ 'openinference.project.name': ' p ' }, undefined), 'p');
    assert.equal(projectNameFor({ 'service.name': '\tsvc\n' }, undefined), 'svc');
  });
});

describe('toSpanRows', () => {
  test('maps every field of a span', () => {
    const attributes: Attributes = { 'openinference.span.kind': 'chain', 'input.value': 'hi', nested: { a: [1, 'two', null] } };
    const rows = toSpanRows([
      {
        resourceAttributes: { 'service.name': 'svc' },
        spans: [
          span({
            parentSpanId: '8899aabbccddeeff',
            name: 'my span',
            startTimeUnixNano: 1763769600123456789n,
            endTimeUnixNano: 1763769600987654321n,
            attributes,
            statusCode: 2,
            statusMessage: 'boom',
          }),
        ],
      },
    ]);
    assert.deepEqual(rows, [
      {
        projectName: 'svc',
        traceId: '0123456789abcdef0123456789abcdef',
        spanId: '0011223344556677',
        parentId: '8899aabbccddeeff',
        name: 'my span',
        spanKind: 'CHAIN',
        startTime: 1763769600123456789n,
        endTime: 1763769600987654321n,
        statusCode: 'ERROR',
        statusMessage: 'boom',
        attributes: JSON.stringify(attributes),
        longAttributes: null,
        events: '[]',
        tokenCountPrompt: null,
        tokenCountCompletion: null,
        tokenCountTotal: null,
        sessionId: null,
        userKey: null,
        searchText: 'hi',
        modelName: null,
      },
    ]);
  });

  test('search texts: cut, left out, or deferred to the indexer', () => {
    const resources: DecodedResourceSpans[] = [
      { resourceAttributes: {}, spans: [span({ attributes: { 'input.value': 'Where is my order?' } })] },
    ];
    assert.equal(toSpanRows(resources)[0]!.searchText, 'Where is my order?');
    assert.equal(toSpanRows(resources, undefined, { searchText: false })[0]!.searchText, null);
    assert.equal(toSpanRows(resources, undefined, { searchText: 'deferred' })[0]!.searchText, DEFERRED_SEARCH_TEXT);
  });

  test('an empty export has no rows', () => {
    assert.deepEqual(toSpanRows([]), []);
    assert.deepEqual(toSpanRows([{ resourceAttributes: { 'service.name': 'x' }, spans: [] }]), []);
  });

  test('each resource gets its own project; the header applies to all', () => {
    const resources: DecodedResourceSpans[] = [
      { resourceAttributes: { 'service.name': 'a' }, spans: [span({ name: '1' }), span({ name: '2' })] },
      { resourceAttributes: { 'openinference.project.name': 'b', 'service.name': 'ignored' }, spans: [span({ name: '3' })] },
      { resourceAttributes: {}, spans: [span({ name: '4' })] },
    ];
    assert.deepEqual(
      toSpanRows(resources).map((r) => [r.name, r.projectName]),
      [
        ['1', 'a'],
        ['2', 'a'],
        ['3', 'b'],
        ['4', 'default'],
      ],
    );
    assert.deepEqual(
      toSpanRows(resources, 'hdr').map((r) => r.projectName),
      ['hdr', 'hdr', 'hdr', 'hdr'],
    );
    assert.deepEqual(
      toSpanRows(resources, '  ').map((r) => r.projectName),
      ['a', 'a', 'b', 'default'],
    );
  });

  describe('OpenInference span kind', () => {
    test('every known kind, in any case and with whitespace', () => {
      for (const kind of SPAN_KINDS) {
        assert.equal(rowOf({ 'openinference.span.kind': kind }).spanKind, kind);
        assert.equal(rowOf({ 'openinference.span.kind': kind.toLowerCase() }).spanKind, kind);
        assert.equal(rowOf({ 'openinference.span.kind': ` ${kind[0]}${kind.slice(1).toLowerCase()} ` }).spanKind, kind);
      }
    });

    test('unknown, missing or non-string kinds are UNKNOWN', () => {
      assert.equal(rowOf({}).spanKind, 'UNKNOWN');
      assert.equal(rowOf({ 'openinference.span.kind': 'WIZARD' }).spanKind, 'UNKNOWN');
      assert.equal(rowOf({ 'openinference.span.kind': '' }).spanKind, 'UNKNOWN');
      assert.equal(rowOf({ 'openinference.span.kind': 1 }).spanKind, 'UNKNOWN');
      assert.equal(rowOf({ 'openinference.span.kind': ['LLM'] }).spanKind, 'UNKNOWN');
      assert.equal(rowOf({ 'openinference.span.kind': null }).spanKind, 'UNKNOWN');
    });

    test('the OTel kind number does not decide the OpenInference kind', () => {
      assert.equal(rowOf({}, { kind: 3 }).spanKind, 'UNKNOWN');
    });
  });

  describe('token counts', () => {
    test('LLM spans carry their counts', () => {
      const row = rowOf(llm({ 'llm.token_count.prompt': 10, 'llm.token_count.completion': 5, 'llm.token_count.total': 20 }));
      assert.equal(row.tokenCountPrompt, 10);
      assert.equal(row.tokenCountCompletion, 5);
      assert.equal(row.tokenCountTotal, 20); // the reported total is kept as is
    });

    test('strings of digits are accepted', () => {
      const row = rowOf(llm({ 'llm.token_count.prompt': '12', 'llm.token_count.completion': ' 30 ', 'llm.token_count.total': '42' }));
      assert.equal(row.tokenCountPrompt, 12);
      assert.equal(row.tokenCountCompletion, 30);
      assert.equal(row.tokenCountTotal, 42);
    });

    test('the total is derived from prompt + completion when absent', () => {
      assert.equal(rowOf(llm({ 'llm.token_count.prompt': 12, 'llm.token_count.completion': '30' })).tokenCountTotal, 42);
      assert.equal(rowOf(llm({ 'llm.token_count.prompt': 12 })).tokenCountTotal, 12);
      assert.equal(rowOf(llm({ 'llm.token_count.completion': 7 })).tokenCountTotal, 7);
      assert.equal(rowOf(llm({ 'llm.token_count.prompt': 0, 'llm.token_count.completion': 0 })).tokenCountTotal, 0);
    });

    test('an invalid total is derived like a missing one', () => {
      assert.equal(
        rowOf(llm({ 'llm.token_count.prompt': 2, 'llm.token_count.completion': 3, 'llm.token_count.total': 'many' })).tokenCountTotal,
        5,
      );
    });

    test('LLM spans without counts have none', () => {
      const row = rowOf(llm({}));
      assert.equal(row.tokenCountPrompt, null);
      assert.equal(row.tokenCountCompletion, null);
      assert.equal(row.tokenCountTotal, null);
    });

    test('negative, fractional, blank and non-numeric counts are ignored', () => {
      for (const bad of [-1, 1.5, '', '  ', 'ten', '-3', true, null, [1], { n: 1 }, Number.MAX_SAFE_INTEGER + 2]) {
        const row = rowOf(llm({ 'llm.token_count.prompt': bad, 'llm.token_count.completion': bad }));
        assert.equal(row.tokenCountPrompt, null, `prompt ${JSON.stringify(bad)}`);
        assert.equal(row.tokenCountCompletion, null, `completion ${JSON.stringify(bad)}`);
        assert.equal(row.tokenCountTotal, null, `total ${JSON.stringify(bad)}`);
      }
    });

    test('only LLM spans carry counts', () => {
      const tokens = { 'llm.token_count.prompt': 10, 'llm.token_count.completion': 5, 'llm.token_count.total': 15 };
      for (const kind of ['CHAIN', 'AGENT', 'EMBEDDING', 'TOOL', undefined]) {
        const row = rowOf(kind === undefined ? tokens : { 'openinference.span.kind': kind, ...tokens });
        assert.equal(row.tokenCountPrompt, null, String(kind));
        assert.equal(row.tokenCountCompletion, null, String(kind));
        assert.equal(row.tokenCountTotal, null, String(kind));
      }
      assert.equal(rowOf({ 'openinference.span.kind': 'llm', ...tokens }).tokenCountTotal, 15);
    });
  });

  test('session.id names the session: strings trimmed, numbers as text; blank, huge or other values none', () => {
    assert.equal(rowOf({ 'session.id': ' chat-42 ' }).sessionId, 'chat-42');
    assert.equal(rowOf({ 'session.id': 42 }).sessionId, '42');
    for (const none of ['', '   ', 'x'.repeat(513), true, [1], null]) {
      assert.equal(rowOf({ 'session.id': none }).sessionId, null, JSON.stringify(none));
    }
    assert.equal(rowOf({ 'session.id': 'x'.repeat(512) }).sessionId, 'x'.repeat(512));
  });

  test('user.id keys the trace (span-model/trace-users.ts): strings as sent, integers as text, other scalars *, lists none', () => {
    assert.equal(rowOf({ 'user.id': ' alice ' }).userKey, ' alice ');
    assert.equal(rowOf({ 'user.id': 12345 }).userKey, '12345');
    assert.equal(rowOf({ 'user.id': 'x'.repeat(256) }).userKey, 'x'.repeat(256));
    for (const mixed of ['x'.repeat(257), 0.5, true, 1e15]) assert.equal(rowOf({ 'user.id': mixed }).userKey, '*', JSON.stringify(mixed));
    for (const none of [[1], null]) assert.equal(rowOf({ 'user.id': none }).userKey, null, JSON.stringify(none));
    assert.equal(rowOf({}).userKey, null);
  });

  test('status codes map to UNSET, OK and ERROR; others are UNSET', () => {
    assert.equal(rowOf({}, { statusCode: 0 }).statusCode, 'UNSET');
    assert.equal(rowOf({}, { statusCode: 1 }).statusCode, 'OK');
    assert.equal(rowOf({}, { statusCode: 2 }).statusCode, 'ERROR');
    assert.equal(rowOf({}, { statusCode: 3 }).statusCode, 'UNSET');
    assert.equal(rowOf({}, { statusCode: -1 }).statusCode, 'UNSET');
    assert.equal(rowOf({}, { statusCode: 2, statusMessage: 'why' }).statusMessage, 'why');
  });

  test('the end time is never before the start time', () => {
    const before = rowOf({}, { startTimeUnixNano: 5_000n, endTimeUnixNano: 4_999n });
    assert.equal(before.startTime, 5_000n);
    assert.equal(before.endTime, 5_000n);
    const zero = rowOf({}, { startTimeUnixNano: 1763769600123456789n, endTimeUnixNano: 0n });
    assert.equal(zero.endTime, 1763769600123456789n);
    const equal = rowOf({}, { startTimeUnixNano: 7n, endTimeUnixNano: 7n });
    assert.equal(equal.endTime, 7n);
    const after = rowOf({}, { startTimeUnixNano: 7n, endTimeUnixNano: 1763769600123456789n });
    assert.equal(after.startTime, 7n);
    assert.equal(after.endTime, 1763769600123456789n);
  });

  test('attributes are stored as a JSON object under their dotted keys', () => {
    const attributes: Attributes = {
      'llm.model_name': 'gpt',
      'input.value': '{"q": "\\"quoted\\""}',
      big: '9223372036854775807',
      list: [1, 2.5, true, null, 'x'],
      map: { 'a.b': { c: [] } },
      unicode: '日本語 😀',
    };
    const row = rowOf(attributes);
    assert.deepEqual(JSON.parse(row.attributes), attributes);
    assert.equal(row.longAttributes, null);
    assert.equal(rowOf({}).attributes, '{}');
  });

  test('long values are stored compressed beside the JSON column, and merge back whole', () => {
    const prompt = 'Summarize the quarterly report for the board. '.repeat(20);
    const attributes: Attributes = {
      'openinference.span.kind': 'LLM',
      'input.value': prompt,
      'llm.input_messages.0.message.content': prompt,
      'llm.model_name': `accounts/fireworks/models/${'x'.repeat(80)}`,
      'session.id': 's'.repeat(100),
      'llm.token_count.prompt': 12,
      short: 'x'.repeat(64),
      list: Array.from({ length: 30 }, (_, index) => index),
      tags: ['a', 'b'],
    };
    const row = rowOf(attributes);
    // Strings over 64 characters and long arrays move, except under the keys the server reads in SQL.
    assert.deepEqual(JSON.parse(row.attributes), {
      'openinference.span.kind': 'LLM',
      'llm.model_name': attributes['llm.model_name'],
      'session.id': attributes['session.id'],
      'llm.token_count.prompt': 12,
      short: 'x'.repeat(64),
      tags: ['a', 'b'],
    });
    assert.ok(row.longAttributes !== null);
    assert.ok(
      row.longAttributes.length < prompt.length / 4,
      `${row.longAttributes.length} bytes for two copies of ${prompt.length} characters`,
    );
    assert.deepEqual(mergeAttributes(JSON.parse(row.attributes), row.longAttributes), attributes);
  });

  test('events are stored as JSON with ISO timestamps of nine fractional digits', () => {
    const row = rowOf(
      {},
      {
        events: [
          { name: 'first token', timeUnixNano: 1763769600123456789n, attributes: { n: 1, s: 'x' } },
          { name: 'exception', timeUnixNano: 0n, attributes: {} },
          { name: 'micro', timeUnixNano: 1_700_000_000_000_001_000n, attributes: { nested: { a: [true] } } },
        ],
      },
    );
    assert.deepEqual(JSON.parse(row.events), [
      { name: 'first token', timestamp: '2025-11-22T00:00:00.123456789Z', attributes: { n: 1, s: 'x' } },
      { name: 'exception', timestamp: '1970-01-01T00:00:00.000000000Z', attributes: {} },
      { name: 'micro', timestamp: '2023-11-14T22:13:20.000001000Z', attributes: { nested: { a: [true] } } },
    ]);
    for (const event of JSON.parse(row.events) as { timestamp: string }[]) {
      assert.match(event.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/);
    }
  });

  test('rows keep the order spans were received in', () => {
    const rows = toSpanRows([
      { resourceAttributes: {}, spans: [span({ spanId: '0000000000000003' }), span({ spanId: '0000000000000001' })] },
      { resourceAttributes: {}, spans: [span({ spanId: '0000000000000002' })] },
    ]);
    assert.deepEqual(
      rows.map((r) => r.spanId),
      ['0000000000000003', '0000000000000001', '0000000000000002'],
    );
  });
});
