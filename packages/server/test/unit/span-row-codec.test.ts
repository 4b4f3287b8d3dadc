import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { packLongJson, packLongJsonList } from '../../src/span-model/long-attributes.js';
import { packSpanRows, packSpanRowsDeferringLong, unpackSpanRows } from '../../src/span-model/span-row-codec.js';
import type { SpanRow, UncompressedSpanRow } from '../../src/span-model/span-rows.js';

const row = (overrides: Partial<SpanRow> = {}): SpanRow => ({
  projectName: 'default',
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  parentId: null,
  name: 'chat',
  spanKind: 'LLM',
  startTime: 1_700_000_000_123_456_789n,
  endTime: 1_700_000_001_987_654_321n,
  statusCode: 'OK',
  statusMessage: '',
  attributes: '{"llm.model_name":"gpt-4o"}',
  longAttributes: null,
  events: '[]',
  tokenCountPrompt: 12,
  tokenCountCompletion: 7,
  tokenCountTotal: 19,
  sessionId: null,
  userKey: null,
  searchText: 'what is 退 款',
  ...overrides,
});

describe('span row packing for the writer thread', () => {
  test('rows come back exactly as packed, in order', () => {
    const rows = [
      row(),
      row({
        projectName: 'proj ünïcødé 🚀',
        spanId: '00f067aa0ba902b7',
        parentId: 'b7ad6b7169203331',
        statusCode: 'ERROR',
        statusMessage: 'boom — "quoted"\n',
        searchText: null,
        attributes: JSON.stringify({ emoji: '👩‍💻', nul: '\uFFFD' }),
        longAttributes: Buffer.from([1, 0, 255, 7, 0xff, 0xff, 0xff, 0xff]),
        events: JSON.stringify([{ name: 'exception', timestamp: '2023-11-14T22:13:20.123456789Z', attributes: {} }]),
        tokenCountPrompt: null,
        tokenCountCompletion: 2 ** 40,
        tokenCountTotal: null,
        sessionId: 'session-1',
        userKey: 'user-ü 7',
      }),
      row({ statusCode: 'UNSET', name: '', startTime: 0n, endTime: 2n ** 63n - 1n, tokenCountPrompt: 0, longAttributes: Buffer.alloc(0) }),
    ];
    const packed = packSpanRows(rows);
    assert.equal(packed.count, 3);
    assert.ok(packed.bytes <= packed.buffer.byteLength);
    assert.deepEqual(unpackSpanRows(packed), rows);
  });

  test('a copy of the buffer (what crosses to the thread) unpacks the same, twice', () => {
    const rows = Array.from({ length: 200 }, (_, index) => row({ spanId: index.toString(16).padStart(16, '0') }));
    const packed = packSpanRows(rows);
    const copy = { ...packed, buffer: structuredClone(packed.buffer) };
    assert.deepEqual(unpackSpanRows(copy), rows);
    assert.deepEqual(unpackSpanRows(copy), rows, 'unpacking does not consume the buffer (a failed batch is retried)');
  });

  test('an empty request packs to nothing', () => {
    const packed = packSpanRows([]);
    assert.equal(packed.count, 0);
    assert.deepEqual(unpackSpanRows(packed), []);
  });

  test('rows packed ahead of compression come back with their long values, once those are joined', () => {
    const long = (text: string) => JSON.stringify({ 'input.value': text });
    const uncompressed: UncompressedSpanRow[] = [
      { ...row(), longAttributes: long('first, ünïcødé 👩‍💻') },
      { ...row({ spanId: '00f067aa0ba902b7' }), longAttributes: null },
      { ...row({ spanId: '00f067aa0ba902b8', attributes: '{}' }), longAttributes: long('third '.repeat(500)) },
    ];
    const { packed, texts } = packSpanRowsDeferringLong(uncompressed);
    assert.ok(texts !== null);
    assert.equal(texts.ends.length, 2, 'one text per row with long values');
    assert.equal(texts.values.byteLength, texts.ends[1], 'the texts buffer is exactly their UTF-8 size');
    const expected = uncompressed.map((r) => ({ ...r, longAttributes: r.longAttributes === null ? null : packLongJson(r.longAttributes) }));
    assert.deepEqual(unpackSpanRows({ ...packed, long: packLongJsonList(texts) }), expected);
    assert.throws(
      () => unpackSpanRows(packed),
      /deferred long value is missing/,
      'rows without their long values are refused, not stored empty',
    );
  });

  test('rows without long values need no compression', () => {
    const { packed, texts } = packSpanRowsDeferringLong([{ ...row(), longAttributes: null }]);
    assert.equal(texts, null);
    assert.deepEqual(unpackSpanRows(packed), [row()]);
  });
});
