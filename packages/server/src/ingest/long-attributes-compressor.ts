/**
 * Compresses the long attribute values of a request's rows (db/long-attributes.ts) on a worker
 * thread of its own, so that the request thread, which decodes every export, does not spend
 * the 20 µs a span that deflate costs (docs/performance.md, "Smaller span rows"). A request's
 * long values cross as one buffer and come back as one, both transferred, not copied. Should the
 * thread fail, rows are compressed on the request thread instead: slower, never refused.
 */
import { siblingModuleUrl, startWorker, WorkerRequests } from '@sightline/common';
import { packLongJson } from '../db/long-attributes.js';
import type { SpanRow, UncompressedSpanRow } from './span-rows.js';

/** A request's long values for the thread: UTF-8 texts back to back, and where each ends. */
export interface CompressionRequest {
  texts: ArrayBuffer;
  ends: Uint32Array;
}

/** The thread's answer: compressed values back to back, and where each ends. */
export interface CompressionResult {
  packed: ArrayBuffer;
  ends: Uint32Array;
}

export interface LongAttributesCompressor {
  /** The rows with their long values compressed (the same objects, updated). */
  compress(rows: UncompressedSpanRow[]): Promise<SpanRow[]>;
  close(): Promise<void>;
}

const workerUrl = siblingModuleUrl(import.meta.url, 'long-attributes-compressor-worker');

/** The row, its long values replaced by their compressed form (in place: rows are many, and no one else holds them). */
function compressed(row: UncompressedSpanRow, value: Buffer | null): SpanRow {
  const updated = row as unknown as SpanRow;
  updated.longAttributes = value;
  return updated;
}

/** Compresses on the calling thread (no worker, or a failed one). */
function compressHere(rows: UncompressedSpanRow[]): SpanRow[] {
  return rows.map((row) => compressed(row, row.longAttributes === null ? null : packLongJson(row.longAttributes)));
}

/** Starts the compression thread. */
export function startLongAttributesCompressor(): LongAttributesCompressor {
  const requests = new WorkerRequests(startWorker(workerUrl, null), 'the attribute compression thread stopped');
  let failed = false;
  return {
    async compress(rows) {
      const withLong = rows.filter((row) => row.longAttributes !== null);
      if (withLong.length === 0 || failed) return compressHere(rows);
      let bytes = 0;
      for (const row of withLong) bytes += row.longAttributes!.length * 3;
      const texts = Buffer.allocUnsafeSlow(bytes);
      const ends = new Uint32Array(withLong.length);
      let offset = 0;
      for (const [index, row] of withLong.entries()) {
        offset += texts.write(row.longAttributes!, offset, 'utf8');
        ends[index] = offset;
      }
      let result: CompressionResult;
      try {
        result = (await requests.request((id) => ({ id, texts: texts.buffer, ends }), [texts.buffer, ends.buffer])) as CompressionResult;
      } catch {
        failed = true;
        return compressHere(rows);
      }
      const packed = Buffer.from(result.packed);
      const values = new Map<UncompressedSpanRow, Buffer>();
      let start = 0;
      for (const [index, row] of withLong.entries()) {
        const end = result.ends[index]!;
        values.set(row, packed.subarray(start, end));
        start = end;
      }
      return rows.map((row) => compressed(row, values.get(row) ?? null));
    },
    async close() {
      if (!failed) await requests.close({ close: true });
    },
  };
}
