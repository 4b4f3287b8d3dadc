import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { prng } from '@sightline/common/testing';
import { decodeProtobufExport } from '../../src/ingest/decode-protobuf.js';
import { OtlpDecodeError, type AttributeValue, type DecodedSpan } from '../../src/span-model/decoded-spans.js';
import { ExportTraceServiceRequest } from '../../src/ingest/otlp-schema.js';

const TRACE_ID = '0123456789abcdeffedcba9876543210';
const SPAN_ID = '0011223344556677';
const PARENT_ID = '8899aabbccddeeff';
const BIG_START = 1763769600123456789n;
const BIG_END = 1763769600987654321n;

type Obj = Record<string, unknown>;

/** Encodes a plain object through the repo's own protobufjs type. */
function encode(request: Obj): Uint8Array {
  return ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(request)).finish();
}

function spanObject(overrides: Obj = {}): Obj {
  return {
    traceId: Buffer.from(TRACE_ID, 'hex'),
    spanId: Buffer.from(SPAN_ID, 'hex'),
    parentSpanId: Buffer.from(PARENT_ID, 'hex'),
    name: 'llm call',
    kind: 3,
    startTimeUnixNano: BIG_START.toString(),
    endTimeUnixNano: BIG_END.toString(),
    ...overrides,
  };
}

function requestWith(spans: Obj[], resourceAttributes: Obj[] = []): Obj {
  return { resourceSpans: [{ resource: { attributes: resourceAttributes }, scopeSpans: [{ scope: { name: 'test' }, spans }] }] };
}

function decodeOne(span: Obj): DecodedSpan {
  const decoded = decodeProtobufExport(encode(requestWith([span])));
  assert.equal(decoded.length, 1);
  assert.equal(decoded[0]!.spans.length, 1);
  return decoded[0]!.spans[0]!;
}

/** Decodes a span whose only attribute is `k` with the given AnyValue and returns its value. */
function attributeValue(value: Obj | undefined): AttributeValue | undefined {
  const span = decodeOne(spanObject({ attributes: [value === undefined ? { key: 'k' } : { key: 'k', value }] }));
  assert.deepEqual(Object.keys(span.attributes), ['k']);
  return span.attributes.k;
}

function assertDecodeError(fn: () => unknown, message?: string | RegExp): OtlpDecodeError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof OtlpDecodeError, `expected OtlpDecodeError, got ${String(caught)}`);
  if (typeof message === 'string') assert.ok(caught.message.includes(message), `"${caught.message}" should include "${message}"`);
  else if (message) assert.match(caught.message, message);
  return caught;
}

describe('decodeProtobufExport: spans', () => {
  test('decodes a full span', () => {
    const decoded = decodeProtobufExport(
      encode(
        requestWith(
          [
            spanObject({
              attributes: [{ key: 'openinference.span.kind', value: { stringValue: 'LLM' } }],
              events: [{ timeUnixNano: '1763769600500000001', name: 'first token', attributes: [{ key: 'n', value: { intValue: 3 } }] }],
              status: { code: 2, message: 'boom' },
            }),
          ],
          [{ key: 'service.name', value: { stringValue: 'svc' } }],
        ),
      ),
    );
    assert.deepEqual(decoded, [
      {
        resourceAttributes: { 'service.name': 'svc' },
        spans: [
          {
            traceId: TRACE_ID,
            spanId: SPAN_ID,
            parentSpanId: PARENT_ID,
            name: 'llm call',
            kind: 3,
            startTimeUnixNano: BIG_START,
            endTimeUnixNano: BIG_END,
            attributes: { 'openinference.span.kind': 'LLM' },
            events: [{ name: 'first token', timeUnixNano: 1763769600500000001n, attributes: { n: 3 } }],
            statusCode: 2,
            statusMessage: 'boom',
          },
        ],
      },
    ]);
  });

  test('an empty body is an export with no spans', () => {
    assert.deepEqual(decodeProtobufExport(new Uint8Array(0)), []);
  });

  test('ids become lower-case hex', () => {
    const span = decodeOne(
      spanObject({
        traceId: Buffer.from('ABCDEF0123456789ABCDEF0123456789', 'hex'),
        spanId: Buffer.from('FEDCBA9876543210', 'hex'),
        parentSpanId: Buffer.from('A1B2C3D4E5F60718', 'hex'),
      }),
    );
    assert.equal(span.traceId, 'abcdef0123456789abcdef0123456789');
    assert.equal(span.spanId, 'fedcba9876543210');
    assert.equal(span.parentSpanId, 'a1b2c3d4e5f60718');
  });

  test('an empty parent span id means a root span', () => {
    assert.equal(decodeOne(spanObject({ parentSpanId: Buffer.alloc(0) })).parentSpanId, null);
    const { parentSpanId: _omitted, ...withoutParent } = spanObject();
    assert.equal(decodeOne(withoutParent).parentSpanId, null);
  });

  test('a trace id of the wrong length is rejected, naming its path', () => {
    for (const length of [0, 8, 15, 17, 32]) {
      assertDecodeError(
        () => decodeOne(spanObject({ traceId: Buffer.alloc(length, 1) })),
        `resourceSpans[0].scopeSpans[0].spans[0].traceId must be 16 bytes, got ${length}`,
      );
    }
  });

  test('a span id of the wrong length is rejected, naming its path', () => {
    for (const length of [0, 7, 9, 16]) {
      assertDecodeError(
        () => decodeOne(spanObject({ spanId: Buffer.alloc(length, 1) })),
        `resourceSpans[0].scopeSpans[0].spans[0].spanId must be 8 bytes, got ${length}`,
      );
    }
  });

  test('a parent span id of the wrong length is rejected, naming its path', () => {
    assertDecodeError(
      () => decodeOne(spanObject({ parentSpanId: Buffer.alloc(4, 1) })),
      'resourceSpans[0].scopeSpans[0].spans[0].parentSpanId must be 8 bytes, got 4',
    );
  });

  test('the path names the resource, scope and span index', () => {
    const good = spanObject();
    const bad = spanObject({ spanId: Buffer.alloc(3) });
    const request = {
      resourceSpans: [{ scopeSpans: [{ spans: [good] }] }, { scopeSpans: [{ spans: [good] }, { spans: [good, good, bad] }] }],
    };
    assertDecodeError(() => decodeProtobufExport(encode(request)), 'resourceSpans[1].scopeSpans[1].spans[2].spanId must be 8 bytes');
  });

  test('keeps several resources, scopes and spans in order', () => {
    const span = (n: number) =>
      spanObject({ spanId: Buffer.from(`00000000000000${n.toString(16).padStart(2, '0')}`, 'hex'), name: `s${n}` });
    const decoded = decodeProtobufExport(
      encode({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'a' } }] },
            scopeSpans: [{ spans: [span(1), span(2)] }, { spans: [span(3)] }],
          },
          { scopeSpans: [{ spans: [span(4)] }] },
          {},
        ],
      }),
    );
    assert.equal(decoded.length, 3);
    assert.deepEqual(decoded[0]!.resourceAttributes, { 'service.name': 'a' });
    assert.deepEqual(
      decoded[0]!.spans.map((s) => s.name),
      ['s1', 's2', 's3'],
    );
    assert.deepEqual(
      decoded[0]!.spans.map((s) => s.spanId),
      ['0000000000000001', '0000000000000002', '0000000000000003'],
    );
    assert.deepEqual(decoded[1]!.resourceAttributes, {});
    assert.deepEqual(
      decoded[1]!.spans.map((s) => s.name),
      ['s4'],
    );
    assert.deepEqual(decoded[2], { resourceAttributes: {}, spans: [] });
  });

  test('fixed64 times are exact bigints above 2^53', () => {
    assert.ok(BIG_START > 2n ** 53n);
    const span = decodeOne(spanObject());
    assert.equal(typeof span.startTimeUnixNano, 'bigint');
    assert.equal(span.startTimeUnixNano, 1763769600123456789n);
    assert.equal(span.endTimeUnixNano, 1763769600987654321n);
  });

  test('fixed64 times cover the full unsigned range', () => {
    const max = 2n ** 64n - 1n;
    const span = decodeOne(spanObject({ startTimeUnixNano: '0', endTimeUnixNano: max.toString() }));
    assert.equal(span.startTimeUnixNano, 0n);
    assert.equal(span.endTimeUnixNano, max);
    const high = decodeOne(spanObject({ startTimeUnixNano: (2n ** 63n + 5n).toString() }));
    assert.equal(high.startTimeUnixNano, 2n ** 63n + 5n);
  });

  test('missing times are zero', () => {
    const { startTimeUnixNano: _s, endTimeUnixNano: _e, ...span } = spanObject();
    const decoded = decodeOne(span);
    assert.equal(decoded.startTimeUnixNano, 0n);
    assert.equal(decoded.endTimeUnixNano, 0n);
  });

  test('status code and message', () => {
    const ok = decodeOne(spanObject({ status: { code: 1 } }));
    assert.equal(ok.statusCode, 1);
    assert.equal(ok.statusMessage, '');
    const error = decodeOne(spanObject({ status: { code: 2, message: 'rate limited' } }));
    assert.equal(error.statusCode, 2);
    assert.equal(error.statusMessage, 'rate limited');
    const none = decodeOne(spanObject());
    assert.equal(none.statusCode, 0);
    assert.equal(none.statusMessage, '');
  });

  test('kind is kept as its number', () => {
    assert.equal(decodeOne(spanObject({ kind: 0 })).kind, 0);
    assert.equal(decodeOne(spanObject({ kind: 5 })).kind, 5);
  });

  test('events keep name, exact time and attributes, in order', () => {
    const span = decodeOne(
      spanObject({
        events: [
          { timeUnixNano: '1763769600123456790', name: 'a', attributes: [{ key: 'x', value: { boolValue: true } }] },
          { timeUnixNano: '1', name: 'b' },
          {},
        ],
      }),
    );
    assert.deepEqual(span.events, [
      { name: 'a', timeUnixNano: 1763769600123456790n, attributes: { x: true } },
      { name: 'b', timeUnixNano: 1n, attributes: {} },
      { name: '', timeUnixNano: 0n, attributes: {} },
    ]);
  });

  test('names and keys are made storable (NUL and lone surrogates replaced)', () => {
    const span = decodeOne(
      spanObject({
        name: 'a\u0000b',
        attributes: [{ key: 'k\u0000', value: { stringValue: 'v\u0000' } }],
        status: { code: 2, message: 'm\u0000' },
        events: [{ name: 'e\u0000' }],
      }),
    );
    assert.equal(span.name, 'a\uFFFDb');
    assert.deepEqual(span.attributes, { 'k\uFFFD': 'v\uFFFD' });
    assert.equal(span.statusMessage, 'm\uFFFD');
    assert.equal(span.events[0]!.name, 'e\uFFFD');
  });

  test('an attribute named __proto__ is kept as an ordinary attribute', () => {
    const span = decodeOne(
      spanObject({
        attributes: [
          { key: '__proto__', value: { kvlistValue: { values: [{ key: 'openinference.span.kind', value: { stringValue: 'LLM' } }] } } },
        ],
      }),
    );
    assert.equal(Object.getPrototypeOf(span.attributes), Object.prototype);
    assert.equal(span.attributes['openinference.span.kind'], undefined);
    assert.equal(JSON.stringify(span.attributes), '{"__proto__":{"openinference.span.kind":"LLM"}}');
  });
});

describe('decodeProtobufExport: AnyValue', () => {
  test('string', () => {
    assert.equal(attributeValue({ stringValue: 'hello' }), 'hello');
    assert.equal(attributeValue({ stringValue: '' }), '');
  });

  test('bool', () => {
    assert.equal(attributeValue({ boolValue: true }), true);
    assert.equal(attributeValue({ boolValue: false }), false);
  });

  test('int, including zero and negative values', () => {
    assert.equal(attributeValue({ intValue: 42 }), 42);
    assert.equal(attributeValue({ intValue: 0 }), 0);
    assert.equal(attributeValue({ intValue: -7 }), -7);
    assert.equal(attributeValue({ intValue: Number.MAX_SAFE_INTEGER }), Number.MAX_SAFE_INTEGER);
    assert.equal(attributeValue({ intValue: Number.MIN_SAFE_INTEGER }), Number.MIN_SAFE_INTEGER);
  });

  test('int beyond 2^53 becomes an exact decimal string', () => {
    assert.equal(attributeValue({ intValue: '9007199254740993' }), '9007199254740993');
    assert.equal(attributeValue({ intValue: '9223372036854775807' }), '9223372036854775807');
    assert.equal(attributeValue({ intValue: '-9223372036854775808' }), '-9223372036854775808');
    assert.equal(attributeValue({ intValue: '-9007199254740993' }), '-9007199254740993');
  });

  test('double', () => {
    assert.equal(attributeValue({ doubleValue: 3.25 }), 3.25);
    assert.equal(attributeValue({ doubleValue: -0.5 }), -0.5);
    assert.equal(attributeValue({ doubleValue: 0 }), 0);
    assert.equal(attributeValue({ doubleValue: 1e300 }), 1e300);
  });

  test('NaN and infinities become strings', () => {
    assert.equal(attributeValue({ doubleValue: NaN }), 'NaN');
    assert.equal(attributeValue({ doubleValue: Infinity }), 'Infinity');
    assert.equal(attributeValue({ doubleValue: -Infinity }), '-Infinity');
  });

  test('array of mixed values', () => {
    assert.deepEqual(
      attributeValue({
        arrayValue: {
          values: [
            { stringValue: 'a' },
            { intValue: 1 },
            { boolValue: false },
            { doubleValue: 1.5 },
            {},
            { arrayValue: { values: [{ intValue: 2 }] } },
          ],
        },
      }),
      ['a', 1, false, 1.5, null, [2]],
    );
    assert.deepEqual(attributeValue({ arrayValue: {} }), []);
  });

  test('nested kvlist', () => {
    assert.deepEqual(
      attributeValue({
        kvlistValue: {
          values: [
            { key: 'a', value: { stringValue: 'x' } },
            { key: 'b', value: { kvlistValue: { values: [{ key: 'c', value: { intValue: '9007199254740993' } }, { key: 'd' }] } } },
            { key: 'e', value: { arrayValue: { values: [{ kvlistValue: { values: [{ key: 'f', value: { boolValue: true } }] } }] } } },
          ],
        },
      }),
      { a: 'x', b: { c: '9007199254740993', d: null }, e: [{ f: true }] },
    );
    assert.deepEqual(attributeValue({ kvlistValue: {} }), {});
  });

  test('bytes become base64', () => {
    assert.equal(attributeValue({ bytesValue: Buffer.from([0, 1, 2, 0xfe, 0xff]) }), 'AAEC/v8=');
    assert.equal(attributeValue({ bytesValue: Buffer.alloc(0) }), '');
  });

  test('an empty AnyValue and a missing value are null', () => {
    assert.equal(attributeValue({}), null);
    assert.equal(attributeValue(undefined), null);
  });

  test('the last of duplicate keys wins', () => {
    const span = decodeOne(
      spanObject({
        attributes: [
          { key: 'k', value: { intValue: 1 } },
          { key: 'k', value: { intValue: 2 } },
        ],
      }),
    );
    assert.deepEqual(span.attributes, { k: 2 });
  });
});

// ---------------------------------------------------------------------------------------------
// Malformed input: only OtlpDecodeError may escape.

/** mulberry32: small deterministic PRNG so that fuzz failures reproduce. */

function richRequest(): Uint8Array {
  let nested: Obj = { intValue: '-9223372036854775808' };
  for (let i = 0; i < 4; i++)
    nested = { arrayValue: { values: [nested, { kvlistValue: { values: [{ key: `d${i}`, value: { doubleValue: i / 3 } }] } }] } };
  const attributes = [
    { key: 's', value: { stringValue: 'text ✓' } },
    { key: 'b', value: { boolValue: true } },
    { key: 'i', value: { intValue: '9007199254740993' } },
    { key: 'd', value: { doubleValue: 2.5 } },
    { key: 'bytes', value: { bytesValue: Buffer.from('hello') } },
    { key: 'nested', value: nested },
    { key: 'empty', value: {} },
  ];
  return encode({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
        scopeSpans: [
          {
            scope: { name: 'scope', version: '1' },
            spans: [
              spanObject({
                attributes,
                events: [{ timeUnixNano: '1763769600123456790', name: 'ev', attributes }],
                status: { code: 2, message: 'bad' },
                links: [{ traceId: Buffer.alloc(16, 2), spanId: Buffer.alloc(8, 3) }],
              }),
              spanObject({ parentSpanId: Buffer.alloc(0), name: 'root' }),
            ],
          },
        ],
      },
    ],
  });
}

/** Runs the decoder and fails the test on anything thrown other than OtlpDecodeError. */
function decodeOrDecodeError(buffer: Uint8Array, label: string): 'ok' | 'error' {
  try {
    const result = decodeProtobufExport(buffer);
    assert.ok(Array.isArray(result));
    for (const resource of result) {
      for (const span of resource.spans) {
        assert.match(span.traceId, /^[0-9a-f]{32}$/);
        assert.match(span.spanId, /^[0-9a-f]{16}$/);
        assert.ok(span.parentSpanId === null || /^[0-9a-f]{16}$/.test(span.parentSpanId));
        assert.equal(typeof span.startTimeUnixNano, 'bigint');
        assert.ok(span.startTimeUnixNano >= 0n && span.startTimeUnixNano < 2n ** 64n);
        assert.ok(span.endTimeUnixNano >= 0n && span.endTimeUnixNano < 2n ** 64n);
        JSON.stringify(span.attributes); // must be JSON-serialisable (no bigint, no cycles)
      }
    }
    return 'ok';
  } catch (error) {
    if (error instanceof OtlpDecodeError) return 'error';
    assert.fail(`${label}: expected only OtlpDecodeError, got ${(error as Error)?.name}: ${(error as Error)?.message}`);
  }
}

describe('decodeProtobufExport: malformed input', () => {
  test('the rich fixture decodes', () => {
    const decoded = decodeProtobufExport(richRequest());
    assert.equal(decoded[0]!.spans.length, 2);
    assert.equal(decoded[0]!.spans[0]!.attributes.i, '9007199254740993');
    assert.equal(decoded[0]!.spans[0]!.attributes.bytes, Buffer.from('hello').toString('base64'));
  });

  test('every truncation of a valid message is an OtlpDecodeError', () => {
    const full = richRequest();
    for (let length = 1; length < full.length; length++) {
      assertDecodeError(() => decodeProtobufExport(full.subarray(0, length)), /^malformed OTLP protobuf body: /);
    }
  });

  test('an invalid wire type is an OtlpDecodeError', () => {
    assertDecodeError(() => decodeProtobufExport(Uint8Array.from([0x0f])), /^malformed OTLP protobuf body/);
  });

  test('a length prefix beyond the buffer is an OtlpDecodeError', () => {
    assertDecodeError(() => decodeProtobufExport(Uint8Array.from([0x0a, 0x7f, 0x01])), /^malformed OTLP protobuf body/);
  });

  test('nesting deeper than the decoder allows is an OtlpDecodeError', () => {
    // AnyValue{array_value: ArrayValue{values: AnyValue{...}}}, built from the inside out by hand,
    // since protobufjs refuses to encode it.
    const lengthDelimited = (tag: number, body: Buffer) => Buffer.concat([Buffer.from([tag]), varint(body.length), body]);
    const nestedBody = (depth: number) => {
      let anyValue: Buffer = Buffer.from([0x18, 0x01]); // int_value = 1
      for (let i = 0; i < depth; i++) anyValue = lengthDelimited(0x2a, lengthDelimited(0x0a, anyValue));
      const keyValue = Buffer.concat([lengthDelimited(0x0a, Buffer.from('k')), lengthDelimited(0x12, anyValue)]);
      const span = Buffer.concat([
        lengthDelimited(0x0a, Buffer.alloc(16, 1)),
        lengthDelimited(0x12, Buffer.alloc(8, 1)),
        lengthDelimited(0x4a, keyValue),
      ]);
      return lengthDelimited(0x0a, lengthDelimited(0x12, lengthDelimited(0x12, span)));
    };
    // The hand encoding is right: three levels decode to three nested arrays.
    assert.deepEqual(decodeProtobufExport(nestedBody(3))[0]!.spans[0]!.attributes, { k: [[[1]]] });
    assertDecodeError(() => decodeProtobufExport(nestedBody(200)), 'malformed OTLP protobuf body: maximum nesting depth exceeded');
  });

  test('fuzz: random buffers throw only OtlpDecodeError', () => {
    const random = prng(0x5eed).next;
    let errors = 0;
    for (let i = 0; i < 3000; i++) {
      const buffer = new Uint8Array(Math.floor(random() * 64));
      for (let j = 0; j < buffer.length; j++) buffer[j] = Math.floor(random() * 256);
      if (decodeOrDecodeError(buffer, `random buffer #${i}`) === 'error') errors++;
    }
    assert.ok(errors > 1000, `most random buffers should be rejected, only ${errors} were`);
  });

  test('fuzz: mutated valid messages throw only OtlpDecodeError', () => {
    const random = prng(42).next;
    const base = richRequest();
    const outcomes = { ok: 0, error: 0 };
    for (let i = 0; i < 4000; i++) {
      const buffer = Uint8Array.from(base);
      const mutations = 1 + Math.floor(random() * 4);
      let mutated: Uint8Array = buffer;
      for (let m = 0; m < mutations; m++) {
        const position = Math.floor(random() * mutated.length);
        switch (Math.floor(random() * 5)) {
          case 0: // flip one bit
            mutated[position] = mutated[position]! ^ (1 << Math.floor(random() * 8));
            break;
          case 1: // random byte
            mutated[position] = Math.floor(random() * 256);
            break;
          case 2: // truncate
            mutated = mutated.slice(0, position);
            break;
          case 3: // insert random bytes
            mutated = Uint8Array.from([
              ...mutated.subarray(0, position),
              ...Array.from({ length: 1 + Math.floor(random() * 4) }, () => Math.floor(random() * 256)),
              ...mutated.subarray(position),
            ]);
            break;
          default: // delete a run of bytes
            mutated = Uint8Array.from([...mutated.subarray(0, position), ...mutated.subarray(position + 1 + Math.floor(random() * 8))]);
        }
        if (mutated.length === 0) break;
      }
      outcomes[decodeOrDecodeError(mutated, `mutation #${i}`)]++;
    }
    assert.ok(outcomes.error > 500, `expected many rejections, got ${outcomes.error}`);
    assert.ok(outcomes.ok > 0, 'some mutations (e.g. of string bytes) should still decode');
  });
});

function varint(value: number): Buffer {
  const bytes: number[] = [];
  while (value > 0x7f) {
    bytes.push((value & 0x7f) | 0x80);
    value >>>= 7;
  }
  bytes.push(value);
  return Buffer.from(bytes);
}
