import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mergeAttributes, packLongJson } from '../../src/span-model/long-attributes.js';
import { startLongAttributesCompressor } from '../../src/span-model/long-attributes-compressor.js';
import type { Attributes, DecodedResourceSpans } from '../../src/span-model/decoded-spans.js';
import { toSpanRows, toUncompressedSpanRows } from '../../src/span-model/span-rows.js';

/** An export of `count` spans; every third has short values only. */
function exportOf(count: number, seed: number): DecodedResourceSpans[] {
  const spans = Array.from({ length: count }, (_, index) => {
    const attributes: Attributes =
      index % 3 === 0
        ? { 'llm.model_name': 'gpt-4o', n: index }
        : {
            'input.value': `Request ${seed}/${index}: ${'ünïcødé and plain words '.repeat(1 + (index % 7))}`,
            'llm.input_messages.0.message.role': 'user',
            n: index,
          };
    return {
      traceId: '0123456789abcdef0123456789abcdef',
      spanId: (seed * 1000 + index).toString(16).padStart(16, '0'),
      parentSpanId: null,
      name: 'span',
      kind: 1,
      startTimeUnixNano: 1n,
      endTimeUnixNano: 2n,
      attributes,
      events: [],
      statusCode: 0,
      statusMessage: '',
    };
  });
  return [{ resourceAttributes: {}, spans }];
}

const merged = (rows: { attributes: string; longAttributes: Buffer | null }[]) =>
  rows.map((row) => mergeAttributes(JSON.parse(row.attributes) as Record<string, unknown>, row.longAttributes));

describe('the long-attributes compression thread', () => {
  test('compresses many requests at once, each to what the request thread would store', async () => {
    const compressor = startLongAttributesCompressor();
    try {
      const exports = Array.from({ length: 8 }, (_, seed) => exportOf(60, seed));
      const results = await Promise.all(exports.map((decoded) => compressor.compress(toUncompressedSpanRows(decoded))));
      for (const [seed, rows] of results.entries()) {
        const here = toSpanRows(exports[seed]!);
        assert.equal(rows.length, 60);
        assert.deepEqual(merged(rows), merged(here));
        for (const [index, row] of rows.entries()) {
          assert.equal(row.longAttributes === null, index % 3 === 0, `span ${index}`);
          if (row.longAttributes) assert.ok(Buffer.isBuffer(row.longAttributes));
        }
      }
    } finally {
      await compressor.close();
    }
  });

  test('a request without long values does not wait for the thread, and a stopped thread falls back to this one', async () => {
    const compressor = startLongAttributesCompressor();
    await compressor.close();
    const short = await compressor.compress(toUncompressedSpanRows(exportOf(1, 1)));
    assert.equal(short[0]!.longAttributes, null);
    const rows = await compressor.compress(toUncompressedSpanRows(exportOf(30, 2)));
    assert.deepEqual(merged(rows), merged(toSpanRows(exportOf(30, 2))));
  });

  test('compresses a list of texts as packLongJson does each, moving the texts to the thread', async () => {
    const compressor = startLongAttributesCompressor();
    try {
      const texts = [JSON.stringify({ 'output.value': 'ünïcødé '.repeat(40) }), JSON.stringify({ 'input.value': 'x' })];
      const bytes = Buffer.concat(texts.map((text) => Buffer.from(text)));
      const values = new ArrayBuffer(bytes.length);
      Buffer.from(values).set(bytes);
      const ends = new Uint32Array([Buffer.byteLength(texts[0]!), bytes.length]);
      const result = await compressor.compressTexts({ values, ends });
      assert.equal(values.byteLength, 0, 'the texts moved to the thread');
      const out = Buffer.from(result.values);
      assert.deepEqual(out.subarray(0, result.ends[0]), packLongJson(texts[0]!));
      assert.deepEqual(out.subarray(result.ends[0], result.ends[1]), packLongJson(texts[1]!));
      assert.equal(result.ends[1], out.length);
    } finally {
      await compressor.close();
    }
  });

  test('once the thread has stopped, texts are compressed on the calling thread', async () => {
    const compressor = startLongAttributesCompressor();
    await compressor.close();
    const text = JSON.stringify({ 'input.value': 'after the thread' });
    const values = new ArrayBuffer(Buffer.byteLength(text));
    Buffer.from(values).write(text);
    const result = await compressor.compressTexts({ values, ends: new Uint32Array([values.byteLength]) });
    assert.deepEqual(Buffer.from(result.values), packLongJson(text));
  });
});
