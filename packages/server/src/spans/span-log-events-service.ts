/**
 * OTLP log records as events of spans (docs/ingest.md, "Logs"). An export's records that name a
 * span are kept, durably, before the export is answered; the `span-log-events` job then moves
 * each onto its span once the span exists (it may arrive before or after, through another
 * replica), where GenAI event records also give the span its messages
 * (span-model/conventions). Records that name no span are refused, counted in the answer.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { WithTransaction } from '../db/repositories/index.js';
import type {
  AttachableLogEvent,
  NewSpanLogEvent,
  SpanEventsUpdate,
  SpanLogEventsRepository,
} from '../db/repositories/span-log-events-repository.js';
import type { SqliteSpanLogEventsWriter } from '../db/writer/database-writer.js';
import type { Job } from '../jobs/job-runner.js';
import { SPAN_KIND } from '../span-model/conventions/attribute-names.js';
import { addOpenInferenceAttributes } from '../span-model/conventions/openinference-mapping.js';
import type { Attributes } from '../span-model/decoded-spans.js';
import { type DecodedResourceLogs, spanEventOf } from '../span-model/log-records.js';
import { mergeAttributes, storeAttributes } from '../span-model/long-attributes.js';
import { SPAN_KINDS } from '../span-model/span-rows.js';
import { nanosToIso } from '../span-model/time.js';

export const SPAN_LOG_EVENTS_JOB = 'span-log-events';

/** What an export of log records came to. */
export interface LogsIngestResult {
  accepted: number;
  /** Records refused: they name no span. */
  rejected: number;
  /** Why, for the export's partial-success answer; '' when none was refused. */
  message: string;
}

export interface SpanLogEventsService {
  /** Keeps the records that name a span; resolves once they are committed. */
  ingest(resources: DecodedResourceLogs[]): Promise<LogsIngestResult>;
  /** The job that moves kept records onto their spans. */
  job: Job;
}

export interface SpanLogEventsOptions {
  repository: SpanLogEventsRepository;
  withTransaction: WithTransaction;
  /** SQLite: the writer thread's writes; without it (PostgreSQL) each write is a transaction of its own. */
  writer?: SqliteSpanLogEventsWriter | undefined;
  /** Called once records are kept (the server runs the job at once). */
  onStored?: () => void;
  /** How long a record waits for its span before it is dropped (default 10 minutes). */
  maxWaitMs?: number;
  /** Records moved per run. */
  batch?: number;
  now?: () => number;
}

const KNOWN_KINDS: ReadonlySet<string> = new Set(SPAN_KINDS);
/** Spans rewritten between two yields to the event loop (each is a decompression and a compression). */
const SPANS_PER_SLICE = 50;

/** A stored span event (span-rows.ts writes the same shape). */
interface StoredEvent {
  name: string;
  timestamp: string;
  attributes: Record<string, unknown>;
}

/** The span's new row: its events with the records', and the attributes the records' messages add. */
function attachedSpan(records: AttachableLogEvent[]): SpanEventsUpdate {
  const [first] = records as [AttachableLogEvent];
  const attributes = mergeAttributes(first.spanAttributes, first.spanLongAttributes) as Attributes;
  const events: StoredEvent[] = [
    ...(first.spanEvents as StoredEvent[]),
    ...records.map((record) => ({ name: record.name, timestamp: nanosToIso(BigInt(record.time)), attributes: record.attributes })),
  ];
  // Times are fixed-width ISO text with nanoseconds: ordered as text, ordered in time.
  events.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
  const kindBefore = attributes[SPAN_KIND];
  addOpenInferenceAttributes(
    attributes,
    events.map((event) => ({ name: event.name, attributes: event.attributes as Attributes })),
    { remap: true },
  );
  const kind = attributes[SPAN_KIND];
  const stored = storeAttributes(attributes);
  return {
    spanRowid: first.spanRowid,
    spanStartTime: first.spanStartTime,
    // A span of no known kind takes the one its messages show (an LLM call's).
    spanKind:
      first.spanKind === 'UNKNOWN' && kind !== kindBefore && typeof kind === 'string' && KNOWN_KINDS.has(kind) ? kind : first.spanKind,
    attributes: stored.json,
    longAttributes: stored.long,
    events: JSON.stringify(events),
  };
}

export function createSpanLogEventsService({
  repository,
  withTransaction,
  writer,
  onStored,
  maxWaitMs = 10 * 60_000,
  batch = 500,
  now = Date.now,
}: SpanLogEventsOptions): SpanLogEventsService {
  const ingest = async (resources: DecodedResourceLogs[]): Promise<LogsIngestResult> => {
    let rejected = 0;
    const kept: NewSpanLogEvent[] = [];
    for (const resource of resources) {
      for (const record of resource.records) {
        const event = spanEventOf(record);
        if (event === null) rejected++;
        else {
          kept.push({
            traceId: event.traceId,
            spanId: event.spanId,
            name: event.name,
            time: String(event.timeUnixNano),
            attributes: JSON.stringify(event.attributes),
          });
        }
      }
    }
    if (kept.length > 0) {
      const receivedAt = new Date(now()).toISOString();
      if (writer) await writer.store(kept, receivedAt);
      else await withTransaction((trx) => trx.spanLogEvents.insert(kept, receivedAt));
      onStored?.();
    }
    return {
      accepted: kept.length,
      rejected,
      message:
        rejected === 0
          ? ''
          : `${rejected} log record${rejected === 1 ? '' : 's'} named no span (trace and span id): Sightline keeps log records only as events of spans`,
    };
  };

  const run = async (signal: AbortSignal) => {
    const records = await repository.attachable(batch);
    const bySpan = new Map<number, AttachableLogEvent[]>();
    for (const record of records) {
      const list = bySpan.get(record.spanRowid);
      if (list) list.push(record);
      else bySpan.set(record.spanRowid, [record]);
    }
    const updates: SpanEventsUpdate[] = [];
    for (const spanRecords of bySpan.values()) {
      if (signal.aborted) return 'idle' as const;
      if (updates.length > 0 && updates.length % SPANS_PER_SLICE === 0) await yieldToEventLoop();
      updates.push(attachedSpan(spanRecords));
    }
    const ids = records.map((record) => record.id);
    const expireBefore = new Date(now() - maxWaitMs).toISOString();
    if (writer) await writer.attach(updates, ids, expireBefore);
    else await withTransaction((trx) => trx.spanLogEvents.attach(updates, ids, expireBefore));
    return records.length === batch ? ('more' as const) : ('idle' as const);
  };

  return {
    ingest,
    job: {
      name: SPAN_LOG_EVENTS_JOB,
      description: 'Moves OTLP log records onto the spans they name, as events and messages (docs/ingest.md, "Logs").',
      intervalMs: 1000,
      run,
    },
  };
}
