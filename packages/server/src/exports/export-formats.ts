/**
 * The file formats of exports (docs/export.md, "Formats"): CSV, JSONL and Parquet, each written
 * from pages of rows as they arrive, so that a file of any length takes the memory of a page (or,
 * in Parquet, of a row group) and never of the file. Parquet's writer (export-parquet.ts) loads
 * with the first Parquet export.
 */
import { csvField } from '../shared/csv.js';
import { nanosToIso } from '../span-model/time.js';
import type { ExportFormat } from '../db/repositories/scheduled-exports-repository.js';
import type { ExportColumn, ExportRow } from './export-columns.js';

export const FORMATS: readonly ExportFormat[] = ['csv', 'jsonl', 'parquet'];

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/x-ndjson; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};

/** What an export writes: its columns and its rows, a page at a time. */
export interface ExportRows {
  columns: readonly ExportColumn[];
  pages: AsyncIterable<ExportRow[]>;
}

/** The file's bytes, a chunk per page (CSV, JSONL) or per row group (Parquet). */
export function encode(format: ExportFormat, rows: ExportRows): AsyncGenerator<Buffer> {
  switch (format) {
    case 'csv':
      return encodeCsv(rows);
    case 'jsonl':
      return encodeJsonl(rows);
    case 'parquet':
      return encodeParquet(rows);
  }
}

async function* encodeParquet(rows: ExportRows): AsyncGenerator<Buffer> {
  yield* (await import('./export-parquet.js')).encodeParquet(rows);
}

const iso = (nanos: unknown) => nanosToIso(BigInt(nanos as string));

function csvCell(type: ExportColumn['type'], value: unknown): string {
  if (value === null || value === undefined) return '';
  switch (type) {
    case 'timestamp':
      return iso(value);
    case 'json':
      return csvField(JSON.stringify(value));
    case 'int':
    case 'double':
      return String(value);
    default:
      return csvField(String(value));
  }
}

async function* encodeCsv({ columns, pages }: ExportRows): AsyncGenerator<Buffer> {
  yield Buffer.from(`${columns.map((column) => csvField(column.name)).join(',')}\r\n`);
  for await (const page of pages) {
    let chunk = '';
    for (const row of page) chunk += `${columns.map((column) => csvCell(column.type, row[column.name])).join(',')}\r\n`;
    yield Buffer.from(chunk);
  }
}

async function* encodeJsonl({ columns, pages }: ExportRows): AsyncGenerator<Buffer> {
  for await (const page of pages) {
    let chunk = '';
    for (const row of page) {
      const line: Record<string, unknown> = {};
      for (const column of columns) {
        const value = row[column.name] ?? null;
        line[column.name] = column.type === 'timestamp' && value !== null ? iso(value) : value;
      }
      chunk += `${JSON.stringify(line)}\n`;
    }
    yield Buffer.from(chunk);
  }
}
