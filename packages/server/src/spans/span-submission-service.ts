/**
 * Spans sent as JSON in Phoenix's REST shape (phoenix-client's logSpans): checked all or
 * nothing, then mapped exactly as OTLP spans are (span-model/span-rows.ts) and written through the
 * ingest queue and writer, so span SQL stays in the writers (docs/api.md, "Creating spans").
 */
import { InvalidInputError } from '@sightline/common';
import type { SpansRepository } from '../db/repositories/spans-repository.js';
import type { AttributeValue, Attributes, DecodedSpan } from '../span-model/decoded-spans.js';
import { type SpanRow, toSpanRows } from '../span-model/span-rows.js';
import type { Identifier } from '../shared/identifier.js';
import type { ProjectsService } from '../projects/projects-service.js';
import { isoToNanos } from '../span-model/time.js';
import { SPAN_KIND } from '../span-model/conventions/attribute-names.js';

/** A span as phoenix-client sends it: Phoenix's Span, attributes under dotted keys. */
export interface SpanInput {
  id?: string | undefined;
  name: string;
  context: { trace_id: string; span_id: string };
  span_kind: string;
  parent_id?: string | null | undefined;
  start_time: string;
  end_time: string;
  status_code: string;
  status_message?: string | undefined;
  attributes?: Record<string, unknown> | undefined;
  events?: { name: string; timestamp: string; attributes?: Record<string, unknown> | undefined }[] | undefined;
}

export interface SpanSubmissionResult {
  totalReceived: number;
  totalQueued: number;
}

/** Hands rows to the ingest queue; resolves once they are committed. */
export type SubmitSpanRows = (rows: SpanRow[]) => Promise<void>;

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const STATUS: Record<string, number> = { UNSET: 0, OK: 1, ERROR: 2 };
/** Most problems one refusal lists; the counts cover the rest. */
const SHOWN = 10;

/** Nested objects under dotted keys (as OTLP attributes arrive); arrays and scalars as they are. */
function flatten(value: Record<string, unknown>, prefix = '', into: Attributes = {}): Attributes {
  for (const [key, item] of Object.entries(value)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) flatten(item as Record<string, unknown>, path, into);
    else if (item !== undefined) Object.defineProperty(into, path, { value: item as AttributeValue, enumerable: true, writable: true });
  }
  return into;
}

/** The OTLP form of one REST span; throws a message naming what is wrong. */
function decode(span: SpanInput): DecodedSpan {
  const traceId = span.context.trace_id.trim().toLowerCase();
  const spanId = span.context.span_id.trim().toLowerCase();
  if (!TRACE_ID.test(traceId)) throw new Error('context.trace_id must be 32 hex digits');
  if (!SPAN_ID.test(spanId)) throw new Error('context.span_id must be 16 hex digits');
  const parentId = span.parent_id == null || span.parent_id.trim() === '' ? null : span.parent_id.trim().toLowerCase();
  if (parentId !== null && !SPAN_ID.test(parentId)) throw new Error('parent_id must be 16 hex digits or null');
  if (span.name.trim() === '') throw new Error('name must not be blank');
  const start = isoToNanos(span.start_time);
  const end = isoToNanos(span.end_time);
  if (start === null || start < 0n) throw new Error(`start_time ${JSON.stringify(span.start_time)} is not an ISO 8601 time`);
  if (end === null || end < 0n) throw new Error(`end_time ${JSON.stringify(span.end_time)} is not an ISO 8601 time`);
  if (end < start) throw new Error('end_time is before start_time');
  const events = (span.events ?? []).map((event, index) => {
    const time = isoToNanos(event.timestamp);
    if (time === null || time < 0n)
      throw new Error(`events[${index}].timestamp ${JSON.stringify(event.timestamp)} is not an ISO 8601 time`);
    return { name: event.name, timeUnixNano: time, attributes: flatten(event.attributes ?? {}) };
  });
  // As Phoenix: span_kind is the kind attribute on the way in (unknown kinds become UNKNOWN), an unknown status is UNSET.
  const attributes = flatten(span.attributes ?? {});
  attributes[SPAN_KIND] = span.span_kind;
  return {
    traceId,
    spanId,
    parentSpanId: parentId,
    name: span.name,
    kind: 1,
    startTimeUnixNano: start,
    endTimeUnixNano: end,
    attributes,
    events,
    statusCode: STATUS[span.status_code.trim().toUpperCase()] ?? 0,
    statusMessage: span.status_message ?? '',
  };
}

export type SpanSubmissionService = ReturnType<typeof createSpanSubmissionService>;

export interface SpanSubmissionDependencies {
  spans: SpansRepository;
  projects: ProjectsService;
  submit: SubmitSpanRows;
}

export function createSpanSubmissionService({ spans, projects, submit }: SpanSubmissionDependencies) {
  return {
    /**
     * Stores the spans in the project (a Project id, or a name: created when new), all or
     * nothing: a span already stored, repeated in the request, or malformed refuses the whole
     * request (400 naming each). Resolves once the spans are committed.
     */
    async create(projectIdentifier: Identifier, input: SpanInput[]): Promise<SpanSubmissionResult> {
      const projectName =
        projectIdentifier.rowId !== null ? (await projects.resolve(projectIdentifier)).name : projectIdentifier.text.trim();
      if (projectName === '') throw new InvalidInputError('project_identifier must not be blank');
      if (input.length === 0) return { totalReceived: 0, totalQueued: 0 };

      const invalid: string[] = [];
      const decoded: DecodedSpan[] = [];
      for (const [index, span] of input.entries()) {
        try {
          decoded.push(decode(span));
        } catch (error) {
          invalid.push(`data[${index}] (span ${span.context.span_id}): ${(error as Error).message}`);
        }
      }
      const seen = new Set<string>();
      const repeated = new Set<string>();
      for (const span of decoded) {
        if (seen.has(span.spanId)) repeated.add(span.spanId);
        seen.add(span.spanId);
      }
      const stored = [...(await spans.rowidsBySpanId([...seen])).keys()];
      const duplicates = [...new Set([...stored, ...repeated])];
      if (invalid.length > 0 || duplicates.length > 0) {
        const parts: string[] = [];
        if (duplicates.length > 0) {
          const more = duplicates.length > SHOWN ? ` and ${duplicates.length - SHOWN} more` : '';
          parts.push(
            `${duplicates.length} duplicate span(s) (already stored or repeated): ${duplicates.slice(0, SHOWN).join(', ')}${more}`,
          );
        }
        if (invalid.length > 0) {
          const more = invalid.length > SHOWN ? `; and ${invalid.length - SHOWN} more` : '';
          parts.push(`${invalid.length} invalid span(s): ${invalid.slice(0, SHOWN).join('; ')}${more}`);
        }
        throw new InvalidInputError(`no span was stored: ${parts.join('; ')}`, true);
      }
      await submit(toSpanRows([{ resourceAttributes: {}, spans: decoded }], projectName));
      return { totalReceived: input.length, totalQueued: decoded.length };
    },
  };
}
