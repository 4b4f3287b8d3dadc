/**
 * Built-in code evaluators (src/evaluators/code-evaluators.ts): each kind's labels, scores and
 * defaults, the items it cannot judge, the sentences that refuse a bad definition, and the limits
 * that keep one item from stalling the server (linear-time regexes, capped texts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidInputError } from '@sightline/common';
import { Value } from '@sinclair/typebox/value';
import {
  type CodeEvaluatorDefinition,
  CodeEvaluatorDefinitionSchema,
  type EvaluationItem,
  type EvaluationResult,
  parseCodeEvaluator,
  runCodeEvaluator,
} from '../../src/evaluators/code-evaluators.js';

const item = (fields: Partial<EvaluationItem> = {}): EvaluationItem => ({
  input: 'question',
  output: '',
  reference: undefined,
  metadata: {},
  latencyMs: null,
  totalTokens: null,
  costUsd: null,
  ...fields,
});

/** Parses the definition (as a request would) and runs it on an item with these fields. */
const run = (definition: unknown, fields: Partial<EvaluationItem> = {}): EvaluationResult =>
  runCodeEvaluator(parseCodeEvaluator(definition), item(fields));

const labelAndScore = (result: EvaluationResult) => [result.label, result.score];

/** Asserts parseCodeEvaluator refuses the definition with exactly this sentence. */
function assertRefused(definition: unknown, message: string | RegExp): void {
  assert.throws(
    () => parseCodeEvaluator(definition),
    (error: unknown) => {
      assert.ok(error instanceof InvalidInputError, `not an InvalidInputError: ${String(error)}`);
      if (typeof message === 'string') assert.equal(error.message, message);
      else assert.match(error.message, message);
      return true;
    },
  );
}

const NO_REFERENCE = { label: null, score: null, explanation: 'the item has no reference output to compare with' };
const KINDS = 'exact_match, contains, regex, json_valid, json_schema, similarity, threshold, not_empty';

describe('definitions', () => {
  it('are one titled, described object per kind, with no $id', () => {
    const members = (CodeEvaluatorDefinitionSchema as { anyOf: Record<string, unknown>[] }).anyOf;
    assert.deepEqual(
      members.map((member) => (member.properties as { type: { const: string } }).type.const),
      KINDS.split(', '),
    );
    for (const member of members) {
      assert.match(String(member.title), /^[A-Za-z]+Evaluator$/);
      assert.ok(typeof member.description === 'string' && member.description.length > 20, String(member.title));
      assert.equal(member.$id, undefined);
      for (const [name, property] of Object.entries(member.properties as Record<string, { description?: string }>)) {
        assert.ok(property.description, `${String(member.title)}.${name} has no description`);
      }
    }
    assert.equal(JSON.stringify(CodeEvaluatorDefinitionSchema).includes('"$id"'), false);
  });

  it('parse to a copy of themselves, which the schema accepts', () => {
    const definitions = [
      { type: 'exact_match', value: 'Paris', case_sensitive: false, trim: false },
      { type: 'contains', values: ['a', 'b'], mode: 'all', case_sensitive: true },
      { type: 'regex', pattern: '^\\d+$', case_insensitive: true },
      { type: 'json_valid' },
      { type: 'json_schema', schema: { type: 'object', required: ['name'] } },
      { type: 'similarity', value: 'x', threshold: 0.5 },
      { type: 'threshold', metric: 'cost_usd', min: 0, max: 0.5 },
      { type: 'not_empty' },
    ];
    for (const definition of definitions) {
      const parsed = parseCodeEvaluator(definition);
      assert.deepEqual(parsed, definition);
      assert.notEqual(parsed, definition, 'a copy, so later changes to the request cannot change it');
      assert.ok(Value.Check(CodeEvaluatorDefinitionSchema, parsed), definition.type);
    }
  });

  it('are refused when not an object, or of no known type', () => {
    for (const definition of ['exact_match', null, [], 42]) {
      assertRefused(definition, `the evaluator must be a JSON object with a type (one of ${KINDS})`);
    }
    assertRefused({}, `type is required: use one of ${KINDS}`);
    assertRefused({ type: 'llm_judge' }, `type "llm_judge" is not a code evaluator: use one of ${KINDS}`);
    assertRefused({ type: 42 }, `type 42 is not a code evaluator: use one of ${KINDS}`);
    assertRefused({ type: 'toString' }, /^type "toString" is not a code evaluator/);
  });

  it('are refused, naming the field, when a field has the wrong shape', () => {
    assertRefused({ type: 'exact_match', case_sensitive: 'yes' }, 'case_sensitive must be true or false');
    assertRefused({ type: 'exact_match', value: 3 }, 'value must be text');
    assertRefused(
      { type: 'exact_match', case_sensitve: false },
      'case_sensitve is not a field of the exact_match evaluator (its fields are type, value, case_sensitive, trim)',
    );
    assertRefused({ type: 'contains' }, 'values is required');
    assertRefused({ type: 'contains', values: 'refund' }, 'values must be a list');
    assertRefused({ type: 'contains', values: [] }, 'values must list at least 1 value');
    assertRefused({ type: 'contains', values: ['a', ''] }, 'values[1] must not be empty');
    assertRefused({ type: 'contains', values: Array.from({ length: 101 }, (_, i) => `v${i}`) }, 'values must list at most 100 values');
    assertRefused({ type: 'contains', values: ['a'], mode: 'some' }, 'mode must be one of "any", "all"');
    assertRefused({ type: 'regex' }, 'pattern is required');
    assertRefused({ type: 'regex', pattern: '' }, 'pattern must not be empty');
    assertRefused({ type: 'regex', pattern: 'a'.repeat(1001) }, 'pattern must be at most 1,000 characters long');
    assertRefused({ type: 'json_schema', schema: [] }, 'schema must be a JSON object');
    assertRefused({ type: 'threshold', metric: 'duration', max: 1 }, 'metric must be one of "latency_ms", "total_tokens", "cost_usd"');
    assertRefused({ type: 'threshold', metric: 'latency_ms', max: '2000' }, 'max must be a number');
    assertRefused({ type: 'threshold', metric: 'latency_ms', min: -1 }, 'min must be at least 0');
  });

  it('are refused when a similarity threshold is outside 0..1', () => {
    assertRefused({ type: 'similarity', threshold: 1.5 }, 'threshold must be at most 1');
    assertRefused({ type: 'similarity', threshold: -0.1 }, 'threshold must be at least 0');
    assert.equal(parseCodeEvaluator({ type: 'similarity', threshold: 1 }).type, 'similarity');
  });

  it('are refused when a threshold has no bound, or no value could pass', () => {
    assertRefused({ type: 'threshold', metric: 'latency_ms' }, 'a threshold evaluator needs min, max or both');
    assertRefused(
      { type: 'threshold', metric: 'total_tokens', min: 5, max: 3 },
      'min (5) must not be greater than max (3): no value could pass',
    );
    assert.deepEqual(parseCodeEvaluator({ type: 'threshold', metric: 'total_tokens', min: 3, max: 3 }), {
      type: 'threshold',
      metric: 'total_tokens',
      min: 3,
      max: 3,
    });
  });

  it('are refused when the regex does not compile, quoting why', () => {
    assertRefused(
      { type: 'regex', pattern: '(abc' },
      'pattern is not a valid regular expression: missing closing ): `(abc` ' +
        '(patterns use RE2 syntax, matched in linear time: no backreferences or lookaround)',
    );
    assertRefused({ type: 'regex', pattern: 'a(?=b)' }, /^pattern is not a valid regular expression: invalid or unsupported Perl syntax/);
    assertRefused({ type: 'regex', pattern: '(a)\\1' }, /^pattern is not a valid regular expression: invalid escape sequence/);
  });

  it('are refused when Ajv refuses the schema, or it is too large or async', () => {
    assertRefused(
      { type: 'json_schema', schema: { type: 'no-such-type' } },
      /^schema is not a JSON schema Ajv can compile: schema is invalid: data\/type/,
    );
    assertRefused(
      { type: 'json_schema', schema: { $ref: 'https://example.com/other.json' } },
      /^schema is not a JSON schema Ajv can compile: can't resolve reference/,
    );
    assertRefused(
      { type: 'json_schema', schema: { type: 'string', pattern: '^(?=a)' } },
      'schema is not a JSON schema Ajv can compile: pattern "^(?=a)" is not an RE2 regular expression ' +
        '(no backreferences or lookaround): invalid or unsupported Perl syntax: `(?=`',
    );
    assertRefused(
      { type: 'json_schema', schema: { $async: true, type: 'object' } },
      'schema must not be $async: evaluators validate synchronously',
    );
    // Bytes, not characters: é takes two in UTF-8. The JSON around the description takes 34.
    const described = (length: number) => ({ type: 'json_schema', schema: { type: 'object', description: 'é'.repeat(length) } });
    assertRefused(described(32 * 1024), 'schema is 65,570 bytes as JSON; the limit is 64 KiB (65,536 bytes)');
    assert.equal(parseCodeEvaluator(described(32 * 1024 - 17)).type, 'json_schema', 'exactly 64 KiB');
  });

  it('keep working after many other schemas were compiled', () => {
    const first = parseCodeEvaluator({ type: 'json_schema', schema: { type: 'object', required: ['first'] } });
    for (let index = 0; index < 300; index++)
      parseCodeEvaluator({ type: 'json_schema', schema: { type: 'object', required: [`p${index}`] } });
    assert.deepEqual(labelAndScore(runCodeEvaluator(first, item({ output: { first: 1 } }))), ['valid', 1]);
    assert.equal(runCodeEvaluator(first, item({ output: { p0: 1 } })).explanation, "the output must have required property 'first'");
  });

  it('may share a schema $id', () => {
    const schema = { $id: 'https://example.com/answer.json', type: 'object', required: ['answer'] };
    parseCodeEvaluator({ type: 'json_schema', schema });
    const other = parseCodeEvaluator({ type: 'json_schema', schema: { ...schema, required: ['other'] } });
    assert.deepEqual(labelAndScore(runCodeEvaluator(other, item({ output: '{"answer": 1}' }))), ['invalid', 0]);
  });
});

describe('exact_match', () => {
  it('compares the output with the reference, trimmed and case-sensitive by default', () => {
    assert.deepEqual(run({ type: 'exact_match' }, { output: ' Paris\n', reference: 'Paris' }), {
      label: 'match',
      score: 1,
      explanation: 'the output equals the reference output',
    });
    assert.deepEqual(run({ type: 'exact_match' }, { output: 'paris', reference: 'Paris' }), {
      label: 'no_match',
      score: 0,
      explanation: 'the output differs from the reference output: from character 1 it has "paris" where "Paris" was expected',
    });
  });

  it('keeps whitespace and ignores case when told', () => {
    assert.deepEqual(labelAndScore(run({ type: 'exact_match', trim: false }, { output: ' Paris', reference: 'Paris' })), ['no_match', 0]);
    assert.deepEqual(labelAndScore(run({ type: 'exact_match', case_sensitive: false }, { output: 'PARIS', reference: 'paris' })), [
      'match',
      1,
    ]);
  });

  it('says where the texts part', () => {
    const differs = (output: string) => run({ type: 'exact_match', value: 'Paris' }, { output }).explanation;
    assert.equal(differs('Parus'), 'the output differs from the expected value: from character 4 it has "us" where "is" was expected');
    assert.equal(differs('Par'), 'the output differs from the expected value: it stops after 3 characters, where "is" was expected next');
    assert.equal(differs('Paris, France'), 'the output differs from the expected value: it goes on after 5 characters with ", France"');
  });

  it('uses its own value before the reference, and JSON text for JSON values', () => {
    assert.deepEqual(labelAndScore(run({ type: 'exact_match', value: 'Lyon' }, { output: 'Lyon', reference: 'Paris' })), ['match', 1]);
    assert.deepEqual(labelAndScore(run({ type: 'exact_match' }, { output: '{"a":[1,2]}', reference: { a: [1, 2] } })), ['match', 1]);
    assert.deepEqual(labelAndScore(run({ type: 'exact_match' }, { output: '', reference: '' })), ['match', 1]);
    assert.deepEqual(labelAndScore(run({ type: 'exact_match', value: '' }, { output: null })), ['match', 1]);
  });

  it('cannot judge an item with no reference', () => {
    assert.deepEqual(run({ type: 'exact_match' }, { output: 'Paris', reference: null }), NO_REFERENCE);
    assert.deepEqual(run({ type: 'exact_match' }, { output: 'Paris', reference: undefined }), NO_REFERENCE);
  });
});

describe('contains', () => {
  it('needs any one value by default, ignoring case', () => {
    assert.deepEqual(run({ type: 'contains', values: ['refund', 'return'] }, { output: 'We offer a full REFUND.' }), {
      label: 'contains',
      score: 1,
      explanation: 'the output contains "refund"',
    });
    assert.deepEqual(run({ type: 'contains', values: ['refund', 'return'] }, { output: 'No.' }), {
      label: 'missing',
      score: 0,
      explanation: 'the output is missing all of "refund" and "return"',
    });
  });

  it('needs every value in all mode, and names the missing ones', () => {
    const all = { type: 'contains', values: ['name', 'email', 'phone'], mode: 'all' };
    assert.deepEqual(run(all, { output: 'name and email' }), {
      label: 'missing',
      score: 0,
      explanation: 'the output is missing "phone"',
    });
    assert.deepEqual(run(all, { output: 'Name, Email, Phone' }), {
      label: 'contains',
      score: 1,
      explanation: 'the output contains "name", "email" and "phone"',
    });
  });

  it('matches case when told, and reads JSON values as JSON text', () => {
    assert.deepEqual(labelAndScore(run({ type: 'contains', values: ['Refund'], case_sensitive: true }, { output: 'refund' })), [
      'missing',
      0,
    ]);
    assert.deepEqual(labelAndScore(run({ type: 'contains', values: ['"status":"ok"'] }, { output: { status: 'ok' } })), ['contains', 1]);
  });

  it('lists at most five missing values', () => {
    const values = Array.from({ length: 8 }, (_, i) => `v${i}`);
    assert.equal(
      run({ type: 'contains', values, mode: 'all' }, { output: '' }).explanation,
      'the output is missing "v0", "v1", "v2", "v3", "v4" and 3 more',
    );
  });
});

describe('regex', () => {
  it('matches anywhere in the output', () => {
    assert.deepEqual(run({ type: 'regex', pattern: '\\d{3}-\\d{4}' }, { output: 'call 555-1234 now' }), {
      label: 'match',
      score: 1,
      explanation: 'the output matches /\\d{3}-\\d{4}/ with "555-1234"',
    });
    assert.deepEqual(run({ type: 'regex', pattern: '^\\d+$' }, { output: '12a' }), {
      label: 'no_match',
      score: 0,
      explanation: 'the output does not match /^\\d+$/',
    });
  });

  it('is case-sensitive unless told otherwise', () => {
    assert.deepEqual(labelAndScore(run({ type: 'regex', pattern: 'error' }, { output: 'ERROR' })), ['no_match', 0]);
    assert.deepEqual(labelAndScore(run({ type: 'regex', pattern: 'error', case_insensitive: true }, { output: 'ERROR' })), ['match', 1]);
  });

  it('runs in linear time on patterns that make backtracking engines explode', () => {
    // JavaScript's RegExp would take longer than the universe's age here; RE2 answers at once.
    const output = `${'a'.repeat(50_000)}b`;
    assert.deepEqual(labelAndScore(run({ type: 'regex', pattern: '(a+)+$' }, { output })), ['no_match', 0]);
    assert.deepEqual(labelAndScore(run({ type: 'regex', pattern: '^(a+)+$' }, { output: 'aaaa' })), ['match', 1]);
  });

  it('searches only the first 1 MiB of the output, and says so', () => {
    const result = run({ type: 'regex', pattern: 'needle' }, { output: `${'x'.repeat(1024 * 1024)}needle` });
    assert.deepEqual(result, {
      label: 'no_match',
      score: 0,
      explanation: 'the output does not match /needle/ (only its first 1,048,576 characters were searched)',
    });
    assert.deepEqual(labelAndScore(run({ type: 'regex', pattern: 'needle' }, { output: `${'x'.repeat(1024 * 1024 - 6)}needle` })), [
      'match',
      1,
    ]);
  });
});

describe('json_valid', () => {
  it('labels JSON text valid and anything else invalid, with the parse error', () => {
    assert.deepEqual(run({ type: 'json_valid' }, { output: '{"a": [1, 2]}' }), {
      label: 'valid',
      score: 1,
      explanation: 'the output is valid JSON (an object)',
    });
    const invalid = run({ type: 'json_valid' }, { output: '{"a": 1,}' });
    assert.deepEqual(labelAndScore(invalid), ['invalid', 0]);
    assert.match(invalid.explanation, /^the output is not valid JSON: .*(property name|JSON at position 8)/);
  });

  it('counts a JSON value as JSON, and a missing output as not JSON', () => {
    assert.deepEqual(labelAndScore(run({ type: 'json_valid' }, { output: [1, 2] })), ['valid', 1]);
    assert.deepEqual(labelAndScore(run({ type: 'json_valid' }, { output: '42' })), ['valid', 1]);
    assert.deepEqual(run({ type: 'json_valid' }, { output: null }), {
      label: 'invalid',
      score: 0,
      explanation: 'the output is empty, which is not JSON',
    });
    assert.deepEqual(labelAndScore(run({ type: 'json_valid' }, { output: '   ' })), ['invalid', 0]);
  });
});

describe('json_schema', () => {
  const person = {
    type: 'json_schema',
    schema: {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
      required: ['name'],
      additionalProperties: false,
    },
  };

  it('labels output that matches the schema valid', () => {
    assert.deepEqual(run(person, { output: '{"name": "Ada", "age": 36}' }), {
      label: 'valid',
      score: 1,
      explanation: 'the output matches the JSON schema',
    });
    assert.deepEqual(labelAndScore(run(person, { output: { name: 'Ada' } })), ['valid', 1]);
  });

  it('explains the first problem by its place and Ajv message', () => {
    const invalid = (output: unknown) => run(person, { output });
    assert.deepEqual(invalid('{"age": 3}'), {
      label: 'invalid',
      score: 0,
      explanation: "the output must have required property 'name'",
    });
    assert.equal(invalid('{"name": "Ada", "age": -1}').explanation, 'the output at /age must be >= 0');
    assert.equal(invalid({ name: 'Ada', nickname: 'A' }).explanation, 'the output must NOT have additional properties ("nickname")');
    assert.equal(invalid('[]').explanation, 'the output must be object');
  });

  it('labels output that is not JSON invalid, with the parse error', () => {
    const result = run(person, { output: 'Ada, 36' });
    assert.deepEqual(labelAndScore(result), ['invalid', 0]);
    assert.match(result.explanation, /^the output is not valid JSON: /);
  });

  it('follows the draft its $schema names', () => {
    const pair = {
      type: 'json_schema',
      schema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'array',
        prefixItems: [{ type: 'string' }, { type: 'number' }],
      },
    };
    assert.deepEqual(labelAndScore(run(pair, { output: '["a", 1]' })), ['valid', 1]);
    assert.equal(run(pair, { output: '[1, "a"]' }).explanation, 'the output at /0 must be string');
  });

  it('keeps each pattern of a schema apart', () => {
    // Ajv shares compiled patterns by their text: two patterns must never be taken for one.
    const codes = {
      type: 'json_schema',
      schema: { type: 'object', properties: { a: { type: 'string', pattern: '^a+$' }, b: { type: 'string', pattern: '^b+$' } } },
    };
    assert.deepEqual(labelAndScore(run(codes, { output: { a: 'aa', b: 'bb' } })), ['valid', 1]);
    assert.equal(run(codes, { output: { a: 'aa', b: 'aa' } }).explanation, 'the output at /b must match pattern "^b+$"');
    const later = { type: 'json_schema', schema: { type: 'string', pattern: '^c+$' } };
    assert.deepEqual(labelAndScore(run(later, { output: '"aa"' })), ['invalid', 0]);
    assert.deepEqual(labelAndScore(run(later, { output: '"cc"' })), ['valid', 1]);
  });

  it("matches the schema's patterns in linear time", () => {
    const schema = { type: 'string', pattern: '^(a+)+$' };
    const result = run({ type: 'json_schema', schema }, { output: `"${'a'.repeat(50_000)}b"` });
    assert.deepEqual(result, { label: 'invalid', score: 0, explanation: 'the output must match pattern "^(a+)+$"' });
  });
});

describe('similarity', () => {
  it('scores 1 − edit distance ÷ the longer length against the reference, similar from 0.8', () => {
    assert.deepEqual(run({ type: 'similarity' }, { output: 'kitten', reference: 'sitting' }), {
      label: 'different',
      score: 1 - 3 / 7,
      explanation: 'similarity to the reference output is 0.571 (edit distance 3 over 7 characters), below the threshold of 0.8',
    });
    const close = run({ type: 'similarity' }, { output: 'the capital is Paris', reference: 'the capital is Pari' });
    assert.deepEqual(labelAndScore(close), ['similar', 0.95]);
    assert.equal(
      close.explanation,
      'similarity to the reference output is 0.950 (edit distance 1 over 20 characters), at least the threshold of 0.8',
    );
  });

  it('uses its own value and threshold when given', () => {
    assert.deepEqual(labelAndScore(run({ type: 'similarity', value: 'sitting', threshold: 0.5 }, { output: 'kitten', reference: 'x' })), [
      'similar',
      1 - 3 / 7,
    ]);
    assert.deepEqual(labelAndScore(run({ type: 'similarity', value: 'abcd', threshold: 0.75 }, { output: 'abce' })), ['similar', 0.75]);
  });

  it('scores two empty texts 1, and cannot judge without a reference', () => {
    assert.deepEqual(labelAndScore(run({ type: 'similarity' }, { output: '', reference: '' })), ['similar', 1]);
    assert.deepEqual(labelAndScore(run({ type: 'similarity' }, { output: 'abc', reference: '' })), ['different', 0]);
    assert.deepEqual(run({ type: 'similarity' }, { output: 'abc', reference: null }), NO_REFERENCE);
  });

  it('agrees with the full edit-distance table', () => {
    // The full (n+1)×(m+1) table, the textbook definition, against the two-row version with common ends dropped.
    const distance = (a: string, b: string) => {
      const table = Array.from({ length: a.length + 1 }, (_, i) =>
        Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
      );
      for (let i = 1; i <= a.length; i++) {
        for (let j = 1; j <= b.length; j++) {
          const row = table[i]!;
          const above = table[i - 1]!;
          row[j] = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
        }
      }
      return table[a.length]![b.length]!;
    };
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const text = () => Array.from({ length: Math.floor(random() * 12) }, () => 'abc'[Math.floor(random() * 3)]).join('');
    for (let round = 0; round < 300; round++) {
      const [output, reference] = [text(), text()];
      const longest = Math.max(output.length, reference.length);
      const expected = longest === 0 ? 1 : 1 - distance(output, reference) / longest;
      assert.equal(run({ type: 'similarity' }, { output, reference }).score, expected, `${output} / ${reference}`);
    }
  });

  it('counts characters, not UTF-16 units', () => {
    assert.deepEqual(labelAndScore(run({ type: 'similarity', value: '😀a' }, { output: '😀b' })), ['different', 0.5]);
  });

  it('compares only the first 10,000 characters of each text, and says so', () => {
    const result = run({ type: 'similarity' }, { output: 'a'.repeat(12_000), reference: `${'a'.repeat(10_000)}b` });
    assert.deepEqual(labelAndScore(result), ['similar', 1]);
    assert.match(result.explanation, /\(only the first 10,000 characters of each were compared\)$/);
    assert.equal(
      run({ type: 'similarity' }, { output: 'a'.repeat(10_000), reference: 'a'.repeat(10_000) }).explanation.includes('only'),
      false,
    );
  });
});

describe('threshold', () => {
  it('passes a metric within its bounds, inclusive, and explains a failure in words', () => {
    const latency = { type: 'threshold', metric: 'latency_ms', max: 2000 };
    assert.deepEqual(run(latency, { latencyMs: 2300 }), {
      label: 'fail',
      score: 0,
      explanation: 'latency 2,300 ms is above the maximum of 2,000 ms',
    });
    assert.deepEqual(run(latency, { latencyMs: 2000 }), {
      label: 'pass',
      score: 1,
      explanation: 'latency 2,000 ms is at or below the maximum of 2,000 ms',
    });
  });

  it('reads tokens and cost, with a minimum, a maximum or both', () => {
    assert.deepEqual(run({ type: 'threshold', metric: 'total_tokens', min: 100 }, { totalTokens: 50 }), {
      label: 'fail',
      score: 0,
      explanation: 'total tokens 50 is below the minimum of 100',
    });
    assert.deepEqual(labelAndScore(run({ type: 'threshold', metric: 'total_tokens', min: 100 }, { totalTokens: 100 })), ['pass', 1]);
    assert.deepEqual(run({ type: 'threshold', metric: 'cost_usd', min: 0.01, max: 0.02 }, { costUsd: 0.0123 }), {
      label: 'pass',
      score: 1,
      explanation: 'cost $0.0123 is between the minimum of $0.01 and the maximum of $0.02',
    });
    assert.deepEqual(labelAndScore(run({ type: 'threshold', metric: 'cost_usd', min: 0.01, max: 0.02 }, { costUsd: 0.021 })), ['fail', 0]);
  });

  it('cannot judge an item without the metric', () => {
    assert.deepEqual(run({ type: 'threshold', metric: 'latency_ms', max: 1 }, { totalTokens: 5 }), {
      label: null,
      score: null,
      explanation: 'the item has no latency',
    });
    assert.equal(run({ type: 'threshold', metric: 'total_tokens', max: 1 }, { latencyMs: 5 }).explanation, 'the item has no token count');
    assert.equal(run({ type: 'threshold', metric: 'cost_usd', max: 1 }, { costUsd: Number.NaN }).explanation, 'the item has no cost');
  });
});

describe('not_empty', () => {
  it('labels missing, blank and empty outputs empty', () => {
    const cases: [unknown, string][] = [
      [null, 'the output is missing'],
      [undefined, 'the output is missing'],
      [' \n\t', 'the output is blank text'],
      [[], 'the output is an empty list'],
      [{}, 'the output is an empty object'],
    ];
    for (const [output, explanation] of cases) {
      assert.deepEqual(run({ type: 'not_empty' }, { output }), { label: 'empty', score: 0, explanation });
    }
  });

  it('labels anything else not_empty, zero and false included', () => {
    assert.deepEqual(run({ type: 'not_empty' }, { output: 'ok' }), {
      label: 'not_empty',
      score: 1,
      explanation: 'the output is not empty (text of 2 characters)',
    });
    for (const output of [0, false, [null], { a: null }]) {
      assert.deepEqual(labelAndScore(run({ type: 'not_empty' }, { output })), ['not_empty', 1], JSON.stringify(output));
    }
  });
});

describe('running', () => {
  it('never throws, even for a definition that skipped parsing', () => {
    const unparsed = (definition: unknown) => runCodeEvaluator(definition as CodeEvaluatorDefinition, item({ output: 'x' }));
    assert.deepEqual(unparsed({ type: 'regex', pattern: '(' }), {
      label: null,
      score: null,
      explanation:
        'the evaluator could not run: pattern is not a valid regular expression: missing closing ): `(` ' +
        '(patterns use RE2 syntax, matched in linear time: no backreferences or lookaround)',
    });
    assert.deepEqual(unparsed({ type: 'llm_judge' }), {
      label: null,
      score: null,
      explanation: '"llm_judge" is not a code evaluator type',
    });
    assert.deepEqual(labelAndScore(unparsed({ type: 'contains' })), [null, null]);
    assert.deepEqual(labelAndScore(unparsed({ type: 'json_schema', schema: { type: 'nope' } })), [null, null]);
  });

  it('reads outputs JSON cannot represent', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.deepEqual(labelAndScore(run({ type: 'contains', values: ['object'] }, { output: cyclic })), ['contains', 1]);
    assert.deepEqual(labelAndScore(run({ type: 'exact_match', value: '12' }, { output: 12n })), ['match', 1]);
  });
});
