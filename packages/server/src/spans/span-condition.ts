/**
 * Phoenix's span query language (SpanQuery's filter conditions and projections, a subset of
 * Python expressions) read with jsep, a Pratt parser configured with Python's boolean, membership
 * and identity operators. Nothing is evaluated: the parse tree is checked node by node and turned
 * into a SpanCondition (db/repositories/span-condition-sql.ts), whose values all become bound
 * parameters. Anything outside the subset is a 422 naming what is not supported (docs/api.md,
 * "Span queries").
 */
import jsep from 'jsep';
import { InvalidInputError } from '@sightline/common';
import type { CompareOperator, SpanCondition, SpanConditionColumn, SpanConditionField } from '../db/repositories/span-condition-sql.js';
import type { AttributeScalar } from '../db/sql-dialect.js';
import { inLongAttributes, LONG_VALUE_CHARS } from '../span-model/long-attributes.js';

/** Longest condition or projection read, nesting depth and list length: bounds on the work a query asks for. */
export const MAX_CONDITION_CHARS = 4096;
export const MAX_CONDITION_DEPTH = 32;
export const MAX_LIST_VALUES = 1000;

// jsep is configured once, for this language only (Python precedence: or < and < not < comparisons).
jsep.removeAllBinaryOps();
jsep.removeAllUnaryOps();
jsep.removeAllLiterals();
for (const [operator, precedence] of [
  ['or', 1],
  ['and', 2],
  ['==', 6],
  ['!=', 6],
  ['<', 6],
  ['<=', 6],
  ['>', 6],
  ['>=', 6],
  ['in', 6],
  ['not in', 6],
  ['is', 6],
  ['is not', 6],
] as const)
  jsep.addBinaryOp(operator, precedence);
jsep.addUnaryOp('not');
jsep.addUnaryOp('-');
jsep.addLiteral('None', null);
jsep.addLiteral('True', true);
jsep.addLiteral('False', false);

type Node = jsep.Expression;

const COLUMNS: ReadonlySet<string> = new Set<SpanConditionColumn>([
  'name',
  'span_kind',
  'parent_id',
  'status_code',
  'status_message',
  'span_id',
  'trace_id',
  'latency_ms',
]);

/** Names a projection can read but a condition cannot test. */
const PROJECTION_ONLY = new Set(['start_time', 'end_time', 'events', 'attributes']);

/** What a projection (select, index) reads: a span column or an attribute (a flat dotted key). */
export type SpanProjection =
  | { kind: 'column'; column: SpanConditionColumn | 'start_time' | 'end_time' | 'events' | 'attributes' }
  | { kind: 'attribute'; key: string };

const unsupported = (what: string) => new InvalidInputError(`unsupported span query: ${what}`);

const excerpt = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

function parse(text: string, what: string): Node {
  if (text.length > MAX_CONDITION_CHARS) throw unsupported(`the ${what} is longer than ${MAX_CONDITION_CHARS} characters`);
  try {
    return jsep(text);
  } catch (error) {
    if (error instanceof RangeError) throw unsupported(`the ${what} is nested too deeply`);
    throw new InvalidInputError(`invalid span query ${what} ${excerpt(text)}: ${(error as Error).message}`);
  }
}

/** The dotted path of `a.b['c']`, or undefined when the node is not a name path. */
function pathOf(node: Node, depth = 0): string[] | undefined {
  if (depth > MAX_CONDITION_DEPTH) throw unsupported('the expression is nested too deeply');
  if (node.type === 'Identifier') return [node.name as string];
  if (node.type !== 'MemberExpression') return undefined;
  const object = pathOf(node.object as Node, depth + 1);
  if (!object) return undefined;
  const property = node.property as Node;
  if (!node.computed && property.type === 'Identifier') return [...object, property.name as string];
  if (node.computed && property.type === 'Literal' && (typeof property.value === 'string' || typeof property.value === 'number'))
    return [...object, String(property.value)];
  return undefined;
}

/** A name path as a span column or an attribute key, Phoenix's way. */
function fieldOf(node: Node, source: string): SpanProjection | undefined {
  const path = pathOf(node);
  if (!path) return undefined;
  const dotted = path.join('.');
  if (path.length === 1 && (COLUMNS.has(dotted) || PROJECTION_ONLY.has(dotted)))
    return { kind: 'column', column: dotted as SpanConditionColumn };
  if (dotted === 'context.span_id') return { kind: 'column', column: 'span_id' };
  if (dotted === 'context.trace_id') return { kind: 'column', column: 'trace_id' };
  if (path[0] === 'cumulative_token_count' || path[0]?.startsWith('cumulative_llm_token_count'))
    throw unsupported(`cumulative token counts (${excerpt(source)}) are not stored; test llm.token_count.* of each span instead`);
  if (path[0] === 'annotations' || path[0] === 'evals')
    throw unsupported(
      `annotations (${excerpt(source)}) can only be tested as annotations['name'].score or .label compared with a value, or is (not) None`,
    );
  if (path[0] === 'attributes' && path.length > 1) return { kind: 'attribute', key: path.slice(1).join('.') };
  if (PROJECTION_ONLY.has(path[0]!) || COLUMNS.has(path[0]!)) return undefined;
  return { kind: 'attribute', key: dotted };
}

/** Parses a select or index key of a span query. */
export function parseSpanProjection(text: string): SpanProjection {
  const node = parse(text, 'projection');
  const field = fieldOf(node, text);
  if (!field) throw unsupported(`the projection ${excerpt(text)} is not a span column or attribute name`);
  return field;
}

/** `annotations['name']`, `annotations['name'].label` or `.score` (also `evals[…]`), or undefined. */
function annotationOf(node: Node): { name: string; part?: 'label' | 'score' } | undefined {
  const property = node.type === 'MemberExpression' && !node.computed ? (node.property as Node) : undefined;
  const part = property?.type === 'Identifier' && (property.name === 'label' || property.name === 'score') ? property.name : undefined;
  const target = part ? (node.object as Node) : node;
  if (target.type !== 'MemberExpression' || !target.computed) return undefined;
  const root = target.object as Node;
  const name = target.property as Node;
  if (root.type !== 'Identifier' || (root.name !== 'annotations' && root.name !== 'evals')) return undefined;
  if (name.type !== 'Literal' || typeof name.value !== 'string') return undefined;
  return part ? { name: name.value, part } : { name: name.value };
}

const isScalar = (value: unknown): value is AttributeScalar | null =>
  value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));

/** A literal value (negative numbers included), or undefined when the node is not one. */
function literalOf(node: Node): { value: AttributeScalar | null } | undefined {
  if (node.type === 'Literal' && isScalar(node.value)) return { value: node.value };
  if (node.type === 'UnaryExpression' && node.operator === '-') {
    const inner = node.argument as Node;
    if (inner.type === 'Literal' && typeof inner.value === 'number') return { value: -inner.value };
  }
  return undefined;
}

const FLIPPED: Record<CompareOperator, CompareOperator> = { '==': '==', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** Whether an attribute can hold a value in long_attributes (span-model/long-attributes.ts), which SQL cannot read. */
const mayBeLong = (key: string) => inLongAttributes(key, 'x'.repeat(LONG_VALUE_CHARS + 1));

function conditionField(node: Node, source: string): SpanConditionField | undefined {
  const field = fieldOf(node, source);
  if (!field) return undefined;
  if (field.kind === 'column' && PROJECTION_ONLY.has(field.column))
    throw unsupported(
      `conditions on ${field.column} are not supported` +
        (field.column.endsWith('_time') ? ' (use the start_time and end_time of the request)' : ''),
    );
  if (field.kind === 'attribute' && inLongAttributes(field.key, 0))
    throw unsupported(`attribute ${excerpt(field.key)} is part of an OpenInference list, stored compressed, and cannot be tested`);
  return field as SpanConditionField;
}

/** Throws unless the SQL of a test on this attribute sees every stored value (long strings are compressed). */
function requireExact(field: SpanConditionField, test: string, source: string): void {
  if (field.kind === 'attribute' && mayBeLong(field.key))
    throw unsupported(
      `${test} on attribute ${excerpt(field.key)} (in ${excerpt(source)}) are not supported: its values longer than ` +
        `${LONG_VALUE_CHARS} characters are stored compressed. Equality with a short string or number, and comparisons with numbers, are.`,
    );
}

function checkValue(field: SpanConditionField, value: AttributeScalar, source: string): void {
  if (field.kind === 'column') {
    const numeric = field.column === 'latency_ms';
    if (numeric !== (typeof value === 'number'))
      throw unsupported(`${field.column} is ${numeric ? 'a number' : 'a string'}; it cannot be compared with ${JSON.stringify(value)}`);
    return;
  }
  if (typeof value === 'string' && inLongAttributes(field.key, value))
    throw unsupported(`comparisons with strings longer than ${LONG_VALUE_CHARS} characters (in ${excerpt(source)}) are not supported`);
}

/** Parses a filter condition of a span query into its SQL-ready form. */
export function parseSpanCondition(source: string): SpanCondition {
  const root = parse(source, 'condition');

  const visit = (node: Node, depth: number): SpanCondition => {
    if (depth > MAX_CONDITION_DEPTH) throw unsupported(`the condition is nested more than ${MAX_CONDITION_DEPTH} levels deep`);
    if (node.type === 'UnaryExpression' && node.operator === 'not') return { kind: 'not', item: visit(node.argument as Node, depth + 1) };
    if (node.type !== 'BinaryExpression') {
      if (fieldOf(node, source)) throw unsupported(`a bare name (${excerpt(source)}) is not a condition; compare it with a value`);
      throw unsupported(`${node.type} in ${excerpt(source)}: only comparisons joined by and, or and not are supported`);
    }
    const operator = node.operator as string;
    const left = node.left as Node;
    const right = node.right as Node;
    if (operator === 'and' || operator === 'or') {
      const items = [visit(left, depth + 1), visit(right, depth + 1)].flatMap((item) => (item.kind === operator ? item.items : [item]));
      return { kind: operator, items };
    }
    for (const side of [left, right])
      if (side.type === 'UnaryExpression' && side.operator === 'not')
        throw unsupported(`"not" binds to the name after it in ${excerpt(source)}; write not (a ${operator} b)`);
    const annotation = annotationOf(left) ?? annotationOf(right);
    if (annotation) return annotationCondition(annotation, operator, annotationOf(left) ? right : left, annotationOf(left) === undefined);
    if (operator === 'is' || operator === 'is not') {
      const field = conditionField(left, source);
      const value = literalOf(right);
      if (!field || !value || value.value !== null) throw unsupported(`"${operator}" is supported only as name ${operator} None`);
      requireExact(field, 'None tests', source);
      const missing: SpanCondition = { kind: 'missing', field };
      return operator === 'is' ? missing : { kind: 'not', item: missing };
    }
    if (operator === 'in' || operator === 'not in') {
      const negate = (item: SpanCondition): SpanCondition => (operator === 'in' ? item : { kind: 'not', item });
      const needle = literalOf(left);
      const haystack = conditionField(right, source);
      if (needle && typeof needle.value === 'string' && haystack) {
        if (haystack.kind === 'column' && haystack.column === 'latency_ms') throw unsupported('latency_ms is a number, not a string');
        requireExact(haystack, 'substring tests', source);
        return negate({ kind: 'contains', field: haystack, needle: needle.value });
      }
      const field = conditionField(left, source);
      if (field && right.type === 'ArrayExpression') {
        const elements = right.elements as (Node | null)[];
        if (elements.length === 0 || elements.length > MAX_LIST_VALUES)
          throw unsupported(`a list after "${operator}" must hold 1 to ${MAX_LIST_VALUES} values`);
        const values = elements.map((element) => {
          const literal = element && literalOf(element);
          if (!literal || literal.value === null)
            throw unsupported(`a list after "${operator}" may hold only strings, numbers and booleans`);
          checkValue(field, literal.value, source);
          return literal.value;
        });
        return negate({ kind: 'in', field, values });
      }
      throw unsupported(`"${operator}" is supported as 'text' ${operator} name, or name ${operator} [values]`);
    }
    if (!(operator in FLIPPED)) throw unsupported(`the operator ${JSON.stringify(operator)}`);
    let op = operator as CompareOperator;
    let field = conditionField(left, source);
    let literal = literalOf(right);
    if (!field) {
      field = conditionField(right, source);
      literal = literalOf(left);
      op = FLIPPED[op];
    }
    if (!field || !literal)
      throw unsupported(`comparisons must set a span column or attribute against a literal value (${excerpt(source)})`);
    if (literal.value === null) {
      if (op !== '==' && op !== '!=') throw unsupported(`None can only be tested with is, is not, == and !=`);
      requireExact(field, 'None tests', source);
      const missing: SpanCondition = { kind: 'missing', field };
      return op === '==' ? missing : { kind: 'not', item: missing };
    }
    checkValue(field, literal.value, source);
    if (field.kind === 'attribute' && op !== '==' && typeof literal.value !== 'number') {
      if (typeof literal.value === 'boolean') throw unsupported(`booleans can only be tested with ==`);
      requireExact(field, 'string comparisons other than ==', source);
    }
    return { kind: 'compare', field, op, value: literal.value };
  };

  /** A test of an annotation: `.score` against a number, `.label` against a string or list of strings, or is (not) None. */
  const annotationCondition = (
    annotation: { name: string; part?: 'label' | 'score' },
    operator: string,
    other: Node,
    flipped: boolean,
  ): SpanCondition => {
    const literal = literalOf(other);
    const negate = (item: SpanCondition, yes: boolean): SpanCondition => (yes ? { kind: 'not', item } : item);
    if ((operator === 'is' || operator === 'is not' || operator === '==' || operator === '!=') && literal?.value === null && !flipped) {
      const present: SpanCondition = { kind: 'annotation', name: annotation.name, present: annotation.part };
      return negate(present, operator === 'is' || operator === '==');
    }
    if (annotation.part === 'score' && literal && typeof literal.value === 'number' && operator in FLIPPED && operator !== '!=') {
      const op = flipped ? FLIPPED[operator as CompareOperator] : (operator as CompareOperator);
      return { kind: 'annotation', name: annotation.name, score: { op, value: literal.value } };
    }
    if (annotation.part === 'label' && !flipped) {
      if (literal && typeof literal.value === 'string' && operator === '==')
        return { kind: 'annotation', name: annotation.name, label: literal.value };
      if ((operator === 'in' || operator === 'not in') && other.type === 'ArrayExpression') {
        const labels = (other.elements as (Node | null)[]).map((element) => (element ? literalOf(element) : undefined)?.value);
        if (labels.length > 0 && labels.length <= MAX_LIST_VALUES && labels.every((label) => typeof label === 'string')) {
          // As Phoenix's outer join: `not in` needs an annotation of the name with a label outside the list.
          if (operator === 'not in') return { kind: 'annotation', name: annotation.name, labelNotIn: labels as string[] };
          return { kind: 'or', items: (labels as string[]).map((label) => ({ kind: 'annotation', name: annotation.name, label })) };
        }
      }
    }
    throw unsupported(
      `the annotation test ${excerpt(source)}: supported are annotations['name'].score compared with a number (not !=), ` +
        ".label == 'text', .label in ['a', 'b'], and is None / is not None",
    );
  };

  return visit(root, 0);
}

/** Checks a filter a rule or view stores, when it is saved: a 422 naming the filter, so it never fails when it runs. */
export function checkStoredFilter(filter: string): void {
  if (filter.trim() === '') return;
  try {
    parseSpanCondition(filter);
  } catch (error) {
    if (error instanceof InvalidInputError) throw new InvalidInputError(`filter: ${error.message}`);
    throw error;
  }
}

/**
 * A parser for the filters of stored rules, which jobs apply again and again: each text is parsed
 * once (it was checked when saved), and at most 500 are remembered. A blank filter is no condition.
 */
export function storedFilterParser(): (filter: string) => SpanCondition | null {
  const conditions = new Map<string, SpanCondition>();
  return (filter) => {
    if (filter.trim() === '') return null;
    let condition = conditions.get(filter);
    if (condition === undefined) {
      condition = parseSpanCondition(filter);
      if (conditions.size >= 500) conditions.clear();
      conditions.set(filter, condition);
    }
    return condition;
  };
}
