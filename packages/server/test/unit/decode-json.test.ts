import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { prng } from '@sightline/common/testing';
import { InvalidInputError } from '@sightline/common';
import { decodeJsonExport } from '../../src/ingest/decode-json.js';
import { OtlpDecodeError, type AttributeValue, type DecodedSpan } from '../../src/span-model/decoded-spans.js';
import { toSpanRows } from '../../src/span-model/span-rows.js';

const TRACE_ID = '0123456789abcdeffedcba9876543210';
const SPAN_ID = '0011223344556677';
const PARENT_ID = '8899aabbccddeeff';
const SPAN_PATH = 'resourceSpans[0].scopeSpans[0].spans[0]';

type Obj = Record<string, unknown>;

function spanJson(overrides: Obj = {}): Obj {
  return {
    traceId: TRACE_ID,
    spanId: SPAN_ID,
    parentSpanId: PARENT_ID,
    name: 'llm call',
    kind: 3,
    startTimeUnixNano: '1763769600123456789',
    endTimeUnixNano: '1763769600987654321',
    ...overrides,
  };
}

function docWith(spans: unknown[], resourceAttributes: unknown[] = []): Obj {
  return { resourceSpans: [{ resource: { attributes: resourceAttributes }, scopeSpans: [{ scope: { name: 'test' }, spans }] }] };
}

function decodeOne(span: Obj): DecodedSpan {
  const decoded = decodeJsonExport(JSON.stringify(docWith([span])));
  assert.equal(decoded.length, 1);
  assert.equal(decoded[0]!.spans.length, 1);
  return decoded[0]!.spans[0]!;
}

/** Decodes the raw JSON text of one span (for numbers JSON.stringify cannot write exactly). */
function decodeRawSpan(spanText: string): DecodedSpan {
  return decodeJsonExport(`{"resourceSpans":[{"scopeSpans":[{"spans":[${spanText}]}]}]}`)[0]!.spans[0]!;
}

function attributeValue(value: unknown): AttributeValue | undefined {
  const span = decodeOne(spanJson({ attributes: [{ key: 'k', value }] }));
  assert.deepEqual(Object.keys(span.attributes), ['k']);
  return span.attributes.k;
}

/** Decodes the raw JSON text of an AnyValue as attribute `k`. */
function rawAttributeValue(valueText: string): AttributeValue | undefined {
  const span = decodeRawSpan(`{"traceId":"${TRACE_ID}","spanId":"${SPAN_ID}","name":"n","attributes":[{"key":"k","value":${valueText}}]}`);
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

const expectedSpan: DecodedSpan = {
  traceId: TRACE_ID,
  spanId: SPAN_ID,
  parentSpanId: PARENT_ID,
  name: 'llm call',
  kind: 3,
  startTimeUnixNano: 1763769600123456789n,
  endTimeUnixNano: 1763769600987654321n,
  attributes: { 'openinference.span.kind': 'LLM', n: 3 },
  events: [{ name: 'first token', timeUnixNano: 1763769600500000001n, attributes: { i: 1 } }],
  statusCode: 2,
  statusMessage: 'boom',
};

describe('decodeJsonExport: documents', () => {
  test('decodes a camelCase document', () => {
    const text = JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
          scopeSpans: [
            {
              scope: { name: 'test' },
              spans: [
                spanJson({
                  attributes: [
                    { key: 'openinference.span.kind', value: { stringValue: 'LLM' } },
                    { key: 'n', value: { intValue: '3' } },
                  ],
                  events: [
                    { timeUnixNano: '1763769600500000001', name: 'first token', attributes: [{ key: 'i', value: { intValue: 1 } }] },
                  ],
                  status: { code: 2, message: 'boom' },
                }),
              ],
            },
          ],
        },
      ],
    });
    assert.deepEqual(decodeJsonExport(text), [{ resourceAttributes: { 'service.name': 'svc' }, spans: [expectedSpan] }]);
  });

  test('decodes the same document with snake_case keys', () => {
    const text = JSON.stringify({
      resource_spans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { string_value: 'svc' } }] },
          scope_spans: [
            {
              scope: { name: 'test' },
              spans: [
                {
                  trace_id: TRACE_ID,
                  span_id: SPAN_ID,
                  parent_span_id: PARENT_ID,
                  name: 'llm call',
                  kind: 3,
                  start_time_unix_nano: '1763769600123456789',
                  end_time_unix_nano: '1763769600987654321',
                  attributes: [
                    { key: 'openinference.span.kind', value: { string_value: 'LLM' } },
                    { key: 'n', value: { int_value: '3' } },
                  ],
                  events: [
                    { time_unix_nano: '1763769600500000001', name: 'first token', attributes: [{ key: 'i', value: { int_value: 1 } }] },
                  ],
                  status: { code: 2, message: 'boom' },
                },
              ],
            },
          ],
        },
      ],
    });
    assert.deepEqual(decodeJsonExport(text), [{ resourceAttributes: { 'service.name': 'svc' }, spans: [expectedSpan] }]);
  });

  test('snake_case AnyValue kinds', () => {
    assert.equal(attributeValue({ bool_value: true }), true);
    assert.equal(attributeValue({ double_value: 1.5 }), 1.5);
    assert.equal(attributeValue({ bytes_value: 'AAE=' }), 'AAE=');
    assert.deepEqual(attributeValue({ array_value: { values: [{ int_value: '2' }] } }), [2]);
    assert.deepEqual(attributeValue({ kvlist_value: { values: [{ key: 'a', value: { string_value: 'b' } }] } }), { a: 'b' });
  });

  test('empty documents', () => {
    assert.deepEqual(decodeJsonExport('{}'), []);
    assert.deepEqual(decodeJsonExport('{"resourceSpans":[]}'), []);
    assert.deepEqual(decodeJsonExport('{"resourceSpans":null}'), []);
    assert.deepEqual(decodeJsonExport('{"resourceSpans":[{}]}'), [{ resourceAttributes: {}, spans: [] }]);
  });

  test('keeps several resources, scopes and spans in order', () => {
    const span = (n: number) => spanJson({ spanId: `00000000000000${n.toString(16).padStart(2, '0')}`, name: `s${n}` });
    const decoded = decodeJsonExport(
      JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'a' } }] },
            scopeSpans: [{ spans: [span(1), span(2)] }, { spans: [span(3)] }],
          },
          { scopeSpans: [{ spans: [span(4)] }] },
        ],
      }),
    );
    assert.deepEqual(
      decoded.map((r) => r.resourceAttributes),
      [{ 'service.name': 'a' }, {}],
    );
    assert.deepEqual(
      decoded.map((r) => r.spans.map((s) => s.name)),
      [['s1', 's2', 's3'], ['s4']],
    );
  });

  test('missing optional fields take their defaults', () => {
    const span = decodeOne({ traceId: TRACE_ID, spanId: SPAN_ID });
    assert.deepEqual(span, {
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      parentSpanId: null,
      name: '',
      kind: 0,
      startTimeUnixNano: 0n,
      endTimeUnixNano: 0n,
      attributes: {},
      events: [],
      statusCode: 0,
      statusMessage: '',
    });
  });

  test('the path of an error names the resource, scope and span index', () => {
    const good = spanJson();
    const doc = {
      resourceSpans: [
        { scopeSpans: [{ spans: [good] }] },
        { scopeSpans: [{ spans: [good] }, { spans: [good, good, spanJson({ spanId: 'abc' })] }] },
      ],
    };
    assertDecodeError(
      () => decodeJsonExport(JSON.stringify(doc)),
      'resourceSpans[1].scopeSpans[1].spans[2].spanId must be 16 hex characters',
    );
  });
});

describe('decodeJsonExport: ids', () => {
  test('hex ids in any case become lower case', () => {
    const span = decodeOne(
      spanJson({ traceId: TRACE_ID.toUpperCase(), spanId: 'AbCdEf0123456789', parentSpanId: PARENT_ID.toUpperCase() }),
    );
    assert.equal(span.traceId, TRACE_ID);
    assert.equal(span.spanId, 'abcdef0123456789');
    assert.equal(span.parentSpanId, PARENT_ID);
  });

  test('base64 ids (padded, unpadded, url-safe) become hex', () => {
    const traceBytes = Buffer.from('fbff0123456789abcdeffedcba98765f', 'hex');
    const spanBytes = Buffer.from('fbffaabbccddeeff', 'hex');
    const forms = [
      [traceBytes.toString('base64'), spanBytes.toString('base64')],
      [traceBytes.toString('base64').replace(/=+$/, ''), spanBytes.toString('base64').replace(/=+$/, '')],
      [traceBytes.toString('base64url'), spanBytes.toString('base64url')],
    ];
    for (const [traceId, spanId] of forms) {
      const span = decodeOne(spanJson({ traceId, spanId, parentSpanId: spanId }));
      assert.equal(span.traceId, 'fbff0123456789abcdeffedcba98765f');
      assert.equal(span.spanId, 'fbffaabbccddeeff');
      assert.equal(span.parentSpanId, 'fbffaabbccddeeff');
    }
  });

  test('empty, null and missing parent ids mean a root span', () => {
    assert.equal(decodeOne(spanJson({ parentSpanId: '' })).parentSpanId, null);
    assert.equal(decodeOne(spanJson({ parentSpanId: null })).parentSpanId, null);
    const { parentSpanId: _omitted, ...root } = spanJson();
    assert.equal(decodeOne(root).parentSpanId, null);
  });

  test('a trace id of the wrong length is rejected, naming its path', () => {
    for (const traceId of ['', '0123', TRACE_ID.slice(1), `${TRACE_ID}00`, Buffer.alloc(15).toString('base64')]) {
      assertDecodeError(() => decodeOne(spanJson({ traceId })), `${SPAN_PATH}.traceId must be 32 hex characters (or base64 of 16 bytes)`);
    }
  });

  test('a span id of the wrong length is rejected, naming its path', () => {
    for (const spanId of ['00112233445566', '001122334455667788', Buffer.alloc(9).toString('base64')]) {
      assertDecodeError(() => decodeOne(spanJson({ spanId })), `${SPAN_PATH}.spanId must be 16 hex characters (or base64 of 8 bytes)`);
    }
    assertDecodeError(() => decodeOne(spanJson({ parentSpanId: 'xyz' })), `${SPAN_PATH}.parentSpanId must be 16 hex characters`);
  });

  test('non-hex, non-base64 ids are rejected and quoted', () => {
    const error = assertDecodeError(() => decodeOne(spanJson({ spanId: 'not an id!!!!!!!' })), `${SPAN_PATH}.spanId`);
    assert.ok(error.message.includes('"not an id!!!!!!!"'));
  });

  test('missing or non-string ids are rejected', () => {
    const { traceId: _t, ...noTrace } = spanJson();
    assertDecodeError(() => decodeOne(noTrace), `${SPAN_PATH}.traceId must be a hex string of 32 characters`);
    assertDecodeError(() => decodeOne(spanJson({ spanId: 12345678 })), `${SPAN_PATH}.spanId must be a hex string of 16 characters`);
    assertDecodeError(() => decodeOne(spanJson({ parentSpanId: [] })), `${SPAN_PATH}.parentSpanId must be a hex string`);
  });
});

describe('decodeJsonExport: times and integers', () => {
  test('big times given as JSON numbers stay exact', () => {
    const span = decodeRawSpan(
      `{"traceId":"${TRACE_ID}","spanId":"${SPAN_ID}","name":"n","startTimeUnixNano":1763769600123456789,"endTimeUnixNano" : 1763769600987654321,` +
        `"events":[{"timeUnixNano":1763769600500000001}]}`,
    );
    assert.equal(span.startTimeUnixNano, 1763769600123456789n);
    assert.equal(span.endTimeUnixNano, 1763769600987654321n);
    assert.equal(span.events[0]!.timeUnixNano, 1763769600500000001n);
  });

  test('big times given as snake_case JSON numbers stay exact', () => {
    const span = decodeRawSpan(
      `{"trace_id":"${TRACE_ID}","span_id":"${SPAN_ID}","name":"n","start_time_unix_nano":1763769600123456789,"end_time_unix_nano":1763769600987654321,` +
        `"events":[{"time_unix_nano":1763769600500000001}]}`,
    );
    assert.equal(span.startTimeUnixNano, 1763769600123456789n);
    assert.equal(span.endTimeUnixNano, 1763769600987654321n);
    assert.equal(span.events[0]!.timeUnixNano, 1763769600500000001n);
  });

  test('big times given as strings stay exact', () => {
    const span = decodeOne(spanJson({ startTimeUnixNano: '1763769600123456789', endTimeUnixNano: '18446744073709551615' }));
    assert.equal(span.startTimeUnixNano, 1763769600123456789n);
    assert.equal(span.endTimeUnixNano, 2n ** 64n - 1n);
  });

  test('small times as plain numbers', () => {
    const span = decodeOne(spanJson({ startTimeUnixNano: 1000, endTimeUnixNano: 0 }));
    assert.equal(span.startTimeUnixNano, 1000n);
    assert.equal(span.endTimeUnixNano, 0n);
  });

  test('exponent notation for an integral value is accepted', () => {
    assert.equal(decodeRawSpan(`{"traceId":"${TRACE_ID}","spanId":"${SPAN_ID}","startTimeUnixNano":1.5e3}`).startTimeUnixNano, 1500n);
    assert.equal(decodeOne(spanJson({ startTimeUnixNano: '2e3' })).startTimeUnixNano, 2000n);
  });

  test('times outside the unsigned 64-bit range, fractional or non-numeric are rejected', () => {
    const message = `${SPAN_PATH}.startTimeUnixNano must be a non-negative 64-bit integer`;
    for (const value of ['18446744073709551616', '-1', -1, 1.5, '1.5', 'soon', '', ' ', '0x10', 'Infinity', true, {}, []]) {
      assertDecodeError(() => decodeOne(spanJson({ startTimeUnixNano: value })), message);
    }
    assertDecodeError(() => decodeRawSpan(`{"traceId":"${TRACE_ID}","spanId":"${SPAN_ID}","startTimeUnixNano":1e30}`), message);
    assertDecodeError(
      () => decodeRawSpan(`{"traceId":"${TRACE_ID}","spanId":"${SPAN_ID}","startTimeUnixNano":18446744073709551616}`),
      message,
    );
    assertDecodeError(
      () => decodeOne(spanJson({ events: [{ timeUnixNano: '-5' }] })),
      `${SPAN_PATH}.events[0].timeUnixNano must be a non-negative 64-bit integer`,
    );
  });

  test('intValue as string or number, exact beyond 2^53', () => {
    assert.equal(attributeValue({ intValue: '42' }), 42);
    assert.equal(attributeValue({ intValue: 42 }), 42);
    assert.equal(attributeValue({ intValue: '-42' }), -42);
    assert.equal(attributeValue({ intValue: -42 }), -42);
    assert.equal(attributeValue({ intValue: '0' }), 0);
    assert.equal(attributeValue({ intValue: '9007199254740993' }), '9007199254740993');
    assert.equal(attributeValue({ intValue: '9223372036854775807' }), '9223372036854775807');
    assert.equal(attributeValue({ intValue: '-9223372036854775808' }), '-9223372036854775808');
    assert.equal(rawAttributeValue('{"intValue":9007199254740993}'), '9007199254740993');
    assert.equal(rawAttributeValue('{"intValue": -9223372036854775808}'), '-9223372036854775808');
    assert.equal(rawAttributeValue('{"int_value":9007199254740993}'), '9007199254740993');
  });

  test('intValue outside the signed 64-bit range or not an integer is rejected', () => {
    const where = `${SPAN_PATH}.attributes[0].value.intValue must be a 64-bit integer`;
    for (const value of ['9223372036854775808', '-9223372036854775809', '1.5', 1.5, 'x', '', '0x10', true, null]) {
      assertDecodeError(() => attributeValue({ intValue: value }), where);
    }
    assertDecodeError(() => rawAttributeValue('{"intValue":1e30}'), where);
  });
});

describe('decodeJsonExport: enums', () => {
  test('kind as number or enum name', () => {
    const names = [
      'SPAN_KIND_UNSPECIFIED',
      'SPAN_KIND_INTERNAL',
      'SPAN_KIND_SERVER',
      'SPAN_KIND_CLIENT',
      'SPAN_KIND_PRODUCER',
      'SPAN_KIND_CONSUMER',
    ];
    for (const [number, name] of names.entries()) {
      assert.equal(decodeOne(spanJson({ kind: name })).kind, number);
      assert.equal(decodeOne(spanJson({ kind: number })).kind, number);
    }
    assert.equal(decodeOne(spanJson({ kind: null })).kind, 0);
  });

  test('status code as number or enum name', () => {
    for (const [name, number] of [
      ['STATUS_CODE_UNSET', 0],
      ['STATUS_CODE_OK', 1],
      ['STATUS_CODE_ERROR', 2],
    ] as const) {
      assert.equal(decodeOne(spanJson({ status: { code: name } })).statusCode, number);
      assert.equal(decodeOne(spanJson({ status: { code: number } })).statusCode, number);
    }
    const empty = decodeOne(spanJson({ status: {} }));
    assert.equal(empty.statusCode, 0);
    assert.equal(empty.statusMessage, '');
  });

  test('an unknown kind name or a non-integer kind is rejected, naming its path', () => {
    for (const kind of ['CLIENT', 'span_kind_client', 1.5, true, {}]) {
      assertDecodeError(() => decodeOne(spanJson({ kind })), `${SPAN_PATH}.kind must be one of SPAN_KIND_UNSPECIFIED`);
    }
  });

  test('an unknown status code is rejected, naming its path', () => {
    for (const code of ['ERROR', 'STATUS_CODE_FAILED', 2.5, false]) {
      assertDecodeError(
        () => decodeOne(spanJson({ status: { code } })),
        `${SPAN_PATH}.status.code must be one of STATUS_CODE_UNSET, STATUS_CODE_OK, STATUS_CODE_ERROR`,
      );
    }
  });
});

describe('decodeJsonExport: AnyValue', () => {
  test('string, bool, double', () => {
    assert.equal(attributeValue({ stringValue: 'hi' }), 'hi');
    assert.equal(attributeValue({ stringValue: '' }), '');
    assert.equal(attributeValue({ boolValue: true }), true);
    assert.equal(attributeValue({ boolValue: false }), false);
    assert.equal(attributeValue({ doubleValue: 2.5 }), 2.5);
    assert.equal(attributeValue({ doubleValue: 0 }), 0);
    assert.equal(attributeValue({ doubleValue: '2.5' }), 2.5);
  });

  test('NaN and infinities given as strings stay strings', () => {
    assert.equal(attributeValue({ doubleValue: 'NaN' }), 'NaN');
    assert.equal(attributeValue({ doubleValue: 'Infinity' }), 'Infinity');
    assert.equal(attributeValue({ doubleValue: '-Infinity' }), '-Infinity');
  });

  test('arrays and nested kvlists', () => {
    assert.deepEqual(
      attributeValue({
        arrayValue: {
          values: [
            { stringValue: 'a' },
            { intValue: '1' },
            {},
            null,
            { kvlistValue: { values: [{ key: 'x', value: { boolValue: true } }] } },
          ],
        },
      }),
      ['a', 1, null, null, { x: true }],
    );
    assert.deepEqual(
      attributeValue({
        kvlistValue: {
          values: [
            { key: 'a', value: { kvlistValue: { values: [{ key: 'b', value: { arrayValue: { values: [{ doubleValue: 1.5 }] } } }] } } },
            { key: 'c' },
          ],
        },
      }),
      { a: { b: [1.5] }, c: null },
    );
    assert.deepEqual(attributeValue({ arrayValue: {} }), []);
    assert.deepEqual(attributeValue({ kvlistValue: { values: [] } }), {});
  });

  test('bytes are kept as their base64 text', () => {
    assert.equal(attributeValue({ bytesValue: 'AAEC/v8=' }), 'AAEC/v8=');
  });

  test('empty and missing values are null', () => {
    assert.equal(attributeValue({}), null);
    assert.equal(attributeValue(null), null);
    const span = decodeOne(spanJson({ attributes: [{ key: 'k' }] }));
    assert.deepEqual(span.attributes, { k: null });
  });

  test('strings and keys are made storable', () => {
    const span = decodeOne(spanJson({ name: 'a\u0000', attributes: [{ key: 'k\u0000', value: { stringValue: '\uD800x' } }] }));
    assert.equal(span.name, 'a\uFFFD');
    assert.deepEqual(span.attributes, { 'k\uFFFD': '\uFFFDx' });
  });

  test('an attribute named __proto__ is kept as an ordinary attribute', () => {
    const text = JSON.stringify(docWith([spanJson()])).replace(
      '"name":"llm call"',
      '"name":"llm call","attributes":[{"key":"__proto__","value":{"kvlistValue":{"values":[{"key":"openinference.span.kind","value":{"stringValue":"LLM"}}]}}}]',
    );
    const span = decodeJsonExport(text)[0]!.spans[0]!;
    assert.equal(Object.getPrototypeOf(span.attributes), Object.prototype);
    assert.equal(span.attributes['openinference.span.kind'], undefined);
    assert.equal(JSON.stringify(span.attributes), '{"__proto__":{"openinference.span.kind":"LLM"}}');
    assert.equal(toSpanRows(decodeJsonExport(text))[0]!.spanKind, 'UNKNOWN');
  });

  test('wrongly typed values are rejected, naming their path', () => {
    const where = `${SPAN_PATH}.attributes[0].value`;
    assertDecodeError(() => attributeValue({ stringValue: 5 }), `${where}.stringValue must be a string`);
    assertDecodeError(() => attributeValue({ boolValue: 'true' }), `${where}.boolValue must be true or false`);
    for (const doubleValue of ['abc', '', true, [5], {}, null]) {
      assertDecodeError(() => attributeValue({ doubleValue }), `${where}.doubleValue must be a number`);
    }
    assertDecodeError(() => attributeValue({ bytesValue: 12 }), `${where}.bytesValue must be a base64 string`);
    assertDecodeError(() => attributeValue({ arrayValue: [] }), `${where}.arrayValue must be a JSON object`);
    assertDecodeError(() => attributeValue({ arrayValue: { values: {} } }), `${where}.arrayValue.values must be an array`);
    assertDecodeError(() => attributeValue({ kvlistValue: 'x' }), `${where}.kvlistValue must be a JSON object`);
    assertDecodeError(
      () => attributeValue({ kvlistValue: { values: [{ key: 1 }] } }),
      `${where}.kvlistValue.values[0].key must be a string`,
    );
    assertDecodeError(() => attributeValue('plain'), `${where} must be a JSON object`);
    assertDecodeError(
      () => attributeValue({ arrayValue: { values: [{ stringValue: 1 }] } }),
      `${where}.arrayValue.values[0].stringValue must be a string`,
    );
  });

  test('values nested too deeply are an OtlpDecodeError, not a stack overflow', () => {
    const nested = (depth: number) => `${'{"arrayValue":{"values":['.repeat(depth)}{"intValue":1}${']}}'.repeat(depth)}`;
    assert.deepEqual(rawAttributeValue(nested(3)), [[[1]]]);
    assert.equal(JSON.stringify(rawAttributeValue(nested(60))), `${'['.repeat(60)}1${']'.repeat(60)}`);
    assertDecodeError(() => rawAttributeValue(nested(1000)), /nested more than \d+ levels deep/);
    assertDecodeError(() => rawAttributeValue(nested(200_000)), /nested more than \d+ levels deep/);
    const kvNested = (depth: number) =>
      `${'{"kvlistValue":{"values":[{"key":"k","value":'.repeat(depth)}{"intValue":1}${'}]}}'.repeat(depth)}`;
    assertDecodeError(() => rawAttributeValue(kvNested(200_000)), /nested more than \d+ levels deep/);
  });
});

describe('decodeJsonExport: malformed documents', () => {
  test('invalid JSON', () => {
    for (const text of ['', '{', '{"resourceSpans":[}', 'nope', '{"a":1,}']) {
      assertDecodeError(() => decodeJsonExport(text), /^invalid JSON body: /);
    }
  });

  test('a body that is not an object', () => {
    for (const text of ['[]', '42', 'null', '"text"', 'true', '[{"resourceSpans":[]}]']) {
      assertDecodeError(() => decodeJsonExport(text), 'body must be a JSON object');
    }
  });

  test('arrays where objects are expected and objects where arrays are expected', () => {
    const cases: [unknown, string][] = [
      [{ resourceSpans: {} }, 'resourceSpans must be an array'],
      [{ resourceSpans: 'x' }, 'resourceSpans must be an array'],
      [{ resourceSpans: [[]] }, 'resourceSpans[0] must be a JSON object'],
      [{ resourceSpans: [{ resource: [] }] }, 'resourceSpans[0].resource must be a JSON object'],
      [{ resourceSpans: [{ resource: { attributes: {} } }] }, 'resourceSpans[0].resource.attributes must be an array'],
      [{ resourceSpans: [{ resource: { attributes: [[]] } }] }, 'resourceSpans[0].resource.attributes[0] must be a JSON object'],
      [{ resourceSpans: [{ scopeSpans: {} }] }, 'resourceSpans[0].scopeSpans must be an array'],
      [{ resourceSpans: [{ scopeSpans: [5] }] }, 'resourceSpans[0].scopeSpans[0] must be a JSON object'],
      [{ resourceSpans: [{ scopeSpans: [{ spans: { a: 1 } }] }] }, 'resourceSpans[0].scopeSpans[0].spans must be an array'],
      [{ resourceSpans: [{ scopeSpans: [{ spans: [[spanJson()]] }] }] }, `${SPAN_PATH} must be a JSON object`],
      [docWith([spanJson({ attributes: {} })]), `${SPAN_PATH}.attributes must be an array`],
      [docWith([spanJson({ attributes: [{ key: 5, value: {} }] })]), `${SPAN_PATH}.attributes[0].key must be a string`],
      [docWith([spanJson({ attributes: [{ value: {} }] })]), `${SPAN_PATH}.attributes[0].key must be a string`],
      [docWith([spanJson({ events: {} })]), `${SPAN_PATH}.events must be an array`],
      [docWith([spanJson({ events: ['e'] })]), `${SPAN_PATH}.events[0] must be a JSON object`],
      [docWith([spanJson({ events: [{ name: 5 }] })]), `${SPAN_PATH}.events[0].name must be a string`],
      [docWith([spanJson({ events: [{ attributes: 'x' }] })]), `${SPAN_PATH}.events[0].attributes must be an array`],
      [docWith([spanJson({ status: 'ERROR' })]), `${SPAN_PATH}.status must be a JSON object`],
      [docWith([spanJson({ status: { message: 404 } })]), `${SPAN_PATH}.status.message must be a string`],
    ];
    for (const [doc, message] of cases) {
      assertDecodeError(() => decodeJsonExport(JSON.stringify(doc)), message);
    }
  });

  test('a non-string name is rejected, naming its path', () => {
    for (const name of [5, true, {}, ['n']]) {
      assertDecodeError(() => decodeOne(spanJson({ name })), `${SPAN_PATH}.name must be a string`);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Fuzz: only OtlpDecodeError may escape, and whatever decodes must map to rows.

function richDocument(snake: boolean): Obj {
  const attributes = [
    { key: 's', value: { stringValue: 'text' } },
    { key: 'b', value: { boolValue: true } },
    { key: 'i', value: { intValue: '9007199254740993' } },
    { key: 'd', value: { doubleValue: 2.5 } },
    { key: 'y', value: { bytesValue: 'aGVsbG8=' } },
    {
      key: 'a',
      value: { arrayValue: { values: [{ intValue: 1 }, { kvlistValue: { values: [{ key: 'n', value: { stringValue: 'x' } }] } }] } },
    },
  ];
  const doc = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
        scopeSpans: [
          {
            scope: { name: 's' },
            spans: [
              spanJson({
                attributes,
                events: [{ timeUnixNano: '1763769600500000001', name: 'e', attributes }],
                status: { code: 'STATUS_CODE_ERROR', message: 'm' },
                kind: 'SPAN_KIND_CLIENT',
              }),
              spanJson({ parentSpanId: '', name: 'root', traceId: Buffer.from(TRACE_ID, 'hex').toString('base64') }),
            ],
          },
        ],
      },
    ],
  };
  return snake ? (toSnake(doc) as Obj) : doc;
}

function toSnake(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toSnake);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), toSnake(v)]));
  }
  return value;
}

const REPLACEMENTS: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e30,
  2 ** 64,
  Number.MAX_SAFE_INTEGER,
  '',
  ' ',
  'x',
  '0x10',
  'NaN',
  '-5',
  '18446744073709551616',
  'ZZZZ',
  TRACE_ID,
  SPAN_ID,
  [],
  [1, 'a'],
  {},
  { stringValue: 1 },
  { intValue: 'x' },
  [{}],
  [[]],
  [null],
];

/** Every [container, key] pair in a JSON tree. */
function slots(root: unknown): [Obj | unknown[], string | number][] {
  const found: [Obj | unknown[], string | number][] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) {
      for (const [i, child] of node.entries()) {
        found.push([node, i]);
        walk(child);
      }
    } else if (node !== null && typeof node === 'object') {
      for (const [k, child] of Object.entries(node)) {
        found.push([node as Obj, k]);
        walk(child);
      }
    }
  };
  walk(root);
  return found;
}

function mutate(doc: Obj, random: () => number): string {
  const copy = structuredClone(doc);
  const count = 1 + Math.floor(random() * 3);
  for (let m = 0; m < count; m++) {
    const all = slots(copy);
    if (all.length === 0) break;
    const [container, key] = all[Math.floor(random() * all.length)]!;
    const pick = random();
    if (pick < 0.3) {
      if (Array.isArray(container)) container.splice(key as number, 1);
      else delete container[key as string];
    } else if (pick < 0.85) {
      const replacement = structuredClone(REPLACEMENTS[Math.floor(random() * REPLACEMENTS.length)]);
      (container as Record<string | number, unknown>)[key] = replacement;
    } else {
      // Swap with another node of the tree.
      const [other, otherKey] = all[Math.floor(random() * all.length)]!;
      (container as Record<string | number, unknown>)[key] = structuredClone((other as Record<string | number, unknown>)[otherKey]);
    }
  }
  let text = JSON.stringify(copy);
  const textPick = random();
  if (textPick < 0.15) text = text.slice(0, Math.floor(random() * text.length));
  else if (textPick < 0.25) {
    const at = Math.floor(random() * text.length);
    text = text.slice(0, at) + '{}[],:"0e-'.charAt(Math.floor(random() * 10)) + text.slice(at);
  }
  return text;
}

function decodeOrDecodeError(text: string, label: string): 'ok' | 'error' {
  try {
    const decoded = decodeJsonExport(text);
    for (const resource of decoded) {
      for (const span of resource.spans) {
        assert.match(span.traceId, /^[0-9a-f]{32}$/);
        assert.match(span.spanId, /^[0-9a-f]{16}$/);
        assert.ok(span.parentSpanId === null || /^[0-9a-f]{16}$/.test(span.parentSpanId));
        assert.equal(typeof span.name, 'string');
        assert.ok(Number.isInteger(span.kind) && Number.isInteger(span.statusCode));
        for (const time of [span.startTimeUnixNano, span.endTimeUnixNano, ...span.events.map((e) => e.timeUnixNano)]) {
          assert.ok(time >= 0n && time < 2n ** 64n, `${label}: time ${time} out of range`);
        }
      }
    }
    // Whatever decodes must also map to storable rows without throwing.
    toSpanRows(decoded);
    return 'ok';
  } catch (error) {
    if (error instanceof OtlpDecodeError) return 'error';
    // A time past what a 64-bit signed column holds decodes (OTLP times are unsigned) but is refused as rows (400).
    if (error instanceof InvalidInputError && error.message.includes('must be before 2262-04-12')) return 'error';
    assert.fail(`${label}: expected only OtlpDecodeError, got ${(error as Error)?.name}: ${(error as Error)?.message}\n${text}`);
  }
}

describe('decodeJsonExport: fuzz', () => {
  for (const snake of [false, true]) {
    test(`mutated ${snake ? 'snake_case' : 'camelCase'} documents throw only OtlpDecodeError`, () => {
      const doc = richDocument(snake);
      assert.equal(decodeOrDecodeError(JSON.stringify(doc), 'unmutated'), 'ok');
      assert.equal(decodeJsonExport(JSON.stringify(doc))[0]!.spans.length, 2);
      const random = prng(snake ? 2 : 1).next;
      const outcomes = { ok: 0, error: 0 };
      for (let i = 0; i < 3000; i++) outcomes[decodeOrDecodeError(mutate(doc, random), `mutation #${i}`)]++;
      assert.ok(outcomes.error > 300, `expected many rejections, got ${outcomes.error}`);
      assert.ok(outcomes.ok > 300, `expected many mutations to still decode, got ${outcomes.ok}`);
    });
  }

  test('every truncation of a valid document is an OtlpDecodeError', () => {
    const text = JSON.stringify(richDocument(false));
    for (let length = 0; length < text.length; length++) {
      assertDecodeError(() => decodeJsonExport(text.slice(0, length)), /^invalid JSON body: /);
    }
  });
});
