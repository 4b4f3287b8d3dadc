/** Accepts decoded OTLP exports from any transport and resolves once their spans are committed. */
import { GroupCommitQueue, QueueFullError } from '@sightline/common';
import { type BodyAdmission, InflightBytes } from './inflight-bytes.js';
import type { DecodedResourceSpans } from '../span-model/decoded-spans.js';
import type { LongAttributesCompressor } from '../span-model/long-attributes-compressor.js';
import { type PackedSpans, packSpanRowsDeferringLong } from '../span-model/span-row-codec.js';
import { type RowOptions, type SpanRow, toSpanRows, toUncompressedSpanRows } from '../span-model/span-rows.js';
import type { QueuedSpans, DatabaseWriter } from '../db/writer/database-writer.js';

export interface IngestService {
  /** Stores the spans of an export; resolves with the number of spans after the commit. */
  ingest(resources: DecodedResourceSpans[], headerProject?: string): Promise<number>;
  /**
   * Admits a request body of `bytes` (0 when not known) before it is read; throws QueueFullError
   * (503 / RESOURCE_EXHAUSTED) when the queue has no room or the bodies in flight would pass
   * their budget. The caller releases the admission once the request is answered.
   */
  admit(bytes: number): BodyAdmission;
  /**
   * Like `admit`, for a body not read yet (OTLP/HTTP): while the span queue is full it first
   * waits, up to the queue wait, for room; the body stays unread meanwhile.
   */
  admitWhenRoom(bytes: number): Promise<BodyAdmission>;
}

export interface IngestServiceOptions {
  /** Bytes of request bodies being received and decoded at once beyond which requests are refused. */
  maxInflightBytes: number;
  /** Compresses long attribute values off the request thread; without it they are compressed here. */
  compressor?: LongAttributesCompressor | undefined;
  /**
   * False: the rows carry no search text. Only SQLite's indexer takes the words from ingest, and
   * only while full-text search is on (SERVICE_FULL_TEXT_SEARCH); PostgreSQL's search-vectors job
   * reads them from the stored spans (docs/search.md).
   */
  searchTexts?: boolean | undefined;
  /**
   * SQLite: true while the search indexer holds back (the machine being saturated): the rows then
   * carry DEFERRED_SEARCH_TEXT, and their words are cut later, from the database, not on this thread.
   */
  searchTextsHeldBack?: (() => boolean) | undefined;
}

/** The span queue: one item per request, weighed by its span count, kept as the writer prepared it. */
export interface SpanQueue {
  /** Queues one request's rows; resolves once they are committed. Throws QueueFullError when there is no room. */
  enqueue(rows: SpanRow[]): Promise<void>;
  /** True when the writer takes packed rows (SQLite's writer thread), which `enqueuePacked` then queues as they are. */
  readonly takesPacked: boolean;
  /** Like `enqueue`, for rows already packed (span-row-codec.ts); only when `takesPacked`. */
  enqueuePacked(packed: PackedSpans): Promise<void>;
  /** True when not even one more span would be accepted. */
  readonly full: boolean;
  /** Spans accepted and not yet committed. */
  readonly depth: number;
  /** Resolves when nothing is waiting or being written. */
  whenIdle(): Promise<void>;
  /** Resolves to true once the queue has room (waiting at most the queue wait), else false. */
  whenRoom(): Promise<boolean>;
  /** Stops accepting spans and waits for those accepted to be committed. */
  close(): Promise<void>;
}

export interface SpanQueueOptions {
  maxQueuedSpans: number;
  maxBatchSpans: number;
  /** How long a request waits for room in a full queue before it is refused (ms; 0 refuses at once). */
  maxWaitMs?: number;
  onError?: (error: unknown) => void;
}

const QUEUE_FULL_MESSAGE = 'the server is busy writing earlier spans; retry later';

/** The group-commit queue in front of the span writer (docs/ingest.md, "Write path"). */
export function createSpanQueue(writer: DatabaseWriter, options: SpanQueueOptions): SpanQueue {
  const queue = new GroupCommitQueue<QueuedSpans>(writer, {
    maxQueuedWeight: options.maxQueuedSpans,
    maxBatchWeight: options.maxBatchSpans,
    weigh: (item) => item.count,
    messages: {
      full: QUEUE_FULL_MESSAGE,
      failed: 'the spans could not be stored; retry later',
      closing: 'the server is shutting down',
    },
    onError: options.onError,
    // A failed batch may have cached ids of projects its rollback removed.
    beforeRetry: () => writer.forgetProjects(),
  });
  const maxWaitMs = options.maxWaitMs ?? 0;
  const enqueueItem = (item: QueuedSpans) => (maxWaitMs > 0 ? queue.enqueueWhenRoom(item, maxWaitMs) : queue.enqueue(item));
  return {
    enqueue: (rows) => enqueueItem(writer.prepare?.(rows) ?? { count: rows.length, rows }),
    takesPacked: writer.prepare !== undefined,
    enqueuePacked: (packed) => enqueueItem({ count: packed.count, packed }),
    whenRoom: () => queue.whenRoom(1, maxWaitMs),
    get full() {
      return queue.full;
    },
    get depth() {
      return queue.depth;
    },
    whenIdle: () => queue.whenIdle(),
    close: () => queue.close(),
  };
}

/** An ingest service writing through the given queue. A full queue or failed write throws UnavailableError (503). */
export function createIngestService(queue: SpanQueue, options: IngestServiceOptions): IngestService {
  const withSearchTexts: RowOptions = { searchText: options.searchTexts };
  const deferred: RowOptions = { searchText: 'deferred' };
  const heldBack = options.searchTexts ? options.searchTextsHeldBack : undefined;
  const rowOptionsNow = () => (heldBack?.() ? deferred : withSearchTexts);
  const inflight = new InflightBytes(
    options.maxInflightBytes,
    () => new QueueFullError('the server is receiving too many request bodies at once; retry later', 1),
  );
  return {
    // Not async: the rows must not stay referenced while the commit is awaited (see otlp-http-route.ts).
    ingest(resources, headerProject) {
      let count: number;
      let rows: SpanRow[] | Promise<SpanRow[]>;
      try {
        if (options.compressor && queue.takesPacked) {
          // Packed before compression, so the decoded rows die here, young, rather than live
          // through the wait for the compression thread (span-row-codec.ts).
          const { packed, texts } = packSpanRowsDeferringLong(toUncompressedSpanRows(resources, headerProject, rowOptionsNow()));
          count = packed.count;
          if (texts === null) return queue.enqueuePacked(packed).then(() => count);
          return options.compressor
            .compressTexts(texts)
            .then((long) => queue.enqueuePacked({ ...packed, long }))
            .then(() => count);
        }
        if (options.compressor) {
          const uncompressed = toUncompressedSpanRows(resources, headerProject, rowOptionsNow());
          count = uncompressed.length;
          rows = options.compressor.compress(uncompressed);
        } else {
          rows = toSpanRows(resources, headerProject, rowOptionsNow());
          count = rows.length;
        }
      } catch (error) {
        // Callers rely on a promise: a gRPC handler's .then never saw this throw, and left the call unanswered.
        return Promise.reject(error);
      }
      if (Array.isArray(rows)) return queue.enqueue(rows).then(() => count);
      return rows.then((compressed) => queue.enqueue(compressed)).then(() => count);
    },
    admit(bytes) {
      // Refused before the body is decoded: decoding it would be wasted work.
      if (queue.full) throw new QueueFullError(QUEUE_FULL_MESSAGE, 1);
      return inflight.admit(bytes);
    },
    async admitWhenRoom(bytes) {
      // Refused before the body is read, once waiting for room gave nothing.
      if (queue.full && !(await queue.whenRoom())) throw new QueueFullError(QUEUE_FULL_MESSAGE, 1);
      return inflight.admit(bytes);
    },
  };
}
