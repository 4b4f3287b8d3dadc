/**
 * The columns and first rows of a CSV or JSONL file, read in the browser from the head of the
 * file only (a dataset file may be hundreds of megabytes: docs/ui.md, "Datasets"). The columns
 * are what the server will take as keys: a CSV's header row, the keys of a JSONL file's first
 * object (docs/datasets.md, "Files").
 */
import type Papa from 'papaparse';

export type FileFormat = 'csv' | 'jsonl';

export interface FilePreview {
  format: FileFormat;
  columns: string[];
  /** A distinct id per column (a CSV header may name a column twice), for React's keys. */
  columnIds: string[];
  /** The first rows, each with its place in the file (1 the first) and one text per column ('' where the row has no value). */
  rows: { row: number; cells: string[] }[];
}

/** The columns' names, with `#2`, `#3`… after a name seen before. */
function distinct(columns: string[]): string[] {
  const seen = new Map<string, number>();
  return columns.map((column) => {
    const count = (seen.get(column) ?? 0) + 1;
    seen.set(column, count);
    return count === 1 ? column : `${column}#${count}`;
  });
}

function previewOf(format: FileFormat, columns: string[], rows: string[][]): FilePreview {
  return { format, columns, columnIds: distinct(columns), rows: rows.map((cells, index) => ({ row: index + 1, cells })) };
}

/** Rows shown. */
export const PREVIEW_ROWS = 5;
const FIRST_READ = 256 * 1024;
/** The server's largest row (docs/datasets.md, "Files"): a head this long holds the first rows of any file it accepts. */
const MAX_READ = 16 * 1024 * 1024;

/** The format by the file's name, as the server decides it; null for any other file. */
export function formatOf(fileName: string): FileFormat | null {
  const name = fileName.toLowerCase();
  if (name.endsWith('.csv')) return 'csv';
  if (name.endsWith('.jsonl') || name.endsWith('.ndjson')) return 'jsonl';
  return null;
}

/** A value of a JSONL row as text: strings as they are, anything else as JSON. */
function cellText(value: unknown): string {
  if (value === undefined || value === null) return value === null ? 'null' : '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The first rows of a CSV text; `whole` says the text is the entire file (else its last record may be cut). */
function csvRows(papa: typeof Papa, text: string, whole: boolean): string[][] | null {
  const wanted = PREVIEW_ROWS + 1;
  // The server's parser (csv-parse) takes commas and double quotes only, and skips empty lines.
  const parsed = papa.parse<string[]>(text, { delimiter: ',', quoteChar: '"', skipEmptyLines: true, preview: wanted + 1 });
  const records = whole ? parsed.data : parsed.data.slice(0, -1);
  const broken = parsed.errors.find((error) => error.type === 'Quotes' && (error.row ?? 0) < records.length);
  if (broken) throw new Error(`The CSV file is malformed at record ${(broken.row ?? 0) + 1}: ${broken.message}.`);
  return records.length >= wanted || whole ? records.slice(0, wanted) : null;
}

/** The first objects of a JSONL text; null while the text holds fewer lines than wanted and is not the whole file. */
function jsonlRows(text: string, whole: boolean): Record<string, unknown>[] | null {
  const lines = text.split(/\r?\n/);
  if (!whole) lines.pop();
  const rows: Record<string, unknown>[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new Error(`Line ${index + 1} of the JSONL file is not valid JSON.`);
    }
    if (row === null || typeof row !== 'object' || Array.isArray(row))
      throw new Error(`Line ${index + 1} of the JSONL file is not a JSON object.`);
    rows.push(row as Record<string, unknown>);
    if (rows.length === PREVIEW_ROWS) return rows;
  }
  return whole ? rows : null;
}

/** Reads the head of the file until it holds the preview's rows (or the whole file); an Error with a sentence when it cannot. */
export async function previewFile(file: File): Promise<FilePreview> {
  const format = formatOf(file.name);
  if (format === null) throw new Error(`"${file.name}" is neither a CSV (.csv) nor a JSONL (.jsonl) file.`);
  // The CSV parser is loaded when a CSV is first previewed, not with every page of the app.
  const papa = format === 'csv' ? (await import('papaparse')).default : null;
  for (let size = FIRST_READ; ; size *= 4) {
    const whole = size >= file.size;
    const text = await file.slice(0, Math.min(size, file.size)).text();
    if (papa !== null) {
      const records = csvRows(papa, text.replace(/^\uFEFF/, ''), whole);
      if (records !== null) {
        const [header = [], ...rows] = records;
        if (header.length === 0) throw new Error('The CSV file is empty: it needs a header row with the column names.');
        return previewOf(
          format,
          header,
          rows.map((row) => header.map((_, index) => row[index] ?? '')),
        );
      }
    } else {
      const rows = jsonlRows(text, whole);
      if (rows !== null) {
        const [first] = rows;
        if (first === undefined) throw new Error('The JSONL file is empty: it needs one JSON object per line.');
        const columns = Object.keys(first);
        return previewOf(
          format,
          columns,
          rows.map((row) => columns.map((column) => cellText(row[column]))),
        );
      }
    }
    if (size >= MAX_READ) throw new Error('The first rows of the file are longer than 16 MiB: the server would refuse them.');
  }
}
