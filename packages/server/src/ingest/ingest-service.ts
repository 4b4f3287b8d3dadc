/** Accepts decoded OTLP exports from any transport and resolves once their spans are committed. */
import type { DecodedResourceSpans } from './otlp-model.js';
import { toSpanRows } from './span-rows.js';
import type { WriteQueue } from './write-queue.js';

export interface IngestService {
  /** Stores the spans of an export; resolves with the number of spans after the commit. */
  ingest(resources: DecodedResourceSpans[], headerProject?: string): Promise<number>;
}

/** An ingest service writing through the given queue. */
export function createIngestService(queue: WriteQueue): IngestService {
  return {
    async ingest(resources, headerProject) {
      const rows = toSpanRows(resources, headerProject);
      await queue.enqueue(rows);
      return rows.length;
    },
  };
}
