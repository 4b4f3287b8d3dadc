/**
 * A span query's tables as Phoenix answers them (phoenix/utilities/json.py encode_df_as_json_string):
 * a multipart/mixed body with one application/json part per query, each a pandas table-schema
 * document (`DataFrame.to_json(orient="table")`'s shape) whose index and column names carry a
 * position prefix (`0_context.span_id`, `1_name`, …) that phoenix-client strips up to the first `_`.
 */
import { randomBytes } from 'node:crypto';
import type { SpanTable, SpanTableColumn } from '../../spans/span-query-service.js';
import { iso } from '../shared/times.js';

type Field = { name: string; type: string; tz?: string };

/** The table-schema type pandas reads a column back with: object ("string") unless every value fits a narrower dtype. */
function fieldType(column: SpanTableColumn, values: unknown[]): Omit<Field, 'name'> {
  if (column.time) return { type: 'datetime', tz: 'UTC' };
  if (values.length === 0) return { type: 'string' };
  const present = values.filter((value) => value !== null && value !== undefined);
  // pandas casts with astype: int64 and bool cannot hold a missing value, float64 can (NaN).
  if (present.length > 0 && present.every((value) => typeof value === 'number')) {
    return { type: present.length === values.length && present.every(Number.isInteger) ? 'integer' : 'number' };
  }
  if (present.length === values.length && present.every((value) => typeof value === 'boolean')) return { type: 'boolean' };
  return { type: 'string' };
}

/** One table as the JSON text of one part. */
export function presentSpanTable(table: SpanTable): string {
  const columns = [...table.index, ...table.columns];
  const names = [
    ...table.index.map((column, i) => `${i}_${column.name}`),
    ...table.columns.map((column, i) => `${i + table.index.length}_${column.name}`),
  ];
  const cell = (column: SpanTableColumn, value: unknown) =>
    value === undefined ? null : column.time && typeof value === 'string' ? iso(value) : value;
  const fields: Field[] = columns.map((column, c) => ({
    name: names[c]!,
    ...fieldType(
      column,
      table.rows.map((row) => row[c]),
    ),
  }));
  const data = table.rows.map((row) => Object.fromEntries(columns.map((column, c) => [names[c]!, cell(column, row[c])])));
  return JSON.stringify({ schema: { fields, primaryKey: names.slice(0, table.index.length), pandas_version: '1.4.0' }, data });
}

/** The multipart/mixed body of a span query answer and its content type. */
export function presentSpanTables(tables: SpanTable[]): { contentType: string; body: string } {
  const boundary = randomBytes(32).toString('hex');
  const parts = tables.map((table) => `--${boundary}\r\nContent-Type: application/json\r\n\r\n${presentSpanTable(table)}\r\n`);
  return { contentType: `multipart/mixed; boundary=${boundary}`, body: `${parts.join('')}--${boundary}--\r\n` };
}
