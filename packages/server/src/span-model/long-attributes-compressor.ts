/**
 * Compresses the long attribute values of a request's rows (span-model/long-attributes.ts) on a worker
 * thread of its own, so that the request thread, which decodes every export, does not spend
 * the 20 µs a span that deflate costs (docs/performance.md, "Smaller span rows"). A request's
 * long values cross as one buffer and come back as one, both transferred, not copied. Should the
 * thread fail, values are compressed on the request thread instead: slower, and only the
 * requests the thread held when it stopped are refused (503), their texts gone with it.
 *
 * On SQLite the same thread runs the WAL checkpoints (common/sqlite-checkpointer.ts) rather than
 * a thread of their own, which cost about 9 MB of RSS; a checkpoint delays the compressions
 * queued behind it, not the writer (docs/ingest.md, "Write path").
 */
import { StorageError, siblingModuleUrl, startWorker, WorkerRequests } from '@sightline/common';
import { packLongJson, packLongJsonList } from './long-attributes.js';
import { utf8ValueList, type ValueList } from './span-row-codec.js';
import type { SpanRow, UncompressedSpanRow } from './span-rows.js';

export interface LongAttributesCompressor {
  /** The rows with their long values compressed (the same objects, updated). */
  compress(rows: UncompressedSpanRow[]): Promise<SpanRow[]>;
  /** Compresses each UTF-8 JSON text of `texts` (whose buffer moves to the thread: do not use it after). */
  compressTexts(texts: ValueList): Promise<ValueList>;
  close(): Promise<void>;
}

const workerUrl = siblingModuleUrl(import.meta.url, 'long-attributes-compressor-worker');

/**
 * The thread's young generation: V8 grew it to 8 MB under load, for objects that die at once
 * (each request's parts). At 4 MB peak RSS under bench:ingest was about 8 MB lower, throughput
 * within the spread; at 2 MB, lower in three pairs of three (docs/performance.md, "Memory").
 */
const COMPRESSOR_THREAD_LIMITS = { maxYoungGenerationSizeMb: 4 };

/** What the compression thread is started with. */
export interface CompressorThreadData {
  /** The SQLite file whose WAL the thread checkpoints, if any. */
  walFile?: string;
}

/** What the compression thread posts besides replies: a failed checkpoint. */
export interface CheckpointFailure {
  checkpointError: string;
}

export interface CompressorOptions {
  /** SQLite: checkpoint this database's WAL on the thread too; `onError` hears each failure. */
  walCheckpoints?: { file: string; onError: (message: string) => void };
  /** Hears of a thread that stopped by itself (compression goes on here, checkpoints do not). */
  onStopped?: (error: Error) => void;
}

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
export function startLongAttributesCompressor({ walCheckpoints, onStopped }: CompressorOptions = {}): LongAttributesCompressor {
  const worker = startWorker(workerUrl, { walFile: walCheckpoints?.file } satisfies CompressorThreadData, COMPRESSOR_THREAD_LIMITS);
  if (walCheckpoints !== undefined) {
    worker.on('message', (message: Partial<CheckpointFailure>) => {
      if (message.checkpointError !== undefined) walCheckpoints.onError(message.checkpointError);
    });
  }
  const requests = new WorkerRequests(worker, 'the attribute compression thread stopped', onStopped);
  let failed = false;
  const compressTexts = async (texts: ValueList): Promise<ValueList> => {
    if (failed) return packLongJsonList(texts);
    try {
      return (await requests.request((id) => ({ id, ...texts }), [texts.values, texts.ends.buffer as ArrayBuffer])) as ValueList;
    } catch {
      failed = true;
      // A thread that had stopped before this request kept nothing of it; one that stopped while
      // holding the texts took them along (they moved, not copied), and the client sends them again.
      if (texts.values.byteLength > 0) return packLongJsonList(texts);
      throw new StorageError('the attribute compression thread stopped; retry later', 1);
    }
  };
  return {
    compressTexts,
    async compress(rows) {
      const withLong = rows.filter((row) => row.longAttributes !== null);
      if (withLong.length === 0 || failed) return compressHere(rows);
      let result: ValueList;
      try {
        result = await compressTexts(utf8ValueList(withLong.map((row) => row.longAttributes!)));
      } catch {
        return compressHere(rows);
      }
      const packed = Buffer.from(result.values);
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
