import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  inLongAttributes,
  LONG_VALUE_CHARS,
  longAttributeText,
  mergeAttributes,
  packLongJson,
  storeAttributes,
  unpackLongAttributes,
} from '../../src/span-model/long-attributes.js';

const roundTrip = (attributes: Record<string, unknown>) => {
  const stored = storeAttributes(attributes);
  return mergeAttributes(JSON.parse(stored.json) as Record<string, unknown>, stored.long);
};

describe('stored attributes (docs/ingest.md, "How attributes are stored")', () => {
  test('a span without long values is stored as one JSON object, as before', () => {
    const attributes = { 'llm.model_name': 'gpt-4o', 'llm.token_count.prompt': 12, ok: true, tags: ['a', 'b'], nothing: null };
    assert.deepEqual(storeAttributes(attributes), { json: JSON.stringify(attributes), long: null });
  });

  test('strings longer than the limit move; strings of the limit stay', () => {
    const atLimit = 'a'.repeat(LONG_VALUE_CHARS);
    const over = 'b'.repeat(LONG_VALUE_CHARS + 1);
    const stored = storeAttributes({ first: atLimit, second: over, third: 3 });
    assert.deepEqual(JSON.parse(stored.json), { first: atLimit, third: 3 });
    assert.ok(stored.long);
    assert.deepEqual(unpackLongAttributes(stored.long), { second: over });
  });

  test('values merge back exactly: unicode, escapes, nested lists, a __proto__ key', () => {
    const attributes: Record<string, unknown> = {
      'input.value': `日本語 😀 "quoted" \\ back\nslash ${'ü'.repeat(100)}`,
      'embedding.embeddings.0.embedding.vector': Array.from({ length: 40 }, (_, index) => index / 7),
      nested: { 'a.b': { c: ['x'.repeat(80)] } },
      '': 'empty key',
      number: 2 ** 53 - 1,
    };
    Object.defineProperty(attributes, '__proto__', { value: 'p'.repeat(90), enumerable: true, writable: true, configurable: true });
    const merged = roundTrip(attributes);
    assert.deepEqual(merged, attributes);
    assert.equal(Object.getPrototypeOf(merged), Object.prototype, 'a __proto__ key stays an own property');
    assert.equal(Object.getOwnPropertyDescriptor(merged, '__proto__')?.value, 'p'.repeat(90));
  });

  test('the keys the server reads in SQL stay in the JSON column whatever their length', () => {
    const long = 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-20241022-v2:0';
    const stored = storeAttributes({ 'llm.model_name': long, 'llm.provider': long, 'session.id': long, 'user.id': long, other: long });
    assert.deepEqual(Object.keys(JSON.parse(stored.json)), ['llm.model_name', 'llm.provider', 'session.id', 'user.id']);
    assert.deepEqual(unpackLongAttributes(stored.long!), { other: long });
  });

  test('a filter candidate says by itself whether it can be a long value', () => {
    assert.equal(inLongAttributes('input.value', 'x'.repeat(LONG_VALUE_CHARS)), false);
    assert.equal(inLongAttributes('input.value', 'x'.repeat(LONG_VALUE_CHARS + 1)), true);
    assert.equal(inLongAttributes('llm.model_name', 'x'.repeat(LONG_VALUE_CHARS + 1)), false);
    assert.equal(inLongAttributes('input.value', 12), false);
    assert.equal(inLongAttributes('input.value', true), false);
  });

  test('long values read as the SQL reads the JSON column: strings as such, lists as JSON text', () => {
    const long = { text: 'x', list: [1, 'a'] };
    assert.equal(longAttributeText(long, 'text'), 'x');
    assert.equal(longAttributeText(long, 'list'), '[1,"a"]');
    assert.equal(longAttributeText(long, 'absent'), null);
    assert.equal(longAttributeText(long, 'toString'), null);
  });

  test('repeated text costs little: input.value repeating the messages', () => {
    const question = 'How do I return a damaged item that was delivered last week, and who pays for the shipping? ';
    const answer = 'You can return it within 30 days; we send a prepaid label, so the shipping is free for you. ';
    const attributes = {
      'llm.input_messages.0.message.content': question.repeat(3),
      'llm.output_messages.0.message.content': answer.repeat(3),
      'input.value': question.repeat(3),
      'output.value': answer.repeat(3),
    };
    const stored = storeAttributes(attributes);
    assert.ok(stored.long);
    assert.ok(stored.long.length < JSON.stringify(attributes).length / 4, `${stored.long.length} bytes`);
  });

  test('the stored format does not change: a value written by the first version still reads', () => {
    // Format byte 1: raw deflate with the preset dictionary of span-model/long-attributes.ts, as written on 2026-11-26.
    const written = Buffer.from(
      'AbWRQQoCMQxFr/LxAIPgAVx4AJfiMk5SEihNSVtkFt7dlc5GERRP8P977z+YZx+gEBBUck0j4wk0vZa1Jviq1kmpwxq6CkLSKIzq2eYFyQMeLNHQ1GoVRnccqBDT/qPdH3Ic34xipoLL46YwrtbVCnZbMC1t2tzu',
      'base64',
    );
    const expected = {
      'llm.input_messages.0.message.role': 'system',
      'llm.input_messages.0.message.content': 'You are a helpful assistant.',
      'llm.input_messages.1.message.role': 'user',
      'llm.input_messages.1.message.content': 'What is the refund policy for orders shipped to Canada?',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'Orders shipped to Canada can be refunded within 30 days.',
    };
    assert.deepEqual(unpackLongAttributes(written), expected);
    // Today's compressor may produce other bytes (another level), never another format.
    assert.deepEqual(unpackLongAttributes(packLongJson(JSON.stringify(expected))), expected);
  });

  test('an unknown format is an error, not garbage', () => {
    assert.throws(() => unpackLongAttributes(Buffer.from([9, 1, 2, 3])), /unknown format 9/);
  });
});
