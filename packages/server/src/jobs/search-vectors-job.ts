/**
 * PostgreSQL's search indexer (docs/search.md, "PostgreSQL"): reads the spans ingest noted as
 * pending, cuts their texts into words and stores them in the GIN-indexed table, a batch at a
 * time, a moment after the spans were stored. Ingest only notes which spans it stored; reading
 * their texts, the words' and the index's work happen here, off the span writer's transactions
 * (docs/performance.md, "PostgreSQL's index behind ingest").
 *
 * While ingest is busy and more than a batch of spans is pending, the job yields the machine to it:
 * after each batch it pauses nine times as long as the batch took, unless ingest falls idle
 * first, so it takes at most a tenth of the time of a saturated ingest. Below saturation the span
 * queue falls idle between batches and the job keeps up. The notes are on disk, so falling behind
 * during a burst costs no memory; the job catches up at full speed once ingest pauses. SQLite's
 * indexer runs at the lowest CPU priority for the same reason.
 *
 * Once nothing is pending, and at most hourly, the job also gathers the words' statistics, which
 * tell searches which words are common (search-sql.ts).
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { tsVectorText } from '../db/repositories/search-sql.js';
import type { PendingSpan, SearchVectorsRepository } from '../db/repositories/search-vectors-repository.js';
import type { Attributes } from '../span-model/decoded-spans.js';
import { mergeAttributes } from '../span-model/long-attributes.js';
import { searchTextOf } from '../span-model/search-text.js';
import { type IngestIdle, waitForIdleIngest } from './idle-ingest.js';
import type { Job } from './job-runner.js';

export const SEARCH_VECTORS_JOB = 'search-vectors';

/** Spans indexed per transaction. */
export const SEARCH_VECTORS_BATCH = 1_000;
/** Pause when nothing is pending (ms): a search finds a span about this long after its ingest. */
export const SEARCH_VECTORS_INTERVAL_MS = 250;
/** While ingest is busy, the pause after a full batch, in multiples of the batch's time. */
const BUSY_PAUSE_FACTOR = 9;
/** How often the words' statistics are gathered again, once nothing is pending (ms). */
export const SEARCH_VECTORS_ANALYZE_MS = 60 * 60_000;
/** Spans read and cut between two yields to the event loop: a few ms of work (40-80 µs a span). */
const SPANS_PER_SLICE = 50;

/** A span's tsvector text, or null when it has no words; a span whose attributes cannot be read has none either. */
function vectorOf(span: PendingSpan): string | null {
  try {
    const text = searchTextOf(mergeAttributes(span.attributes, span.longAttributes) as Attributes);
    return text === null ? null : tsVectorText(text);
  } catch {
    // Its own pages report a span that cannot be read.
    return null;
  }
}

/** The tsvector texts of stored spans, a slice at a time, yielding to requests in between. */
export async function searchVectorsOf(spans: PendingSpan[]): Promise<(string | null)[]> {
  const vectors: (string | null)[] = [];
  for (let start = 0; start < spans.length; start += SPANS_PER_SLICE) {
    if (start > 0) await yieldToEventLoop();
    for (const span of spans.slice(start, start + SPANS_PER_SLICE)) vectors.push(vectorOf(span));
  }
  return vectors;
}

/** Indexes every pending span, at full speed: for bulk loaders with no server running, as SQLite's DirectSearchIndex. */
export async function indexAllQueued(repository: SearchVectorsRepository): Promise<void> {
  while ((await repository.indexQueued(SEARCH_VECTORS_BATCH, searchVectorsOf)) > 0);
}

export interface SearchVectorsJobOptions {
  /** Resolves when the span queue has nothing waiting or being written. */
  ingestIdle?: IngestIdle | undefined;
  batch?: number;
  intervalMs?: number;
  analyzeEveryMs?: number;
  now?: () => number;
}

export function createSearchVectorsJob(
  repository: SearchVectorsRepository,
  {
    ingestIdle,
    batch = SEARCH_VECTORS_BATCH,
    intervalMs = SEARCH_VECTORS_INTERVAL_MS,
    analyzeEveryMs = SEARCH_VECTORS_ANALYZE_MS,
    now = Date.now,
  }: SearchVectorsJobOptions = {},
): Job {
  /** When the statistics are due again; read from PostgreSQL on the first idle run (another replica may have gathered them). */
  let analyzeDue: number | null = null;
  const analyzeIfDue = async () => {
    analyzeDue ??= ((await repository.lastAnalyzed())?.getTime() ?? Number.NEGATIVE_INFINITY) + analyzeEveryMs;
    if (now() < analyzeDue) return;
    await repository.analyze();
    analyzeDue = now() + analyzeEveryMs;
  };
  return {
    name: SEARCH_VECTORS_JOB,
    description: 'Indexes the words of spans just stored for full-text search (PostgreSQL; docs/search.md).',
    intervalMs,
    firstDelayMs: 0,
    run: async () => {
      const started = performance.now();
      if ((await repository.indexQueued(batch, searchVectorsOf)) < batch) {
        await analyzeIfDue();
        return 'idle';
      }
      await waitForIdleIngest(ingestIdle, (performance.now() - started) * BUSY_PAUSE_FACTOR);
      return 'more';
    },
  };
}
