/** Maps decoded OTLP spans to the rows Sightline stores (project, OpenInference kind, token counts). */
import { InvalidInputError } from '@sightline/common';
import {
  LLM_MODEL_NAME,
  LLM_TOKEN_COUNT_COMPLETION,
  LLM_TOKEN_COUNT_PROMPT,
  LLM_TOKEN_COUNT_TOTAL,
  PROJECT_NAME,
  SESSION_ID,
  SPAN_KIND,
} from './conventions/attribute-names.js';
import { addOpenInferenceAttributes } from './conventions/openinference-mapping.js';
import { packLongJson, splitAttributes } from './long-attributes.js';
import { USER_ID_ATTRIBUTE, userKeyOf } from './trace-users.js';
import { DEFERRED_SEARCH_TEXT, searchTextOf } from './search-text.js';
import type { AttributeValue, Attributes, DecodedResourceSpans } from './decoded-spans.js';
import { nanosToIso } from './time.js';

/** A span ready for storage; `projectName` is resolved to a project id by the writer. */
export interface SpanRow {
  projectName: string;
  traceId: string;
  spanId: string;
  parentId: string | null;
  name: string;
  spanKind: string;
  startTime: bigint;
  endTime: bigint;
  statusCode: 'UNSET' | 'OK' | 'ERROR';
  statusMessage: string;
  /** JSON object with the span's short attributes under their dotted OTel keys (span-model/long-attributes.ts). */
  attributes: string;
  /** The long attribute values, compressed (span-model/long-attributes.ts); null when the span has none. */
  longAttributes: Buffer | null;
  /** JSON array of `{name, timestamp, attributes}`. */
  events: string;
  tokenCountPrompt: number | null;
  tokenCountCompletion: number | null;
  tokenCountTotal: number | null;
  /** The `session.id` attribute (docs/sessions.md), or null when the span carries none. */
  sessionId: string | null;
  /** The key of the `user.id` attribute for its trace (span-model/trace-users.ts), or null when the span carries none. */
  userKey: string | null;
  /** The text whose words full-text search finds (span-model/search-text.ts searchTextOf), or null when the span has none. */
  searchText: string | null;
  /** The `llm.model_name` attribute, the model dashboards group by (docs/dashboards.md), or null. */
  modelName: string | null;
}

/**
 * A row whose long attribute values are still their JSON text, to be compressed off the request
 * thread (long-attributes-compressor.ts).
 */
export interface UncompressedSpanRow extends Omit<SpanRow, 'longAttributes'> {
  longAttributes: string | null;
}

export const DEFAULT_PROJECT_NAME = 'default';

/** The OpenInference span kinds, plus UNKNOWN for spans that carry none. */
export const SPAN_KINDS = [
  'LLM',
  'CHAIN',
  'TOOL',
  'RETRIEVER',
  'RERANKER',
  'EMBEDDING',
  'AGENT',
  'GUARDRAIL',
  'EVALUATOR',
  'PROMPT',
  'UNKNOWN',
] as const;
const KNOWN_KINDS: ReadonlySet<string> = new Set(SPAN_KINDS);

const STATUS_CODES = ['UNSET', 'OK', 'ERROR'] as const;

/**
 * Project of a resource's spans: the `x-project-name` header, else the resource attribute
 * `openinference.project.name`, else `service.name`, else "default".
 */
export function projectNameFor(resourceAttributes: Attributes, headerProject: string | undefined): string {
  const candidates: unknown[] = [headerProject, resourceAttributes[PROJECT_NAME], resourceAttributes['service.name']];
  for (const candidate of candidates) {
    if (typeof candidate === 'string' && candidate.trim() !== '') return candidate.trim();
  }
  return DEFAULT_PROJECT_NAME;
}

/**
 * The latest span time a BIGINT column holds (2262-04-11T23:47:16.854775807Z). OTLP times are
 * unsigned 64-bit, so a later one decodes fine but failed its write: a 503 the exporter retried for
 * ever, and a failed batch for the requests beside it (found by the ingest fuzzer).
 */
export const MAX_SPAN_NANOS = 2n ** 63n - 1n;

/** Turns a decoded export into rows, in the order received, compressing on the calling thread; 400 for a span time beyond MAX_SPAN_NANOS. */
export function toSpanRows(resources: DecodedResourceSpans[], headerProject?: string, options: RowOptions = {}): SpanRow[] {
  return mapSpans(resources, headerProject, packLongJson, options);
}

/** As toSpanRows, leaving the long attribute values as JSON text for long-attributes-compressor.ts. */
export function toUncompressedSpanRows(
  resources: DecodedResourceSpans[],
  headerProject?: string,
  options: RowOptions = {},
): UncompressedSpanRow[] {
  return mapSpans(resources, headerProject, (json) => json, options);
}

export interface RowOptions {
  /**
   * False: the rows carry no words for full-text search (SERVICE_FULL_TEXT_SEARCH, docs/search.md);
   * 'deferred': they carry DEFERRED_SEARCH_TEXT, their words to be read from the database later.
   */
  searchText?: boolean | 'deferred' | undefined;
}

function mapSpans<L>(
  resources: DecodedResourceSpans[],
  headerProject: string | undefined,
  long: (json: string) => L,
  options: RowOptions,
): (Omit<SpanRow, 'longAttributes'> & { longAttributes: L | null })[] {
  const searchMode = options.searchText ?? true;
  const rows: (Omit<SpanRow, 'longAttributes'> & { longAttributes: L | null })[] = [];
  for (const resource of resources) {
    const projectName = projectNameFor(resource.resourceAttributes, headerProject);
    for (const span of resource.spans) {
      if (span.startTimeUnixNano > MAX_SPAN_NANOS || span.endTimeUnixNano > MAX_SPAN_NANOS) {
        throw new InvalidInputError(
          `span ${span.spanId}: start and end times must be before 2262-04-12 (${MAX_SPAN_NANOS} nanoseconds since 1970)`,
          true,
        );
      }
      // GenAI and Vercel AI SDK spans gain the OpenInference attributes everything else reads
      // (added to the decoded span in place: it is this function's to consume).
      const spanAttributes = span.attributes;
      // A mapped span's token counts may be kept in the row's columns only (conventions/openinference-mapping.ts).
      const tokens = addOpenInferenceAttributes(spanAttributes, span.events)?.tokens;
      const spanKind = openInferenceKind(spanAttributes[SPAN_KIND]);
      // Like Phoenix, only LLM spans carry token counts, so sums over a trace count each call once.
      const isLlm = spanKind === 'LLM';
      const prompt = isLlm ? tokenCount(tokens ? tokens.prompt : spanAttributes[LLM_TOKEN_COUNT_PROMPT]) : null;
      const completion = isLlm ? tokenCount(tokens ? tokens.completion : spanAttributes[LLM_TOKEN_COUNT_COMPLETION]) : null;
      const total = isLlm
        ? (tokenCount(tokens ? tokens.total : spanAttributes[LLM_TOKEN_COUNT_TOTAL]) ?? sumOrNull(prompt, completion))
        : null;
      const searchText = searchMode === true ? searchTextOf(spanAttributes) : searchMode === 'deferred' ? DEFERRED_SEARCH_TEXT : null;
      const attributes = splitAttributes(spanAttributes);
      rows.push({
        projectName,
        traceId: span.traceId,
        spanId: span.spanId,
        parentId: span.parentSpanId,
        name: span.name,
        spanKind,
        startTime: span.startTimeUnixNano,
        // biome-ignore lint/complexity/useMathMinMax: the times are bigint nanoseconds, which Math.max does not take
        endTime: span.endTimeUnixNano < span.startTimeUnixNano ? span.startTimeUnixNano : span.endTimeUnixNano,
        statusCode: STATUS_CODES[span.statusCode] ?? 'UNSET',
        statusMessage: span.statusMessage,
        attributes: attributes.json,
        longAttributes: attributes.long === null ? null : long(attributes.long),
        events: JSON.stringify(
          span.events.map((event) => ({ name: event.name, timestamp: nanosToIso(event.timeUnixNano), attributes: event.attributes })),
        ),
        tokenCountPrompt: prompt,
        tokenCountCompletion: completion,
        tokenCountTotal: total,
        sessionId: sessionIdOf(spanAttributes[SESSION_ID]),
        userKey: userKeyOf(spanAttributes[USER_ID_ATTRIBUTE]),
        searchText,
        modelName: modelNameOf(spanAttributes[LLM_MODEL_NAME]),
      });
    }
  }
  return rows;
}

/** Most characters of a session id kept; longer ids are not sessions anyone types or reads. */
const MAX_SESSION_ID_LENGTH = 512;

/** A string or number `session.id` as text; blank, over-long or other values name no session. */
function sessionIdOf(value: AttributeValue | undefined): string | null {
  const text = typeof value === 'string' ? value.trim() : typeof value === 'number' && Number.isFinite(value) ? String(value) : '';
  return text === '' || text.length > MAX_SESSION_ID_LENGTH ? null : text;
}

/** Most characters of a model name kept in the rollups' key; longer is not a model name. */
const MAX_MODEL_NAME_LENGTH = 256;

/** A span's llm.model_name as the dashboards' rollups key it (docs/dashboards.md): trimmed, at most 256 characters, null when blank. */
export function modelNameOf(value: unknown): string | null {
  const text = typeof value === 'string' ? value.trim() : '';
  return text === '' ? null : text.slice(0, MAX_MODEL_NAME_LENGTH);
}

function openInferenceKind(value: AttributeValue | undefined): string {
  if (typeof value !== 'string') return 'UNKNOWN';
  const upper = value.trim().toUpperCase();
  return KNOWN_KINDS.has(upper) ? upper : 'UNKNOWN';
}

function tokenCount(value: AttributeValue | undefined): number | null {
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isSafeInteger(number) && number >= 0 ? number : null;
}

function sumOrNull(a: number | null, b: number | null): number | null {
  return a === null && b === null ? null : (a ?? 0) + (b ?? 0);
}
