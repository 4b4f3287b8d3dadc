import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { OtlpDecodeError, int64Value, setAttribute, storableString, type Attributes } from '../../src/span-model/decoded-spans.js';
import { nanosToIso } from '../../src/span-model/time.js';

describe('nanosToIso', () => {
  test('the epoch has nine zero fractional digits', () => {
    assert.equal(nanosToIso(0n), '1970-01-01T00:00:00.000000000Z');
  });

  test('keeps every nanosecond of a time beyond 2^53', () => {
    assert.ok(1763769600123456789n > 2n ** 53n);
    assert.equal(nanosToIso(1763769600123456789n), '2025-11-22T00:00:00.123456789Z');
  });

  test('pads small fractions to exactly nine digits', () => {
    assert.equal(nanosToIso(1n), '1970-01-01T00:00:00.000000001Z');
    assert.equal(nanosToIso(1_000n), '1970-01-01T00:00:00.000001000Z');
    assert.equal(nanosToIso(1_000_000n), '1970-01-01T00:00:00.001000000Z');
    assert.equal(nanosToIso(999_999_999n), '1970-01-01T00:00:00.999999999Z');
    assert.equal(nanosToIso(1_000_000_000n), '1970-01-01T00:00:01.000000000Z');
  });

  test('whole seconds end in .000000000Z', () => {
    assert.equal(nanosToIso(1_700_000_000n * 1_000_000_000n), '2023-11-14T22:13:20.000000000Z');
  });

  test('the largest fixed64 value is still a valid date', () => {
    assert.equal(nanosToIso(2n ** 64n - 1n), '2554-07-21T23:34:33.709551615Z');
  });

  test('always has the same shape', () => {
    const shape = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/;
    let nanos = 7n;
    for (let i = 0; i < 200; i++) {
      nanos = (nanos * 6364136223846793005n + 1442695040888963407n) % 2n ** 63n;
      const iso = nanosToIso(nanos);
      assert.match(iso, shape);
      // The millisecond part agrees with Date, the rest of the fraction with the input.
      assert.equal(iso.slice(0, 23), new Date(Number(nanos / 1_000_000n)).toISOString().slice(0, 23));
      assert.equal(iso.slice(20, 29), (nanos % 1_000_000_000n).toString().padStart(9, '0'));
    }
  });
});

describe('int64Value', () => {
  test('small values are numbers', () => {
    assert.equal(int64Value(0n), 0);
    assert.equal(int64Value(42n), 42);
    assert.equal(int64Value(-42n), -42);
  });

  test('the safe-integer bounds are numbers', () => {
    assert.equal(int64Value(BigInt(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER);
    assert.equal(int64Value(BigInt(Number.MIN_SAFE_INTEGER)), Number.MIN_SAFE_INTEGER);
  });

  test('values beyond 2^53 become exact decimal strings', () => {
    assert.equal(int64Value(2n ** 53n), '9007199254740992');
    assert.equal(int64Value(2n ** 53n + 1n), '9007199254740993');
    assert.equal(int64Value(-(2n ** 53n)), '-9007199254740992');
    assert.equal(int64Value(2n ** 63n - 1n), '9223372036854775807');
    assert.equal(int64Value(-(2n ** 63n)), '-9223372036854775808');
  });
});

describe('storableString', () => {
  test('leaves ordinary text untouched', () => {
    for (const text of ['', 'hello', 'ünïcödé', '日本語', 'emoji 😀 pair', 'tab\tnewline\n', '\uFFFD already']) {
      assert.equal(storableString(text), text);
    }
  });

  test('replaces NUL with U+FFFD', () => {
    assert.equal(storableString('a\u0000b'), 'a\uFFFDb');
    assert.equal(storableString('\u0000\u0000'), '\uFFFD\uFFFD');
  });

  test('replaces lone surrogates with U+FFFD', () => {
    assert.equal(storableString('\uD800'), '\uFFFD');
    assert.equal(storableString('x\uDC00y'), 'x\uFFFDy');
    assert.equal(storableString('\uD83D'), '\uFFFD'); // high half of an emoji alone
    assert.equal(storableString('\uD800\u0000\uD83D\uDE00'), '\uFFFD\uFFFD\uD83D\uDE00'); // both at once, a pair kept
    assert.equal(storableString('\uDC00\uD800'), '\uFFFD\uFFFD'); // reversed pair is not a pair
  });

  test('keeps valid surrogate pairs next to replaced characters', () => {
    assert.equal(storableString('😀\u0000\uD800😀'), '😀\uFFFD\uFFFD😀');
  });

  test('the result is always well formed and NUL free', () => {
    const units = [0x0000, 0x0041, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfffd, 0x00e9];
    let seed = 1;
    for (let i = 0; i < 500; i++) {
      let text = '';
      for (let j = 0; j < 6; j++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        text += String.fromCharCode(units[seed % units.length]!);
      }
      const result = storableString(text);
      assert.equal(result.isWellFormed(), true);
      assert.equal(result.includes('\u0000'), false);
      assert.equal(result.length, text.length);
    }
  });
});

describe('setAttribute', () => {
  test('sets ordinary keys', () => {
    const attributes: Attributes = {};
    setAttribute(attributes, 'a.b', 1);
    assert.deepEqual(attributes, { 'a.b': 1 });
  });

  test('keeps __proto__ as an own attribute and leaves the prototype alone', () => {
    const attributes: Attributes = {};
    setAttribute(attributes, '__proto__', { 'openinference.span.kind': 'LLM' });
    assert.equal(Object.getPrototypeOf(attributes), Object.prototype);
    assert.equal(attributes['openinference.span.kind'], undefined);
    assert.deepEqual(Object.keys(attributes), ['__proto__']);
    assert.equal(JSON.stringify(attributes), '{"__proto__":{"openinference.span.kind":"LLM"}}');
  });
});

describe('OtlpDecodeError', () => {
  test('is an Error named OtlpDecodeError', () => {
    const error = new OtlpDecodeError('bad');
    assert.ok(error instanceof Error);
    assert.equal(error.name, 'OtlpDecodeError');
    assert.equal(error.message, 'bad');
  });
});
