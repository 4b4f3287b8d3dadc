/** Accepts decoded OTLP exports from any transport and resolves once their spans are committed. */
import { GroupCommitQueue } from '@sightline/common';
import type { DecodedResourceSpans } from './otlp-model.js';
import { type SpanRow, toSpanRows } from './span-rows.js';
import type { SpanWriter } from './span-writer.js';

export interface IngestService {
  /** Stores the spans of an export; resolves with the number of spans after the commit. */
  ingest(resources: DecodedResourceSpans[], headerProject?: string): Promise<number>;
}

/** The span queue: one item per request, weighed by its span count. */
export type SpanQueue = GroupCommitQueue<SpanRow[]>;

export interface SpanQueueOptions {
  maxQueuedSpans: number;
  maxBatchSpans: number;
  onError?: (error: unknown) => void;
}

/** The group-commit queue in front of the span writer (docs/ingest.md, "Write path"). */
export function createSpanQueue(writer: SpanWriter, options: SpanQueueOptions): SpanQueue {
  return new GroupCommitQueue<SpanRow[]>(writer, {
    maxQueuedWeight: options.maxQueuedSpans,
    maxBatchWeight: options.maxBatchSpans,
    weigh: (rows) => rows.length,
    messages: {
      full: 'the server is busy writing earlier spans; retry later',
      failed: 'the spans could not be stored; retry later',
      closing: 'the server is shutting down',
    },
    onError: options.onError,
    // A failed batch may have cached ids of projects its rollback removed.
    beforeRetry: () => writer.forgetProjects(),
  });
}

/** An ingest service writing through the given queue. A full queue or failed write throws UnavailableError (503). */
export function createIngestService(queue: SpanQueue): IngestService {
  return {
    async ingest(resources, headerProject) {
      const rows = toSpanRows(resources, headerProject);
      await queue.enqueue(rows);
      return rows.length;
    },
  };
}
