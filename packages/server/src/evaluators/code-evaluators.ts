/**
 * Built-in code evaluators: score a span, trace, session or experiment run without user code, so
 * the server can evaluate items by itself (issue "Evaluation that runs by itself"). A definition
 * is a small JSON object discriminated by `type`; parseCodeEvaluator checks one from a request,
 * runCodeEvaluator applies it to an item and answers a label, a score (1 or 0, or a similarity
 * between them) and an explanation a person can read.
 *
 * Definitions come from users and run on every item of a project, in the server's event loop:
 * regular expressions (ours and those in JSON schemas) run on RE2 (re2js), in time linear in the
 * text, and the texts a regex or the edit distance reads are capped, so no item can stall the
 * server. A run never throws: what an evaluator cannot judge is a result with label and score
 * null and an explanation saying why, so one odd item cannot stop an evaluation.
 */
import { Buffer } from 'node:buffer';
import { InvalidInputError } from '@sightline/common';
import { type Static, type TObject, Type } from '@sinclair/typebox';
import { Value, type ValueError, ValueErrorType } from '@sinclair/typebox/value';
import { Ajv, type CodeOptions, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { RE2JS } from 're2js';

/** What an evaluator looks at: a span/trace/session or an experiment run against its dataset example. */
export interface EvaluationItem {
  /** The item's input (text or JSON value). */
  input: unknown;
  /** The item's output (text or JSON value). */
  output: unknown;
  /** The expected output (the dataset example's output); undefined or null when there is none. */
  reference: unknown;
  metadata: Record<string, unknown>;
  latencyMs: number | null;
  totalTokens: number | null;
  costUsd: number | null;
  /** A span's (or a trace's root span's) attributes, flat dotted keys as stored; absent for other items. */
  attributes?: Record<string, unknown> | undefined;
  /** A session's turns in order, each its trace's input and output; absent for other items. */
  conversation?: { input: string | null; output: string | null }[] | undefined;
}

export interface EvaluationResult {
  label: string | null;
  score: number | null;
  explanation: string;
}

/** Characters of an output a regex searches (1 MiB): RE2 is linear, but a 100 MB output would still take seconds. */
const REGEX_TEXT_LIMIT = 1024 * 1024;
/** Characters (code points) of each text the edit distance compares: its cost is the product of the two lengths. */
const SIMILARITY_TEXT_LIMIT = 10_000;
/** Bytes of a json_schema evaluator's schema, as JSON. */
const SCHEMA_BYTES_LIMIT = 64 * 1024;
const PATTERN_LENGTH_LIMIT = 1000;
const CONTAINS_VALUES_LIMIT = 100;

// ---------------------------------------------------------------------------------------------
// Definitions
// ---------------------------------------------------------------------------------------------

const kindOf = <K extends string>(kind: K) => Type.Literal(kind, { description: `The evaluator kind: \`${kind}\`.` });
const expectedValue = Type.Optional(
  Type.String({ description: "The expected text; by default the item's reference output (the dataset example's output)." }),
);

const ExactMatchEvaluator = Type.Object(
  {
    type: kindOf('exact_match'),
    value: expectedValue,
    case_sensitive: Type.Optional(Type.Boolean({ default: true, description: 'Whether letter case must match (default true).' })),
    trim: Type.Optional(
      Type.Boolean({ default: true, description: 'Whether leading and trailing whitespace is ignored on both sides (default true).' }),
    ),
  },
  {
    title: 'ExactMatchEvaluator',
    description: 'Label `match` (score 1) when the output equals the expected text, else `no_match` (0).',
    additionalProperties: false,
  },
);

const ContainsEvaluator = Type.Object(
  {
    type: kindOf('contains'),
    values: Type.Array(Type.String({ minLength: 1, description: 'A text the output should contain.' }), {
      minItems: 1,
      maxItems: CONTAINS_VALUES_LIMIT,
      description: `The texts to look for (1 to ${CONTAINS_VALUES_LIMIT}, none empty).`,
    }),
    mode: Type.Optional(
      Type.Union([Type.Literal('any'), Type.Literal('all')], {
        default: 'any',
        description: '`any`: one of the values is enough (default); `all`: every value must be there.',
      }),
    ),
    case_sensitive: Type.Optional(Type.Boolean({ default: false, description: 'Whether letter case must match (default false).' })),
  },
  {
    title: 'ContainsEvaluator',
    description: 'Label `contains` (score 1) when the output contains the values (any or all of them), else `missing` (0).',
    additionalProperties: false,
  },
);

const RegexEvaluator = Type.Object(
  {
    type: kindOf('regex'),
    pattern: Type.String({
      minLength: 1,
      maxLength: PATTERN_LENGTH_LIMIT,
      description:
        `A regular expression in RE2 syntax (no backreferences or lookaround), at most ${PATTERN_LENGTH_LIMIT} characters, ` +
        `searched anywhere in the output's first ${REGEX_TEXT_LIMIT.toLocaleString('en-US')} characters.`,
    }),
    case_insensitive: Type.Optional(Type.Boolean({ default: false, description: 'Whether letter case is ignored (default false).' })),
  },
  {
    title: 'RegexEvaluator',
    description: 'Label `match` (score 1) when the pattern matches somewhere in the output, else `no_match` (0).',
    additionalProperties: false,
  },
);

const JsonValidEvaluator = Type.Object(
  { type: kindOf('json_valid') },
  {
    title: 'JsonValidEvaluator',
    description: 'Label `valid` (score 1) when the output is JSON, else `invalid` (0) with the parse error.',
    additionalProperties: false,
  },
);

const JsonSchemaEvaluator = Type.Object(
  {
    type: kindOf('json_schema'),
    schema: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'A JSON Schema (draft-07, or 2019-09 or 2020-12 when its `$schema` says so), at most 64 KiB as JSON; ' +
          '`pattern` uses RE2 syntax, `format` is not checked and `$ref` may point only inside the schema.',
      },
    ),
  },
  {
    title: 'JsonSchemaEvaluator',
    description:
      'Label `valid` (score 1) when the output (parsed as JSON when it is text) matches the schema, else `invalid` (0) ' +
      'with the first problem found.',
    additionalProperties: false,
  },
);

const SimilarityEvaluator = Type.Object(
  {
    type: kindOf('similarity'),
    value: expectedValue,
    threshold: Type.Optional(
      Type.Number({ minimum: 0, maximum: 1, default: 0.8, description: 'The least score labelled `similar`, 0 to 1 (default 0.8).' }),
    ),
  },
  {
    title: 'SimilarityEvaluator',
    description:
      'Score 1 − edit distance ÷ the longer length (Levenshtein, over the first 10,000 characters of each text); ' +
      'label `similar` when the score reaches the threshold, else `different`.',
    additionalProperties: false,
  },
);

const ThresholdEvaluator = Type.Object(
  {
    type: kindOf('threshold'),
    metric: Type.Union([Type.Literal('latency_ms'), Type.Literal('total_tokens'), Type.Literal('cost_usd')], {
      description: 'What is compared: latency in milliseconds, total tokens, or cost in US dollars.',
    }),
    min: Type.Optional(Type.Number({ minimum: 0, description: 'The least passing value (inclusive).' })),
    max: Type.Optional(Type.Number({ minimum: 0, description: 'The greatest passing value (inclusive).' })),
  },
  {
    title: 'ThresholdEvaluator',
    description: 'Label `pass` (score 1) when the metric is within min and max (at least one of them given), else `fail` (0).',
    additionalProperties: false,
  },
);

const NotEmptyEvaluator = Type.Object(
  { type: kindOf('not_empty') },
  {
    title: 'NotEmptyEvaluator',
    description: 'Label `not_empty` (score 1) unless the output is missing, blank text, an empty list or an empty object (`empty`, 0).',
    additionalProperties: false,
  },
);

export const CodeEvaluatorDefinitionSchema = Type.Union(
  [
    ExactMatchEvaluator,
    ContainsEvaluator,
    RegexEvaluator,
    JsonValidEvaluator,
    JsonSchemaEvaluator,
    SimilarityEvaluator,
    ThresholdEvaluator,
    NotEmptyEvaluator,
  ],
  { title: 'CodeEvaluatorDefinition', description: 'A built-in evaluator that scores an item without user code, by its `type`.' },
);
export type CodeEvaluatorDefinition = Static<typeof CodeEvaluatorDefinitionSchema>;
type Kind = CodeEvaluatorDefinition['type'];
type DefinitionOf<K extends Kind> = Extract<CodeEvaluatorDefinition, { type: K }>;

const KINDS: Record<Kind, TObject> = {
  exact_match: ExactMatchEvaluator,
  contains: ContainsEvaluator,
  regex: RegexEvaluator,
  json_valid: JsonValidEvaluator,
  json_schema: JsonSchemaEvaluator,
  similarity: SimilarityEvaluator,
  threshold: ThresholdEvaluator,
  not_empty: NotEmptyEvaluator,
};
const KIND_NAMES = Object.keys(KINDS) as Kind[];
const isKind = (value: unknown): value is Kind => typeof value === 'string' && Object.hasOwn(KINDS, value);

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/**
 * Validates a definition from a request: shape (TypeBox Value) and meaning (regex compiles, JSON
 * schema compiles, bounds); throws InvalidInputError with one sentence a person understands,
 * naming the field.
 */
export function parseCodeEvaluator(definition: unknown): CodeEvaluatorDefinition {
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) {
    throw new InvalidInputError(`the evaluator must be a JSON object with a type (one of ${KIND_NAMES.join(', ')})`);
  }
  const kind: unknown = (definition as Record<string, unknown>).type;
  if (!isKind(kind)) {
    const given = kind === undefined ? 'type is required' : `type ${JSON.stringify(kind)} is not a code evaluator`;
    throw new InvalidInputError(`${given}: use one of ${KIND_NAMES.join(', ')}`);
  }
  const schema = KINDS[kind];
  const problem = Value.Errors(schema, definition).First();
  if (problem) throw new InvalidInputError(describeShapeProblem(kind, schema, problem));
  const parsed = Value.Clone(definition) as CodeEvaluatorDefinition;
  checkMeaning(parsed);
  return parsed;
}

/** The first schema violation as a sentence naming the field; TypeBox's own messages name no field. */
function describeShapeProblem(kind: Kind, schema: TObject, problem: ValueError): string {
  const field = fieldName(problem.path);
  if (problem.type === ValueErrorType.ObjectAdditionalProperties) {
    return `${field} is not a field of the ${kind} evaluator (its fields are ${Object.keys(schema.properties).join(', ')})`;
  }
  return `${field} ${shapeRule(problem)}`;
}

/** '/values/2' → 'values[2]': how a person would write the field. */
function fieldName(path: string): string {
  return path
    .split('/')
    .slice(1)
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : `${index > 0 ? '.' : ''}${part.replace(/~1/g, '/').replace(/~0/g, '~')}`))
    .join('');
}

function shapeRule(problem: ValueError): string {
  const rule = problem.schema as Record<string, unknown>;
  switch (problem.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required';
    case ValueErrorType.String:
      return 'must be text';
    case ValueErrorType.StringMinLength:
      return rule.minLength === 1 ? 'must not be empty' : `must be at least ${rule.minLength} characters long`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${formatCount(rule.maxLength)} characters long`;
    case ValueErrorType.Boolean:
      return 'must be true or false';
    case ValueErrorType.Number:
      return 'must be a number';
    case ValueErrorType.NumberMinimum:
      return `must be at least ${rule.minimum}`;
    case ValueErrorType.NumberMaximum:
      return `must be at most ${rule.maximum}`;
    case ValueErrorType.Array:
      return 'must be a list';
    case ValueErrorType.ArrayMinItems:
      return `must list at least ${rule.minItems} value${rule.minItems === 1 ? '' : 's'}`;
    case ValueErrorType.ArrayMaxItems:
      return `must list at most ${rule.maxItems} values`;
    case ValueErrorType.Object:
      return 'must be a JSON object';
    case ValueErrorType.Union:
      return `must be one of ${((rule.anyOf as { const?: unknown }[]) ?? []).map((option) => JSON.stringify(option.const)).join(', ')}`;
    default:
      return `is invalid: ${problem.message.toLowerCase()}`;
  }
}

/** What the schema cannot say: the regex and the JSON schema compile, a threshold has a bound. */
function checkMeaning(definition: CodeEvaluatorDefinition): void {
  switch (definition.type) {
    case 'regex':
      compileRegex(definition.pattern, definition.case_insensitive === true);
      return;
    case 'json_schema':
      schemaValidator(definition.schema);
      return;
    case 'threshold':
      checkBounds(definition);
      return;
    default:
      return;
  }
}

function checkBounds({ min, max }: DefinitionOf<'threshold'>): void {
  if (min === undefined && max === undefined) {
    throw new InvalidInputError('a threshold evaluator needs min, max or both');
  }
  if (min !== undefined && max !== undefined && min > max) {
    throw new InvalidInputError(`min (${min}) must not be greater than max (${max}): no value could pass`);
  }
}

// ---------------------------------------------------------------------------------------------
// Compiled regexes and schemas, cached: the same definition runs on every item of an evaluation
// ---------------------------------------------------------------------------------------------

/** A Map that forgets its oldest entries beyond a size, so definitions seen once cannot grow it without end. */
class BoundedCache<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly size: number) {}

  get(key: string, make: () => V): V {
    const cached = this.entries.get(key);
    if (cached !== undefined) {
      // Re-inserting keeps the most recently used entries last, away from eviction.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    const value = make();
    this.entries.set(key, value);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.size) break;
      this.entries.delete(oldest);
    }
    return value;
  }
}

const regexes = new BoundedCache<RE2JS>(256);

/** The pattern compiled by RE2; throws InvalidInputError quoting RE2's reason when it cannot be. */
function compileRegex(pattern: string, caseInsensitive: boolean): RE2JS {
  return regexes.get(`${caseInsensitive ? 'i' : '-'}${pattern}`, () => {
    try {
      return RE2JS.compile(pattern, caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
    } catch (error) {
      throw new InvalidInputError(
        `pattern is not a valid regular expression: ${regexProblem(error)} ` +
          '(patterns use RE2 syntax, matched in linear time: no backreferences or lookaround)',
      );
    }
  });
}

/**
 * Ajv's `pattern` and `patternProperties` on RE2 too: Ajv trusts its schemas, and JavaScript's
 * backtracking RegExp takes exponential time on patterns such as `^(a+)+$`.
 */
const re2Engine: NonNullable<CodeOptions['regExp']> = Object.assign(
  (pattern: string, flags: string) => {
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(pattern);
    } catch (error) {
      throw new Error(
        `pattern ${JSON.stringify(pattern)} is not an RE2 regular expression (no backreferences or lookaround): ${regexProblem(error)}`,
      );
    }
    // Ajv shares compiled patterns between schemas by this text, so it must name the pattern.
    return { test: (text: string) => compiled.matcher(text).find(), toString: () => `/${pattern}/${flags}` };
  },
  { code: 're2js' },
);

type Draft = 'draft-07' | '2019-09' | '2020-12';
type AnyAjv = Ajv | Ajv2019 | Ajv2020;

/**
 * Schemas one Ajv compiles before a fresh one takes over: an Ajv holds every schema and validator
 * it ever made (removeSchema or not), so a long-lived one would grow with every definition. The
 * validators of a replaced Ajv still work, and it is freed once the cache below drops them.
 */
const SCHEMAS_PER_AJV = 128;
const ajvs = new Map<Draft, { ajv: AnyAjv; compiled: number }>();

/** An Ajv for the schema's draft, made on first use: an instance costs milliseconds and most servers never need one. */
function ajvFor(schema: Record<string, unknown>): AnyAjv {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  const draft: Draft = declared.includes('2020-12') ? '2020-12' : declared.includes('2019-09') ? '2019-09' : 'draft-07';
  let current = ajvs.get(draft);
  if (!current || current.compiled >= SCHEMAS_PER_AJV) {
    current = { ajv: newAjv(draft), compiled: 0 };
    ajvs.set(draft, current);
  }
  current.compiled++;
  return current.ajv;
}

function newAjv(draft: Draft): AnyAjv {
  // addUsedSchema: false lets two definitions use the same $id; logger: false keeps ignored
  // keywords and formats (not checked: no ajv-formats) out of the server's log.
  const options = { strict: false, allErrors: false, addUsedSchema: false, logger: false as const, code: { regExp: re2Engine } };
  if (draft === '2020-12') return new Ajv2020(options);
  if (draft === '2019-09') return new Ajv2019(options);
  return new Ajv(options);
}

const validators = new BoundedCache<ValidateFunction>(SCHEMAS_PER_AJV);
const schemaTexts = new WeakMap<object, string>();

/** The schema compiled by Ajv; throws InvalidInputError when it is too large or Ajv refuses it. */
function schemaValidator(schema: Record<string, unknown>): ValidateFunction {
  let text = schemaTexts.get(schema);
  if (text === undefined) {
    text = JSON.stringify(schema);
    schemaTexts.set(schema, text);
  }
  const bytes = Buffer.byteLength(text);
  if (bytes > SCHEMA_BYTES_LIMIT) {
    throw new InvalidInputError(
      `schema is ${formatCount(bytes)} bytes as JSON; the limit is 64 KiB (${formatCount(SCHEMA_BYTES_LIMIT)} bytes)`,
    );
  }
  return validators.get(text, () => compileSchema(text));
}

function compileSchema(text: string): ValidateFunction {
  // A copy of our own: Ajv keeps the object it compiled, which the caller may change later.
  const schema = JSON.parse(text) as Record<string, unknown>;
  let validate: ValidateFunction;
  try {
    validate = ajvFor(schema).compile(schema);
  } catch (error) {
    throw new InvalidInputError(`schema is not a JSON schema Ajv can compile: ${errorMessage(error)}`);
  }
  // An async validator answers a promise, which would read as valid for every output.
  if (validate.schemaEnv.$async === true) throw new InvalidInputError('schema must not be $async: evaluators validate synchronously');
  return validate;
}

// ---------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------

/** Runs it; never throws for any item (a value it cannot judge gives label null, score null and an explanation saying why). */
export function runCodeEvaluator(definition: CodeEvaluatorDefinition, item: EvaluationItem): EvaluationResult {
  try {
    return evaluate(definition, item);
  } catch (error) {
    // A definition stored before a rule changed, or one that never went through
    // parseCodeEvaluator, must not stop a whole evaluation run.
    return unjudged(`the evaluator could not run: ${errorMessage(error)}`);
  }
}

function evaluate(definition: CodeEvaluatorDefinition, item: EvaluationItem): EvaluationResult {
  switch (definition.type) {
    case 'exact_match':
      return exactMatch(definition, item);
    case 'contains':
      return contains(definition, item);
    case 'regex':
      return regex(definition, item);
    case 'json_valid':
      return jsonValid(item);
    case 'json_schema':
      return jsonSchema(definition, item);
    case 'similarity':
      return similarity(definition, item);
    case 'threshold':
      return threshold(definition, item);
    case 'not_empty':
      return notEmpty(item);
    default:
      return unjudged(`${JSON.stringify((definition as { type?: unknown }).type)} is not a code evaluator type`);
  }
}

const NO_REFERENCE = 'the item has no reference output to compare with';
const MATCH = ['match', 'no_match'] as const;
const VALID = ['valid', 'invalid'] as const;

const unjudged = (explanation: string): EvaluationResult => ({ label: null, score: null, explanation });
const verdict = (passed: boolean, [yes, no]: readonly [string, string], explanation: string): EvaluationResult => ({
  label: passed ? yes : no,
  score: passed ? 1 : 0,
  explanation,
});

function exactMatch(definition: DefinitionOf<'exact_match'>, item: EvaluationItem): EvaluationResult {
  const expected = expectedText(definition.value, item.reference);
  if (expected === null) return unjudged(NO_REFERENCE);
  const trim = definition.trim ?? true;
  const caseSensitive = definition.case_sensitive ?? true;
  const normalize = (text: string) => {
    const trimmed = trim ? text.trim() : text;
    return caseSensitive ? trimmed : trimmed.toLowerCase();
  };
  const actual = normalize(textOf(item.output));
  const wanted = normalize(expected);
  const source = definition.value === undefined ? 'the reference output' : 'the expected value';
  if (actual === wanted) return verdict(true, MATCH, `the output equals ${source}`);
  return verdict(false, MATCH, `the output differs from ${source}: ${firstDifference(actual, wanted)}`);
}

/** Where two texts part, so a reader need not diff long outputs by eye. */
function firstDifference(actual: string, expected: string): string {
  let at = 0;
  while (at < actual.length && at < expected.length && actual[at] === expected[at]) at++;
  if (at === actual.length) return `it stops after ${formatCount(at)} characters, where ${quote(expected.slice(at))} was expected next`;
  if (at === expected.length) return `it goes on after ${formatCount(at)} characters with ${quote(actual.slice(at))}`;
  return `from character ${formatCount(at + 1)} it has ${quote(actual.slice(at))} where ${quote(expected.slice(at))} was expected`;
}

function contains(definition: DefinitionOf<'contains'>, item: EvaluationItem): EvaluationResult {
  const fold = definition.case_sensitive === true ? (text: string) => text : (text: string) => text.toLowerCase();
  const text = fold(textOf(item.output));
  const found = definition.values.filter((value) => text.includes(fold(value)));
  const missing = definition.values.filter((value) => !text.includes(fold(value)));
  const labels = ['contains', 'missing'] as const;
  if ((definition.mode ?? 'any') === 'all') {
    if (missing.length === 0) return verdict(true, labels, `the output contains ${quoteList(found)}`);
    return verdict(false, labels, `the output is missing ${quoteList(missing)}`);
  }
  if (found.length > 0) return verdict(true, labels, `the output contains ${quoteList(found)}`);
  return verdict(false, labels, `the output is missing ${missing.length === 1 ? '' : 'all of '}${quoteList(missing)}`);
}

function regex(definition: DefinitionOf<'regex'>, item: EvaluationItem): EvaluationResult {
  const compiled = compileRegex(definition.pattern, definition.case_insensitive === true);
  const { text, truncated } = capText(textOf(item.output), REGEX_TEXT_LIMIT);
  const note = truncated ? ` (only its first ${formatCount(REGEX_TEXT_LIMIT)} characters were searched)` : '';
  const matcher = compiled.matcher(text);
  const pattern = `/${shorten(definition.pattern)}/`;
  if (matcher.find()) return verdict(true, MATCH, `the output matches ${pattern} with ${quote(matcher.group() ?? '')}${note}`);
  return verdict(false, MATCH, `the output does not match ${pattern}${note}`);
}

function jsonValid(item: EvaluationItem): EvaluationResult {
  const parsed = jsonOf(item.output);
  if ('problem' in parsed) return verdict(false, VALID, parsed.problem);
  return verdict(true, VALID, `the output is valid JSON (${jsonKind(parsed.value)})`);
}

function jsonSchema(definition: DefinitionOf<'json_schema'>, item: EvaluationItem): EvaluationResult {
  const validate = schemaValidator(definition.schema);
  const parsed = jsonOf(item.output);
  if ('problem' in parsed) return verdict(false, VALID, parsed.problem);
  if (validate(parsed.value)) return verdict(true, VALID, 'the output matches the JSON schema');
  return verdict(false, VALID, schemaProblem(validate.errors?.[0]));
}

/** Ajv's first error in plain words: where (the instance path) and what (its message). */
function schemaProblem(error: ErrorObject | undefined): string {
  if (!error) return 'the output does not match the JSON schema';
  const where = error.instancePath === '' ? 'the output' : `the output at ${error.instancePath}`;
  // Ajv's message for these names no property; the reader needs to know which one.
  const property = error.keyword === 'additionalProperties' ? ` (${JSON.stringify(error.params.additionalProperty)})` : '';
  return `${where} ${error.message ?? 'does not match the JSON schema'}${property}`;
}

function similarity(definition: DefinitionOf<'similarity'>, item: EvaluationItem): EvaluationResult {
  const expected = expectedText(definition.value, item.reference);
  if (expected === null) return unjudged(NO_REFERENCE);
  const actual = codePoints(textOf(item.output), SIMILARITY_TEXT_LIMIT);
  const wanted = codePoints(expected, SIMILARITY_TEXT_LIMIT);
  const longest = Math.max(actual.points.length, wanted.points.length);
  const distance = levenshtein(actual.points, wanted.points);
  const score = longest === 0 ? 1 : 1 - distance / longest;
  const limit = definition.threshold ?? 0.8;
  const passed = score >= limit;
  const note =
    actual.truncated || wanted.truncated ? ` (only the first ${formatCount(SIMILARITY_TEXT_LIMIT)} characters of each were compared)` : '';
  const source = definition.value === undefined ? 'the reference output' : 'the expected value';
  return {
    label: passed ? 'similar' : 'different',
    score,
    explanation:
      `similarity to ${source} is ${score.toFixed(3)} (edit distance ${formatCount(distance)} over ${formatCount(longest)} characters), ` +
      `${passed ? 'at least' : 'below'} the threshold of ${limit}${note}`,
  };
}

/** Edit distance (insertions, deletions, substitutions) by the two-row dynamic programme, after dropping the common ends. */
function levenshtein(a: readonly number[], b: readonly number[]): number {
  let start = 0;
  let endA = a.length;
  let endB = b.length;
  while (start < endA && start < endB && a[start] === b[start]) start++;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const width = endB - start;
  if (endA === start) return width;
  if (width === 0) return endA - start;
  // Only the differing middles, as typed arrays: the inner loop below runs up to 10⁸ times.
  const left = Int32Array.from(a.slice(start, endA));
  const right = Int32Array.from(b.slice(start, endB));
  let previous = Int32Array.from({ length: width + 1 }, (_, j) => j);
  let current = new Int32Array(width + 1);
  for (let i = 0; i < left.length; i++) {
    const character = left[i];
    let before = i + 1;
    current[0] = before;
    for (let j = 1; j <= width; j++) {
      let cell = previous[j - 1]! + (character === right[j - 1] ? 0 : 1);
      const deletion = previous[j]! + 1;
      if (deletion < cell) cell = deletion;
      if (before + 1 < cell) cell = before + 1;
      current[j] = cell;
      before = cell;
    }
    [previous, current] = [current, previous];
  }
  return previous[width]!;
}

const METRICS = {
  latency_ms: {
    noun: 'latency',
    missing: 'latency',
    read: (item: EvaluationItem) => item.latencyMs,
    format: (v: number) => `${formatNumber(v)} ms`,
  },
  total_tokens: {
    noun: 'total tokens',
    missing: 'token count',
    read: (item: EvaluationItem) => item.totalTokens,
    format: (v: number) => formatNumber(v),
  },
  cost_usd: {
    noun: 'cost',
    missing: 'cost',
    read: (item: EvaluationItem) => item.costUsd,
    format: (v: number) => `$${formatNumber(v, 8)}`,
  },
} as const;

function threshold(definition: DefinitionOf<'threshold'>, item: EvaluationItem): EvaluationResult {
  const metric = METRICS[definition.metric];
  const value = metric.read(item);
  if (typeof value !== 'number' || !Number.isFinite(value)) return unjudged(`the item has no ${metric.missing}`);
  const { min, max } = definition;
  const said = `${metric.noun} ${metric.format(value)} is`;
  const labels = ['pass', 'fail'] as const;
  if (min !== undefined && value < min) return verdict(false, labels, `${said} below the minimum of ${metric.format(min)}`);
  if (max !== undefined && value > max) return verdict(false, labels, `${said} above the maximum of ${metric.format(max)}`);
  return verdict(true, labels, `${said} ${withinWords(min, max, metric.format)}`);
}

function withinWords(min: number | undefined, max: number | undefined, format: (value: number) => string): string {
  if (min !== undefined && max !== undefined) return `between the minimum of ${format(min)} and the maximum of ${format(max)}`;
  if (min !== undefined) return `at or above the minimum of ${format(min)}`;
  if (max !== undefined) return `at or below the maximum of ${format(max)}`;
  // Only a definition that skipped parseCodeEvaluator has neither bound.
  return 'within no bounds';
}

function notEmpty(item: EvaluationItem): EvaluationResult {
  const why = emptiness(item.output);
  const labels = ['not_empty', 'empty'] as const;
  if (why !== null) return verdict(false, labels, why);
  return verdict(true, labels, `the output is not empty (${jsonKind(item.output)})`);
}

/** Why the value counts as empty, or null when it has content. */
function emptiness(value: unknown): string | null {
  if (value === null || value === undefined) return 'the output is missing';
  if (typeof value === 'string') return value.trim() === '' ? 'the output is blank text' : null;
  if (Array.isArray(value)) return value.length === 0 ? 'the output is an empty list' : null;
  if (typeof value === 'object') return Object.keys(value).length === 0 ? 'the output is an empty object' : null;
  return null;
}

// ---------------------------------------------------------------------------------------------
// Values and words
// ---------------------------------------------------------------------------------------------

/** The text of a value: a string as is, null or undefined as '', anything else as JSON. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // BigInts and cycles have no JSON; their String() still says something.
    return String(value);
  }
}

/** The text to compare with: the definition's own value, else the item's reference, else null when there is none. */
function expectedText(value: string | undefined, reference: unknown): string | null {
  if (value !== undefined) return value;
  if (reference === null || reference === undefined) return null;
  return textOf(reference);
}

/** The output as a JSON value: text is parsed, other values already are one. */
function jsonOf(output: unknown): { value: unknown } | { problem: string } {
  if (output === null || output === undefined) return { problem: 'the output is empty, which is not JSON' };
  if (typeof output !== 'string') return { value: output };
  try {
    return { value: JSON.parse(output) as unknown };
  } catch (error) {
    return { problem: `the output is not valid JSON: ${errorMessage(error)}` };
  }
}

function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `a list of ${formatCount(value.length)}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `text of ${formatCount(value.length)} characters`;
  return `a ${typeof value}`;
}

function capText(text: string, limit: number): { text: string; truncated: boolean } {
  return text.length > limit ? { text: text.slice(0, limit), truncated: true } : { text, truncated: false };
}

/** Up to `limit` code points, so an emoji counts as one character and is never split in two. */
function codePoints(text: string, limit: number): { points: number[]; truncated: boolean } {
  const points: number[] = [];
  for (const character of text) {
    if (points.length === limit) return { points, truncated: true };
    points.push(character.codePointAt(0)!);
  }
  return { points, truncated: false };
}

const QUOTE_LENGTH = 60;
const LISTED_VALUES = 5;

function shorten(text: string): string {
  return text.length > QUOTE_LENGTH ? `${text.slice(0, QUOTE_LENGTH)}…` : text;
}

function quote(text: string): string {
  return JSON.stringify(shorten(text));
}

/** '"a", "b" and "c"', with the rest counted rather than listed. */
function quoteList(values: readonly string[]): string {
  const quoted = values.slice(0, LISTED_VALUES).map(quote);
  if (values.length > LISTED_VALUES) return `${quoted.join(', ')} and ${values.length - LISTED_VALUES} more`;
  if (quoted.length === 1) return quoted[0]!;
  return `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`;
}

// Made once: toLocaleString with options builds a formatter at every call, which an online rule makes thousands of times a second.
const NUMBER_FORMATS = new Map<number, Intl.NumberFormat>();
const COUNT_FORMAT = new Intl.NumberFormat('en-US');

function formatNumber(value: number, fractionDigits = 3): string {
  let format = NUMBER_FORMATS.get(fractionDigits);
  if (!format) {
    format = new Intl.NumberFormat('en-US', { maximumFractionDigits: fractionDigits });
    NUMBER_FORMATS.set(fractionDigits, format);
  }
  return format.format(value);
}

function formatCount(value: unknown): string {
  return typeof value === 'number' ? COUNT_FORMAT.format(value) : String(value);
}

function regexProblem(error: unknown): string {
  return errorMessage(error).replace(/^error parsing regexp: /, '');
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
