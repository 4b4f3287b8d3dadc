/**
 * Phoenix's span query (POST /v1/spans, what phoenix-client's get_spans_dataframe calls): each
 * query of a request reads up to `limit` spans of a project matching its condition and answers a
 * table (index columns, columns, rows) that the route encodes as a pandas DataFrame. Conditions
 * and projections are parsed by span-condition.ts; explode reads a list attribute a row per
 * element and concat joins its elements' text (both done here, on the merged attributes).
 */
import { InvalidInputError, UnavailableError } from '@sightline/common';
import type { SpanRecord, SpansRepository } from '../db/repositories/spans-repository.js';
import type { ProjectsService } from '../projects/projects-service.js';
import type { Identifier } from '../shared/identifier.js';
import { parseTimeRange } from '../span-model/time.js';
import { parseSpanCondition, parseSpanProjection, type SpanProjection } from './span-condition.js';

export const MAX_SPAN_QUERY_LIMIT = 10_000;
export const MAX_SPAN_QUERIES = 10;
/** How long one query may read (PostgreSQL: the statement timeout; SQLite: checked between windows of spans). */
export const SPAN_QUERY_TIMEOUT_MS = 15_000;

/** One query of the request body, in Phoenix's shape (SpanQuery.to_dict()). */
export interface SpanQueryInput {
  select?: Record<string, unknown> | null | undefined;
  filter?: Record<string, unknown> | null | undefined;
  explode?: Record<string, unknown> | null | undefined;
  concat?: Record<string, unknown> | null | undefined;
  rename?: Record<string, unknown> | null | undefined;
  index?: Record<string, unknown> | null | undefined;
}

export interface SpanQueryParams {
  queries: SpanQueryInput[];
  startTime?: string | undefined;
  endTime?: string | undefined;
  limit: number;
  rootSpansOnly?: boolean | undefined;
  orphanSpanAsRootSpan: boolean;
}

/** A column of a result table: its name and whether it holds times (nanoseconds as decimal text). */
export interface SpanTableColumn {
  name: string;
  time: boolean;
}

/** One query's result: `rows[i]` holds the index values, then the column values. */
export interface SpanTable {
  index: SpanTableColumn[];
  columns: SpanTableColumn[];
  rows: unknown[][];
}

const DEFAULT_COLUMNS = ['name', 'span_kind', 'parent_id', 'start_time', 'end_time', 'status_code', 'status_message', 'events'] as const;

/** Reads a projection of a span; attributes missing under a key but present under `key.` come back nested. */
function project(span: SpanRecord, projection: SpanProjection): unknown {
  if (projection.kind === 'attribute') return attributeValue(span.attributes, projection.key);
  switch (projection.column) {
    case 'name':
      return span.name;
    case 'span_kind':
      return span.spanKind;
    case 'parent_id':
      return span.parentId;
    case 'status_code':
      return span.statusCode;
    case 'status_message':
      return span.statusMessage;
    case 'span_id':
      return span.spanId;
    case 'trace_id':
      return span.traceId;
    case 'latency_ms':
      return Number(BigInt(span.endTime) - BigInt(span.startTime)) / 1e6;
    case 'start_time':
      return span.startTime;
    case 'end_time':
      return span.endTime;
    case 'events':
      return span.events;
    case 'attributes':
      return span.attributes;
  }
}

/** The value of a flat dotted key, or the keys under it as a nested object (lists where every key is an index). */
function attributeValue(attributes: Record<string, unknown>, key: string): unknown {
  if (Object.hasOwn(attributes, key)) return attributes[key];
  const prefix = `${key}.`;
  const nested: Record<string, unknown> = {};
  let found = false;
  for (const name of Object.keys(attributes)) {
    if (!name.startsWith(prefix)) continue;
    found = true;
    const rest = name.slice(prefix.length);
    const dot = rest.indexOf('.');
    const head = dot < 0 ? rest : rest.slice(0, dot);
    if (Object.hasOwn(nested, head)) continue;
    Object.defineProperty(nested, head, { value: attributeValue(attributes, `${prefix}${head}`), enumerable: true, writable: true });
  }
  if (!found) return null;
  const heads = Object.keys(nested);
  if (heads.every((head) => /^\d+$/.test(head))) return heads.sort((a, b) => Number(a) - Number(b)).map((head) => nested[head]);
  return nested;
}

const isTime = (projection: SpanProjection) =>
  projection.kind === 'column' && (projection.column === 'start_time' || projection.column === 'end_time');

function keyOf(value: unknown, what: string): string {
  const key = (value as { key?: unknown } | null | undefined)?.key;
  if (typeof key !== 'string' || key === '') throw new InvalidInputError(`invalid span query: ${what} needs a non-empty "key"`);
  return key;
}

/** A query's explode: the list to read a row per element of, and optionally which element fields become which columns. */
interface Explosion {
  list: SpanProjection;
  key: string;
  /** column name → dotted path in the element; none: every field of the element, flattened. */
  fields: [string, string][] | null;
  primaryIndexKey: string;
}

/** Phoenix's flatten of a mapping: nested objects become dotted keys, lists stay values. */
function flattenObject(value: Record<string, unknown>, prefix = '', into: [string, unknown][] = []): [string, unknown][] {
  for (const [key, item] of Object.entries(value)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) flattenObject(item as Record<string, unknown>, name, into);
    else into.push([name, item]);
  }
  return into;
}

/** Phoenix's get_attribute_value: the value at a dotted path of nested objects, or undefined. */
function valueAt(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function parseExplosion(explode: Record<string, unknown>, indexKey: string): Explosion {
  const key = keyOf(explode, 'explode');
  const list = parseSpanProjection(key);
  if (list.kind !== 'attribute')
    throw new InvalidInputError(`unsupported span query: explode reads list attributes, not ${JSON.stringify(key)}`);
  const kwargs = explode.kwargs;
  if (kwargs !== undefined && kwargs !== null && !isRecord(kwargs))
    throw new InvalidInputError('invalid span query: explode.kwargs must be an object');
  const fields = kwargs && Object.keys(kwargs).length > 0 ? Object.entries(kwargs) : null;
  for (const [name, path] of fields ?? [])
    if (typeof path !== 'string' || path === '')
      throw new InvalidInputError(`invalid span query: explode.kwargs.${name} must be a non-empty string`);
  const primary = explode.primary_index_key;
  return {
    list,
    key,
    fields: fields as [string, string][] | null,
    primaryIndexKey: typeof primary === 'string' && primary !== '' ? primary : indexKey,
  };
}

/** A query's concat: the list whose elements (or their fields) are joined into text columns. */
interface Concatenation {
  list: SpanProjection;
  key: string;
  fields: [string, string][] | null;
  separator: string;
}

/** Python's str() of a scalar as Phoenix's concat writes it; objects and lists as JSON. */
function pythonText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

function parseConcatenation(concat: Record<string, unknown>): Concatenation {
  const key = keyOf(concat, 'concat');
  const list = parseSpanProjection(key);
  if (list.kind !== 'attribute')
    throw new InvalidInputError(`unsupported span query: concat reads list attributes, not ${JSON.stringify(key)}`);
  const kwargs = concat.kwargs;
  if (kwargs !== undefined && kwargs !== null && !isRecord(kwargs))
    throw new InvalidInputError('invalid span query: concat.kwargs must be an object');
  const fields = kwargs && Object.keys(kwargs).length > 0 ? Object.entries(kwargs) : null;
  for (const [name, path] of fields ?? [])
    if (typeof path !== 'string' || path === '')
      throw new InvalidInputError(`invalid span query: concat.kwargs.${name} must be a non-empty string`);
  const separator = concat.separator;
  if (separator !== undefined && separator !== null && typeof separator !== 'string')
    throw new InvalidInputError('invalid span query: concat.separator must be a string');
  return {
    list,
    key,
    fields: fields as [string, string][] | null,
    separator: typeof separator === 'string' && separator !== '' ? separator : '\n\n',
  };
}

/** The concat columns of one span: label → joined text; undefined when the attribute is no list. */
function concatenate(concat: Concatenation, list: unknown): Map<string, string> | undefined {
  if (!Array.isArray(list)) return undefined;
  const out = new Map<string, string>();
  if (!concat.fields) {
    out.set(concat.key, list.map(pythonText).join(concat.separator));
    return out;
  }
  for (const [label, path] of concat.fields) {
    const values = list
      .filter(isRecord)
      .map((element) => valueAt(element, path))
      .filter((value) => value !== undefined && value !== null);
    if (values.length > 0) out.set(label, values.map(pythonText).join(concat.separator));
  }
  return out;
}

export type SpanQueryService = ReturnType<typeof createSpanQueryService>;

export function createSpanQueryService({ spans, projects }: { spans: SpansRepository; projects: ProjectsService }) {
  /** One query's table, Phoenix's way: without select, the span columns and every attribute as `attributes.<key>`. */
  const table = (
    query: SpanQueryInput,
    rows: SpanRecord[],
    indexKey: string,
    selected: [string, SpanProjection][] | null,
    explosion: Explosion | null,
    concat: Concatenation | null,
  ): SpanTable => {
    const rename = query.rename ?? {};
    const named = (name: string) => (typeof rename[name] === 'string' ? (rename[name] as string) : name);
    const unalias = (key: string) => (key === 'span_id' ? 'context.span_id' : key === 'trace_id' ? 'context.trace_id' : key);
    if (explosion) {
      // As Phoenix (trace/dsl/query.py Explosion): spans whose attribute is no list drop out; a row per
      // element that is an object, indexed by the primary index and the element's position.
      const index = parseSpanProjection(explosion.primaryIndexKey);
      const documents = explosion.key === 'retrieval.documents' || explosion.key === 'attributes.retrieval.documents';
      const chosen = selected ?? [];
      const names = new Map<string, number>((explosion.fields ?? []).map(([name], i) => [name, i]));
      const exploded: { index: unknown[]; values: unknown[]; fields: Map<string, unknown> }[] = [];
      for (const span of rows) {
        const list = project(span, explosion.list);
        if (!Array.isArray(list)) continue;
        list.forEach((element, position) => {
          if (!isRecord(element)) return;
          const fields = new Map<string, unknown>();
          if (explosion.fields) {
            for (const [name, path] of explosion.fields) {
              const value = valueAt(element, path);
              if (value !== undefined && value !== null) fields.set(name, value);
            }
          } else {
            for (const [name, value] of flattenObject(element)) {
              if (!names.has(name)) names.set(name, names.size);
              fields.set(name, value);
            }
          }
          exploded.push({
            index: [project(span, index), position],
            values: chosen.map(([, projection]) => project(span, projection)),
            fields,
          });
        });
      }
      const fieldNames = [...names.keys()];
      return {
        index: [
          { name: unalias(explosion.primaryIndexKey), time: isTime(index) },
          { name: documents ? 'document_position' : 'position', time: false },
        ],
        columns: [
          ...chosen.map(([name, projection]) => ({ name: named(name), time: isTime(projection) })),
          ...fieldNames.map((name) => ({ name: named(name), time: false })),
        ],
        rows: exploded.map((row) => [...row.index, ...row.values, ...fieldNames.map((name) => row.fields.get(name) ?? null)]),
      };
    }
    const index = parseSpanProjection(indexKey);
    const indexName = unalias(indexKey);
    if (concat) {
      // As Phoenix (Concatenation): with select, every span, its concat columns empty without the list;
      // without select, only the spans with the list.
      const chosen = selected ?? [];
      const joined = rows.map((span) => concatenate(concat, project(span, concat.list)));
      const kept = rows.map((span, i) => ({ span, texts: joined[i] })).filter((row) => selected || row.texts !== undefined);
      const labels = concat.fields ? concat.fields.map(([label]) => label) : [concat.key];
      return {
        index: [{ name: indexName, time: isTime(index) }],
        columns: [
          ...chosen.map(([name, projection]) => ({ name: named(name), time: isTime(projection) })),
          ...labels.map((label) => ({ name: named(label), time: false })),
        ],
        rows: kept.map(({ span, texts }) => [
          project(span, index),
          ...chosen.map(([, projection]) => project(span, projection)),
          ...labels.map((label) => texts?.get(label) ?? null),
        ]),
      };
    }
    if (selected) {
      return {
        index: [{ name: indexName, time: isTime(index) }],
        columns: selected.map(([name, projection]) => ({ name: named(name), time: isTime(projection) })),
        rows: rows.map((span) => [project(span, index), ...selected.map(([, projection]) => project(span, projection))]),
      };
    }
    // As Phoenix's default frame (trace/dsl/query.py _get_spans_dataframe): indexed by span id, index and rename ignored.
    const attributeKeys = [...new Set(rows.flatMap((span) => Object.keys(span.attributes)))].sort();
    const columns: SpanTableColumn[] = [
      ...DEFAULT_COLUMNS.map((name) => ({ name, time: name === 'start_time' || name === 'end_time' })),
      { name: 'context.span_id', time: false },
      { name: 'context.trace_id', time: false },
      ...attributeKeys.map((key) => ({ name: `attributes.${key}`, time: false })),
    ];
    return {
      index: [{ name: 'context.span_id', time: false }],
      columns,
      rows: rows.map((span) => [
        span.spanId,
        ...DEFAULT_COLUMNS.map((name) => project(span, { kind: 'column', column: name })),
        span.spanId,
        span.traceId,
        ...attributeKeys.map((key) => (Object.hasOwn(span.attributes, key) ? span.attributes[key] : null)),
      ]),
    };
  };

  return {
    /** Runs every query of the request on the project; 404 for an unknown project, 422 for what is not supported. */
    async query(projectIdentifier: Identifier, params: SpanQueryParams): Promise<SpanTable[]> {
      if (params.queries.length === 0 || params.queries.length > MAX_SPAN_QUERIES)
        throw new InvalidInputError(`a span query request holds 1 to ${MAX_SPAN_QUERIES} queries`);
      if (!Number.isInteger(params.limit) || params.limit < 1 || params.limit > MAX_SPAN_QUERY_LIMIT)
        throw new InvalidInputError(`limit must be an integer from 1 to ${MAX_SPAN_QUERY_LIMIT}`);
      const range = parseTimeRange(params);
      // Everything is parsed before anything is read, so a bad query reads nothing.
      const parsed = params.queries.map((query) => {
        if (query.concat && (query.concat as { key?: unknown }).key && query.explode && (query.explode as { key?: unknown }).key)
          throw new InvalidInputError('unsupported span query: explode and concat in one query are not supported');
        const conditionText = query.filter?.condition;
        if (conditionText !== undefined && conditionText !== null && typeof conditionText !== 'string')
          throw new InvalidInputError('invalid span query: filter.condition must be a string');
        const condition = conditionText ? parseSpanCondition(conditionText) : undefined;
        const selected = query.select
          ? Object.entries(query.select).map(
              ([name, projection]) =>
                [
                  name === 'span_id' ? 'context.span_id' : name === 'trace_id' ? 'context.trace_id' : name,
                  parseSpanProjection(keyOf(projection, `select.${name}`)),
                ] as [string, SpanProjection],
            )
          : null;
        if (selected && selected.length === 0) throw new InvalidInputError('invalid span query: select names no column');
        const indexKey = query.index ? keyOf(query.index, 'index') : 'context.span_id';
        parseSpanProjection(indexKey);
        const explosion = query.explode && (query.explode as { key?: unknown }).key ? parseExplosion(query.explode, indexKey) : null;
        if (explosion) parseSpanProjection(explosion.primaryIndexKey);
        const concat = query.concat && (query.concat as { key?: unknown }).key ? parseConcatenation(query.concat) : null;
        return { query, condition, selected, indexKey, explosion, concat };
      });
      const project = await projects.resolve(projectIdentifier);
      const roots = params.rootSpansOnly ? (params.orphanSpanAsRootSpan ? 'orphans' : 'no-parent') : undefined;
      const tables: SpanTable[] = [];
      for (const { query, condition, selected, indexKey, explosion, concat } of parsed) {
        let rows: SpanRecord[];
        try {
          rows = await spans.query(
            { projectId: project.id, startTime: range.start, endTime: range.end, roots, condition },
            params.limit,
            SPAN_QUERY_TIMEOUT_MS,
          );
        } catch (error) {
          if ((error as { code?: unknown }).code === '57014')
            throw new UnavailableError(
              `the span query took longer than ${SPAN_QUERY_TIMEOUT_MS / 1000} s; narrow its time range or condition`,
            );
          throw error;
        }
        tables.push(table(query, rows, indexKey, selected, explosion, concat));
      }
      return tables;
    },
  };
}
