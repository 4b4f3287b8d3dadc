/**
 * One request's span rows packed into a single buffer for the SQLite writer thread (docs/ingest.md,
 * "Write path"). The request thread packs them as soon as they are decoded, so the decoded objects
 * die young instead of waiting in the queue long enough to be promoted to V8's old generation,
 * which made the server's memory grow with the load; the buffer lives outside the JavaScript heap
 * and moves to the writer thread without a copy (db/writer/database-writer.ts).
 *
 * OTLP exports are packed before their long attribute values are compressed
 * (`packSpanRowsDeferringLong`), for the same reason: the rows die before the request waits for
 * the compression thread. Their long values then travel beside the rows, in `long`.
 *
 * Layout: per row, the string and bytes fields as (uint32 byte length, bytes; UTF-8 for strings)
 * with 0xFFFFFFFF for null and 0xFFFFFFFE for a long value kept in `long`, the two times as int64,
 * and the three token counts as float64 with NaN for null.
 */
import type { SpanRow, UncompressedSpanRow } from './span-rows.js';

const NULL_LENGTH = 0xffffffff;
const DEFERRED_LENGTH = 0xfffffffe;
const STATUS_CODES = ['UNSET', 'OK', 'ERROR'] as const;

/** Values back to back in one buffer, and where each ends: long values as UTF-8 JSON text, or compressed. */
export interface ValueList {
  values: ArrayBuffer;
  ends: Uint32Array;
}

/** Rows packed for the writer thread. */
export interface PackedSpans {
  /** How many rows the buffer holds. */
  count: number;
  /** The packed rows; `bytes` of `buffer` are used. */
  buffer: ArrayBuffer;
  bytes: number;
  /** The compressed long values of the rows whose field is deferred, in row order. */
  long?: ValueList;
}

/** An export's rows packed ahead of compression, and their long values' texts for the compressor (null when none). */
export interface PackedAheadOfCompression {
  packed: PackedSpans;
  texts: ValueList | null;
}

class Writer {
  private buffer: Buffer;
  private offset = 0;

  constructor(capacity: number) {
    // Its own ArrayBuffer (never Node's shared pool), so that it can move to the thread.
    this.buffer = Buffer.allocUnsafeSlow(capacity);
  }

  private reserve(bytes: number): void {
    if (this.offset + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.buffer.length * 2, this.offset + bytes));
    this.buffer.copy(grown, 0, 0, this.offset);
    this.buffer = grown;
  }

  private null(): void {
    this.marker(NULL_LENGTH);
  }

  private marker(length: number): void {
    this.reserve(4);
    this.buffer.writeUInt32LE(length, this.offset);
    this.offset += 4;
  }

  /** A long value that travels in PackedSpans.long. */
  deferred(): void {
    this.marker(DEFERRED_LENGTH);
  }

  string(value: string | null): void {
    if (value === null) {
      this.null();
      return;
    }
    // UTF-8 takes at most three bytes per UTF-16 unit, so this always fits.
    this.reserve(4 + value.length * 3);
    const written = this.buffer.write(value, this.offset + 4, 'utf8');
    this.buffer.writeUInt32LE(written, this.offset);
    this.offset += 4 + written;
  }

  bytes(value: Uint8Array | null): void {
    if (value === null) {
      this.null();
      return;
    }
    this.reserve(4 + value.length);
    this.buffer.writeUInt32LE(value.length, this.offset);
    this.buffer.set(value, this.offset + 4);
    this.offset += 4 + value.length;
  }

  int64(value: bigint): void {
    this.reserve(8);
    this.buffer.writeBigInt64LE(value, this.offset);
    this.offset += 8;
  }

  number(value: number | null): void {
    this.reserve(8);
    this.buffer.writeDoubleLE(value ?? Number.NaN, this.offset);
    this.offset += 8;
  }

  byte(value: number): void {
    this.reserve(1);
    this.buffer[this.offset++] = value;
  }

  finish(count: number): PackedSpans {
    return { count, buffer: this.buffer.buffer as ArrayBuffer, bytes: this.offset };
  }
}

/** Writes one row; `long` writes its long-values field. */
function packRow(writer: Writer, row: Omit<SpanRow, 'longAttributes'>, long: () => void): void {
  writer.string(row.projectName);
  writer.string(row.traceId);
  writer.string(row.spanId);
  writer.string(row.parentId);
  writer.string(row.name);
  writer.string(row.spanKind);
  writer.int64(row.startTime);
  writer.int64(row.endTime);
  writer.byte(STATUS_CODES.indexOf(row.statusCode));
  writer.string(row.statusMessage);
  writer.string(row.attributes);
  long();
  writer.string(row.events);
  writer.number(row.tokenCountPrompt);
  writer.number(row.tokenCountCompletion);
  writer.number(row.tokenCountTotal);
  writer.string(row.sessionId);
  writer.string(row.userKey);
  writer.string(row.searchText);
}

/** Packs rows into one buffer of their own. */
export function packSpanRows(rows: SpanRow[]): PackedSpans {
  let estimate = 64;
  for (const row of rows)
    estimate += row.attributes.length + (row.longAttributes?.length ?? 0) + row.events.length + (row.searchText?.length ?? 0) + 256;
  const writer = new Writer(estimate);
  for (const row of rows) packRow(writer, row, () => writer.bytes(row.longAttributes));
  return writer.finish(rows.length);
}

/** Strings as UTF-8 back to back in one buffer of their own (so it can move to a thread), sized exactly. */
export function utf8ValueList(texts: readonly string[]): ValueList {
  let bytes = 0;
  for (const text of texts) bytes += Buffer.byteLength(text, 'utf8');
  const values = Buffer.allocUnsafeSlow(bytes);
  const ends = new Uint32Array(texts.length);
  let offset = 0;
  for (const [index, text] of texts.entries()) {
    offset += values.write(text, offset, 'utf8');
    ends[index] = offset;
  }
  return { values: values.buffer as ArrayBuffer, ends };
}

/**
 * Packs rows whose long values are still JSON text: the rows without them, and the texts in one
 * buffer for the compressor. Their compressed values, in the same order, go in the result's `long`.
 */
export function packSpanRowsDeferringLong(rows: UncompressedSpanRow[]): PackedAheadOfCompression {
  let estimate = 64;
  for (const row of rows) estimate += row.attributes.length + row.events.length + (row.searchText?.length ?? 0) + 256;
  const writer = new Writer(estimate);
  const longTexts: string[] = [];
  for (const row of rows) {
    packRow(writer, row, () => {
      if (row.longAttributes === null) writer.bytes(null);
      else {
        writer.deferred();
        longTexts.push(row.longAttributes);
      }
    });
  }
  // Sized exactly, rather than three bytes per UTF-16 unit: the buffer is in flight until compressed.
  return { packed: writer.finish(rows.length), texts: longTexts.length === 0 ? null : utf8ValueList(longTexts) };
}

/** Unpacks what packSpanRows packed. */
export function unpackSpanRows(packed: PackedSpans): SpanRow[] {
  const buffer = Buffer.from(packed.buffer, 0, packed.bytes);
  let offset = 0;
  const long = packed.long === undefined ? null : Buffer.from(packed.long.values);
  const longEnds = packed.long?.ends ?? new Uint32Array(0);
  let longIndex = 0;
  let longStart = 0;
  /** The next value of `long`, for a deferred field. */
  const nextLong = (): Buffer => {
    if (long === null || longIndex >= longEnds.length) throw new Error('packed spans: a deferred long value is missing');
    const end = longEnds[longIndex++]!;
    const value = long.subarray(longStart, end);
    longStart = end;
    return value;
  };
  // A view into the request's buffer, not a copy: the writer thread has no time to spare, and the
  // rows live no longer than the buffer (until their commit).
  const bytes = (): Buffer | null => {
    const length = buffer.readUInt32LE(offset);
    offset += 4;
    if (length === NULL_LENGTH) return null;
    if (length === DEFERRED_LENGTH) return nextLong();
    const value = buffer.subarray(offset, offset + length);
    offset += length;
    return value;
  };
  // Decoded in place rather than through bytes(): no view object per field on the writer thread.
  const string = (): string | null => {
    const length = buffer.readUInt32LE(offset);
    offset += 4;
    if (length === NULL_LENGTH) return null;
    const value = buffer.toString('utf8', offset, offset + length);
    offset += length;
    return value;
  };
  const text = (): string => string() ?? '';
  const int64 = (): bigint => {
    const value = buffer.readBigInt64LE(offset);
    offset += 8;
    return value;
  };
  const number = (): number | null => {
    const value = buffer.readDoubleLE(offset);
    offset += 8;
    return Number.isNaN(value) ? null : value;
  };
  const rows: SpanRow[] = new Array(packed.count);
  for (let index = 0; index < packed.count; index++) {
    const projectName = text();
    const traceId = text();
    const spanId = text();
    const parentId = string();
    const name = text();
    const spanKind = text();
    const startTime = int64();
    const endTime = int64();
    const statusCode = STATUS_CODES[buffer[offset++]!]!;
    rows[index] = {
      projectName,
      traceId,
      spanId,
      parentId,
      name,
      spanKind,
      startTime,
      endTime,
      statusCode,
      statusMessage: text(),
      attributes: text(),
      longAttributes: bytes(),
      events: text(),
      tokenCountPrompt: number(),
      tokenCountCompletion: number(),
      tokenCountTotal: number(),
      sessionId: string(),
      userKey: string(),
      searchText: string(),
    };
  }
  return rows;
}
