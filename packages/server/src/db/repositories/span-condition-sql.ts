/**
 * SQL of a span query condition (Phoenix's SpanQuery filter, parsed by spans/span-condition.ts
 * into the tree below). Every value is a bound parameter; the only names in the SQL are the
 * fixed columns below, so no text of a condition ever becomes SQL.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from '../../config.js';
import type { AttributeScalar } from '../sql-dialect.js';

/** Span columns a condition can name (Phoenix's names; `span_id` and `trace_id` are the OpenTelemetry ids). */
export type SpanConditionColumn =
  | 'name'
  | 'span_kind'
  | 'parent_id'
  | 'status_code'
  | 'status_message'
  | 'span_id'
  | 'trace_id'
  | 'latency_ms';

export type SpanConditionField = { kind: 'column'; column: SpanConditionColumn } | { kind: 'attribute'; key: string };

export type CompareOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

export type SpanCondition =
  | { kind: 'and' | 'or'; items: SpanCondition[] }
  | { kind: 'not'; item: SpanCondition }
  /** `field op value`; a `value op field` comparison is turned around by the parser. */
  | { kind: 'compare'; field: SpanConditionField; op: CompareOperator; value: AttributeScalar }
  /** `field in [values]` (any of them, same JSON type). */
  | { kind: 'in'; field: SpanConditionField; values: AttributeScalar[] }
  /** `'needle' in field`: a case-sensitive substring test on a string. */
  | { kind: 'contains'; field: SpanConditionField; needle: string }
  /** `field is None`. */
  | { kind: 'missing'; field: SpanConditionField }
  /**
   * `annotations['name']…` (or `evals[…]`): the span carries an annotation of that name whose
   * label or score passes the test, or, with `present`, whose label or score is set (any annotation of the name without).
   */
  | {
      kind: 'annotation';
      name: string;
      label?: string | undefined;
      /** A label that is set and none of these. */
      labelNotIn?: string[] | undefined;
      score?: { op: CompareOperator; value: number } | undefined;
      present?: 'label' | 'score' | undefined;
    };

const COLUMN_SQL: Record<Exclude<SpanConditionColumn, 'latency_ms'>, string> = {
  name: 'spans.name',
  span_kind: 'spans.span_kind',
  parent_id: 'spans.parent_id',
  status_code: 'spans.status_code',
  status_message: 'spans.status_message',
  span_id: 'spans.span_id',
  trace_id: 'traces.trace_id',
};

const SQL_OPERATOR: Record<CompareOperator, string> = { '==': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };

/** SQLite JSON path of a top-level key (the keys are flat dotted strings), as sql-dialect.ts writes it. */
const sqlitePath = (key: string) => `$.${JSON.stringify(key)}`;

/** Builds the WHERE expression of a condition over `spans` joined with `traces`. */
export function spanConditionSql(dialect: Dialect, condition: SpanCondition): RawBuilder<SqlBool> {
  const pg = dialect === 'postgres';
  const attributes = sql.ref('spans.attributes');

  const json = (key: string) => (pg ? sql`(${attributes} -> cast(${key} as text))` : sql`json_extract(${attributes}, ${sqlitePath(key)})`);
  const jsonType = (key: string) =>
    pg ? sql`jsonb_typeof(${attributes} -> cast(${key} as text))` : sql`json_type(${attributes}, ${sqlitePath(key)})`;
  const isNumber = (key: string) => (pg ? sql`${jsonType(key)} = 'number'` : sql`${jsonType(key)} in ('integer', 'real')`);
  const isString = (key: string) => (pg ? sql`${jsonType(key)} = 'string'` : sql`${jsonType(key)} = 'text'`);
  const text = (key: string) => (pg ? sql`(${attributes} ->> cast(${key} as text))` : json(key));
  const number = (key: string) =>
    pg ? sql`(case when ${isNumber(key)} then cast(${attributes} ->> cast(${key} as text) as double precision) end)` : json(key);

  /** True when the attribute holds exactly this scalar (same JSON type, numbers by value). */
  const attributeIs = (key: string, value: AttributeScalar) => {
    if (pg) return sql`(${json(key)} = cast(${JSON.stringify(value)} as jsonb))`;
    if (typeof value === 'boolean') return sql`(${jsonType(key)} = ${value ? 'true' : 'false'})`;
    if (typeof value === 'number') return sql`(${isNumber(key)} and ${json(key)} = ${value})`;
    return sql`(${isString(key)} and ${json(key)} = ${value})`;
  };

  const column = (name: SpanConditionColumn) =>
    name === 'latency_ms' ? sql`((spans.end_time - spans.start_time) / 1000000.0)` : sql.ref(COLUMN_SQL[name]);

  const contains = (haystack: RawBuilder<unknown>, needle: string) =>
    pg ? sql`(strpos(${haystack}, ${needle}) > 0)` : sql`(instr(${haystack}, ${needle}) > 0)`;

  const build = (node: SpanCondition): RawBuilder<SqlBool> => {
    switch (node.kind) {
      case 'and':
      case 'or':
        return sql<SqlBool>`(${sql.join(node.items.map(build), node.kind === 'and' ? sql` and ` : sql` or `)})`;
      case 'not':
        // As in SQL (and Phoenix): a test of a missing value is unknown, and so is its negation.
        return sql<SqlBool>`(not ${build(node.item)})`;
      case 'missing':
        if (node.field.kind === 'column') return sql<SqlBool>`(${column(node.field.column)} is null)`;
        return sql<SqlBool>`(${jsonType(node.field.key)} is null or ${jsonType(node.field.key)} = 'null')`;
      case 'contains':
        if (node.field.kind === 'column') return sql<SqlBool>`${contains(column(node.field.column), node.needle)}`;
        return sql<SqlBool>`(${isString(node.field.key)} and ${contains(text(node.field.key), node.needle)})`;
      case 'in':
        if (node.field.kind === 'column') {
          const ref = column(node.field.column);
          return sql<SqlBool>`(${ref} in (${sql.join(node.values.map((value) => sql`${value}`))}))`;
        }
        return sql<SqlBool>`(${sql.join(
          node.values.map((value) => attributeIs((node.field as { key: string }).key, value)),
          sql` or `,
        )})`;
      case 'annotation': {
        const parts = [sql`a.name = ${node.name}`];
        if (node.label !== undefined) parts.push(sql`a.label = ${node.label}`);
        if (node.labelNotIn) parts.push(sql`a.label not in (${sql.join(node.labelNotIn.map((label) => sql`${label}`))})`);
        if (node.score) parts.push(sql`a.score ${sql.raw(SQL_OPERATOR[node.score.op])} ${node.score.value}`);
        if (node.present) parts.push(node.present === 'label' ? sql`a.label is not null` : sql`a.score is not null`);
        return sql<SqlBool>`exists (select 1 from span_annotations a where a.span_rowid = spans.id and ${sql.join(parts, sql` and `)})`;
      }
      case 'compare': {
        const op = sql.raw(SQL_OPERATOR[node.op]);
        if (node.field.kind === 'column') return sql<SqlBool>`(${column(node.field.column)} ${op} ${node.value})`;
        const key = node.field.key;
        if (node.op === '==') return sql<SqlBool>`${attributeIs(key, node.value)}`;
        // Phoenix compares a missing attribute as NULL: neither equal nor unequal.
        if (node.op === '!=') return sql<SqlBool>`(${jsonType(key)} is not null and not ${attributeIs(key, node.value)})`;
        if (typeof node.value === 'number') return sql<SqlBool>`(${isNumber(key)} and ${number(key)} ${op} ${node.value})`;
        return sql<SqlBool>`(${isString(key)} and ${text(key)} ${op} ${String(node.value)})`;
      }
    }
  };
  return build(condition);
}
