/**
 * Parquet exports (docs/export.md, "Formats"), written by hyparquet-writer's ParquetWriter one row
 * group at a time: the writer calls its output's `flush()` after each row group, which hands the
 * bytes written so far on and empties the buffer; the footer (schema, row groups, page offsets) is
 * kept as bytes (parquet-footer.ts) and written by `finish()`.
 */
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { ExportColumn } from './export-columns.js';
import type { ExportRows } from './export-formats.js';
import { ParquetFooter } from './parquet-footer.js';

/**
 * A Parquet row group ends at this many rows or this much text, whichever comes first. A group is
 * held whole until it is written (Parquet stores each column of a group in one piece), so its
 * size is most of an export's memory; the footer keeps about 1.3 KB of each group until the end
 * (about 4 MB at 10 million spans), and readers read the whole footer, so groups should not be
 * much smaller. 4 MiB rather than 8: with two malloc arenas (SERVE_ENV), a 10-million-span
 * export peaked 30-40 MB lower (docs/performance.md, "Export").
 */
export const PARQUET_GROUP_ROWS = 10_000;
export const PARQUET_GROUP_BYTES = 4 * 1024 * 1024;

/** The Parquet schema of the columns: every column optional (nullable); times in nanoseconds, UTC. */
function parquetSchema(columns: readonly ExportColumn[]) {
  return [
    { name: 'root', num_children: columns.length },
    ...columns.map((column) => {
      const base = { name: column.name, repetition_type: 'OPTIONAL' as const };
      switch (column.type) {
        case 'timestamp':
          return {
            ...base,
            type: 'INT64' as const,
            logical_type: { type: 'TIMESTAMP' as const, isAdjustedToUTC: true, unit: 'NANOS' as const },
          };
        case 'int':
          return { ...base, type: 'INT64' as const };
        case 'double':
          return { ...base, type: 'DOUBLE' as const };
        default:
          return { ...base, type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const };
      }
    }),
  ];
}

/** Long texts are written plain (no dictionary: their values rarely repeat) and keep no min/max statistics. */
const isLong = (type: ExportColumn['type']) => type === 'text' || type === 'json';

/**
 * A column's value as the Parquet writer takes it. Long texts become their UTF-8 bytes at once, so
 * that a group holds each of them once (the writer would otherwise keep the string and its bytes).
 */
function parquetValue(type: ExportColumn['type'], value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'timestamp':
      return BigInt(value as string);
    case 'int':
      return BigInt(value as number);
    case 'json':
      return Buffer.from(JSON.stringify(value));
    case 'text':
      return Buffer.from(value as string);
    default:
      return value;
  }
}

/** Bytes the writer's buffer holds before they are handed on, while a row group is written. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * A ByteWriter that hands its bytes on instead of keeping the file: every megabyte while a row
 * group is written (as hyparquet-writer's own file writer does), and at each flush (after each
 * row group), so its buffer stays about a megabyte however large a group is.
 */
class ChunkWriter extends ByteWriter {
  private readonly chunks: Buffer[] = [];
  override ensure(size: number): void {
    if (this.index > CHUNK_BYTES) this.flush();
    super.ensure(size);
  }
  flush(): void {
    if (this.index > 0) this.chunks.push(Buffer.from(new Uint8Array(this.buffer, 0, this.index)));
    this.index = 0;
  }
  override finish(): void {
    this.flush();
  }
  /** The bytes written since the last call. */
  take(): Buffer[] {
    this.flush();
    return this.chunks.splice(0);
  }
}

type WriteOptions = Parameters<ParquetWriter['write']>[0];

/** A ParquetWriter that keeps each written row group's metadata as bytes (parquet-footer.ts), not as objects. */
export class FooterBytesParquetWriter extends ParquetWriter {
  private readonly footer: ParquetFooter;

  constructor(options: ConstructorParameters<typeof ParquetWriter>[0]) {
    super(options);
    this.footer = new ParquetFooter(this.schema, this.createdBy, this.kvMetadata);
  }

  override write(options: WriteOptions): void {
    // An output whose flush() is asynchronous would leave groups to be written after this returns.
    if (super.write(options) !== undefined) throw new Error('FooterBytesParquetWriter takes an output whose flush() is synchronous');
    // Page indexes and bloom filters are written after the groups, into their metadata: not kept here.
    if (this.pendingIndexes.some((group) => group.columnIndex || group.offsetIndex || group.bloomFilter))
      throw new Error('FooterBytesParquetWriter writes neither page indexes nor bloom filters');
    for (const group of this.row_groups) this.footer.add(group);
    this.row_groups = [];
    this.pendingIndexes = [];
  }

  override finish(): void {
    this.footer.write(this.writer, this.num_rows);
    this.writer.appendUint32(0x31524150); // PAR1
    this.writer.finish();
  }
}

/** The file's bytes, a chunk per row group. */
export async function* encodeParquet({ columns, pages }: ExportRows): AsyncGenerator<Buffer> {
  const output = new ChunkWriter();
  const writer = new FooterBytesParquetWriter({ writer: output, schema: parquetSchema(columns), createdBy: 'sightline' });
  let group: unknown[][] = columns.map(() => []);
  let rows = 0;
  let bytes = 0;
  const writeGroup = () => {
    writer.write({
      columnData: columns.map((column, index) => ({
        name: column.name,
        data: group[index]!,
        // Groups are read whole (a column of a group is a page or a few): no page index.
        offsetIndex: false,
        ...(isLong(column.type) ? { statistics: false, encoding: 'PLAIN' as const } : column.type === 'id' ? { statistics: false } : {}),
      })),
      rowGroupSize: rows,
    });
    group = columns.map(() => []);
    rows = 0;
    bytes = 0;
  };
  yield* output.take();
  for await (const page of pages) {
    for (const row of page) {
      columns.forEach((column, index) => {
        const value = parquetValue(column.type, row[column.name]);
        if (value instanceof Uint8Array) bytes += value.length;
        else if (typeof value === 'string') bytes += value.length;
        group[index]!.push(value);
      });
      rows++;
      if (rows >= PARQUET_GROUP_ROWS || bytes >= PARQUET_GROUP_BYTES) {
        writeGroup();
        yield* output.take();
      }
    }
  }
  if (rows > 0) writeGroup();
  writer.finish();
  yield* output.take();
}
