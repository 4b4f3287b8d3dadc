/**
 * Converts the spans written before migration 0019 to the stored form of span-model/long-attributes.ts, in
 * the background after start-up (the migration says why not in it): in id order up to the newest
 * row that existed when the migration ran, a batch at a time, each batch one short transaction
 * that also records how far the job has come, so a restart resumes where it stopped. Like the
 * retention job, each batch waits for ingest to fall idle (or a second at most) and the job then
 * pauses as long as the batch took, so it takes at most half of the writer's time. Compression
 * runs here, on the main thread; on SQLite the writer thread only stores the rows.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { ConvertedSpan, LongAttributesRepository } from '../db/repositories/long-attributes-repository.js';
import type { WithTransaction } from '../db/repositories/index.js';
import { storeAttributes } from '../span-model/long-attributes.js';
import { type IngestIdle, waitForIdleIngest } from './idle-ingest.js';
import type { Job } from './job-runner.js';

/** Where the converted rows go on SQLite: the database writer thread (db/writer/database-writer.ts). */
export interface LongAttributesWriter {
  store(spans: ConvertedSpan[], done: number): Promise<void>;
}

export interface LongAttributesJobOptions {
  repository: LongAttributesRepository;
  withTransaction: WithTransaction;
  /** SQLite: the writer thread's store; without it (PostgreSQL) each batch is a transaction of its own. */
  writer?: LongAttributesWriter | undefined;
  /** Spans read per batch. */
  batchSpans?: number;
  /** Resolves when ingest has nothing waiting or being written; each batch waits for it, up to `maxIdleWaitMs`. */
  ingestIdle?: IngestIdle;
  maxIdleWaitMs?: number;
  /** Pause before the first batch (ms). */
  delayMs?: number;
  /** Called after each batch with the progress (the server logs it at debug level), and once at the end. */
  onProgress?: (progress: LongAttributesProgress) => void;
}

/** How far the conversion has come. */
export interface LongAttributesProgress {
  /** Row id up to which every span is converted. */
  done: number;
  /** Row id of the newest span that may need it. */
  last: number;
  /** Spans rewritten by the batch just run. */
  converted: number;
  finished: boolean;
}

export interface LongAttributesJob extends Job {
  /** Resolves when every span that needed it is converted (or the job was stopped). */
  finished(): Promise<void>;
}

/** Spans compressed between two yields to the event loop. */
const COMPRESS_SLICE = 50;

/** The conversion, for the job runner (jobs/job-runner.ts): it ends by itself when there is nothing (left) to convert. */
export function createLongAttributesJob({
  repository,
  withTransaction,
  writer,
  batchSpans = 200,
  ingestIdle,
  maxIdleWaitMs = 1000,
  delayMs = 1000,
  onProgress,
}: LongAttributesJobOptions): LongAttributesJob {
  let wake: (() => void) | null = null;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  /** Converts the next batch; resolves to the progress after it. */
  const batch = async (): Promise<LongAttributesProgress> => {
    const { last, done } = await repository.progress();
    if (done >= last) return { done, last, converted: 0, finished: true };
    await waitForIdleIngest(ingestIdle, maxIdleWaitMs);
    const spans = await repository.unconverted(done, last, batchSpans);
    const converted: ConvertedSpan[] = [];
    for (const [index, span] of spans.entries()) {
      // About 40 µs a span: a batch in one go would hold requests up for 20 ms.
      if (index > 0 && index % COMPRESS_SLICE === 0) await yieldToEventLoop();
      const stored = storeAttributes(span.attributes);
      // A span without long values stays as it is: its JSON column already has the stored form.
      if (stored.long !== null) converted.push({ id: span.id, attributes: stored.json, longAttributes: stored.long });
    }
    const next = spans.length < batchSpans ? last : spans.at(-1)!.id;
    if (writer) await writer.store(converted, next);
    else await withTransaction((trx) => trx.longAttributes.store(converted, next));
    return { done: next, last, converted: converted.length, finished: next >= last };
  };

  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));

  return {
    name: 'long-attributes-conversion',
    description: 'Converts the spans stored before long attribute values were compressed, then ends (docs/ingest.md).',
    intervalMs: delayMs,
    finished: () => finished,
    stop() {
      wake?.();
      finish();
    },
    async run(signal) {
      if (signal.aborted) return 'idle';
      const started = performance.now();
      const progress = await batch();
      onProgress?.(progress);
      if (progress.finished) {
        finish();
        return 'finished';
      }
      // Half the time at most: as long a pause as the batch took.
      if (!signal.aborted) await pause(Math.max(5, performance.now() - started));
      return 'more';
    },
  };
}
