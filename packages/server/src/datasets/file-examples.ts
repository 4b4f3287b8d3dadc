/**
 * Examples from an uploaded file (docs/datasets.md): a CSV with a header row, or JSONL with one
 * object per line, read as a stream; the caller's key lists pick each example's input, output
 * and metadata from the columns (or keys). The file is never held whole in memory.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { InvalidInputError } from '@sightline/common';
import { parse } from 'csv-parse';
import type { ExampleInput } from './datasets-service.js';

export interface FileKeys {
  inputKeys: string[];
  outputKeys: string[];
  metadataKeys: string[];
  /** Column holding the span id an example came from. */
  spanIdKey?: string | undefined;
  /** Column holding the caller's example id. */
  exampleIdKey?: string | undefined;
}

export type FileFormat = 'csv' | 'jsonl';

/** Largest CSV row accepted (16 MiB: several 1 MB documents fit), so that a runaway quote cannot eat the memory. */
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/** The format of an upload by its file name or media type; 422 for anything else. */
export function fileFormat(filename: string | undefined, mimetype: string | undefined): FileFormat {
  // A part can be a file without a filename= (busboy goes by its content type).
  const name = (filename ?? '').toLowerCase();
  if (name.endsWith('.csv') || mimetype === 'text/csv') return 'csv';
  if (name.endsWith('.jsonl') || name.endsWith('.ndjson') || mimetype === 'application/jsonl' || mimetype === 'application/x-ndjson') {
    return 'jsonl';
  }
  const what = filename === undefined ? 'without a file name' : JSON.stringify(filename);
  throw new InvalidInputError(`the file ${what} is neither CSV (.csv) nor JSONL (.jsonl)`);
}

function pick(row: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of keys) if (key in row) result[key] = row[key];
  return result;
}

/** Checks that every named key is a column of the header. */
function checkKeys(columns: string[], keys: FileKeys): void {
  const known = new Set(columns);
  const named = [...keys.inputKeys, ...keys.outputKeys, ...keys.metadataKeys, keys.spanIdKey, keys.exampleIdKey].filter(
    (key): key is string => key !== undefined,
  );
  const unknown = named.filter((key) => !known.has(key));
  if (unknown.length > 0) {
    throw new InvalidInputError(
      `unknown columns: ${unknown.map((key) => JSON.stringify(key)).join(', ')} (the file has ${columns.map((c) => JSON.stringify(c)).join(', ')})`,
    );
  }
}

function toExample(row: Record<string, unknown>, keys: FileKeys): ExampleInput {
  const text = (key: string | undefined) => {
    const value = key === undefined ? undefined : row[key];
    return value === undefined || value === null || value === '' ? null : String(value);
  };
  return {
    input: pick(row, keys.inputKeys),
    output: pick(row, keys.outputKeys),
    metadata: pick(row, keys.metadataKeys),
    externalId: text(keys.exampleIdKey),
    sourceSpanId: text(keys.spanIdKey)?.toLowerCase() ?? null,
  };
}

/**
 * The examples of a CSV (header row first) or JSONL stream, yielded as they are parsed: the
 * consumer's pace is the parser's, so the file is read no faster than the examples are stored.
 * 422 naming the line for malformed input; a stream that fails (a multipart body cut short)
 * throws the stream's own error. Checks the keys before it reads anything.
 */
export function readFileExamples(stream: Readable, format: FileFormat, keys: FileKeys): AsyncGenerator<ExampleInput> {
  if (keys.inputKeys.length === 0) throw new InvalidInputError('input_keys[] must name at least one column');
  return format === 'csv' ? csvExamples(stream, keys) : jsonlExamples(stream, keys);
}

async function* csvExamples(stream: Readable, keys: FileKeys): AsyncGenerator<ExampleInput> {
  // Neither pipe() nor readline's iterator passes a source error on: the parser would wait for ever
  // and readline would re-emit it as an unhandled 'error' event, which ends the process.
  let streamError: Error | null = null;
  let checked = false;
  const parser = parse({
    columns: true,
    bom: true,
    max_record_size: MAX_RECORD_BYTES,
    skip_empty_lines: true,
    relax_column_count: false,
  });
  stream.once('error', (error) => {
    streamError = error;
    parser.destroy(error);
  });
  stream.pipe(parser);
  const records = (parser as AsyncIterable<Record<string, string>>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<Record<string, string>>;
      try {
        next = await records.next();
      } catch (error) {
        if (streamError !== null) throw streamError;
        const { lines, message } = error as { lines?: number; message?: string };
        throw new InvalidInputError(`the CSV file is malformed${lines ? ` at line ${lines}` : ''}: ${message ?? 'unreadable'}`);
      }
      if (next.done) return;
      if (!checked) {
        checkKeys(Object.keys(next.value), keys);
        checked = true;
      }
      yield toExample(next.value, keys);
    }
  } finally {
    // The consumer stopped early (its upload failed): stop parsing the rest of the file.
    parser.destroy();
  }
}

async function* jsonlExamples(stream: Readable, keys: FileKeys): AsyncGenerator<ExampleInput> {
  let streamError: Error | null = null;
  let line = 0;
  let columns: string[] | null = null;
  const reader = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  reader.on('error', (error) => {
    streamError = error;
    reader.close();
  });
  try {
    for await (const text of reader) {
      line++;
      if (text.trim() === '') continue;
      let row: unknown;
      try {
        row = JSON.parse(text);
      } catch {
        throw new InvalidInputError(`line ${line} of the JSONL file is not valid JSON`);
      }
      if (row === null || typeof row !== 'object' || Array.isArray(row))
        throw new InvalidInputError(`line ${line} of the JSONL file is not a JSON object`);
      // The first object plays the CSV header's part: the keys named must be among its keys.
      if (columns === null) {
        columns = Object.keys(row);
        checkKeys(columns, keys);
      }
      yield toExample(row as Record<string, unknown>, keys);
    }
  } finally {
    reader.close();
  }
  if (streamError !== null) throw streamError;
}
