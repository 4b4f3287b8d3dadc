/**
 * Spans that follow OpenTelemetry's GenAI conventions or the Vercel AI SDK's telemetry, mapped at
 * ingest to the OpenInference attributes every page, filter, cost and evaluator reads
 * (docs/ingest.md, "Conventions"). The span keeps its own attributes; the mapping only adds the
 * OpenInference ones it lacks. OpenInference spans, and spans of neither convention, are left as
 * they are after one look at their keys.
 *
 * The mappings themselves are OpenInference's own packages (`@arizeai/openinference-genai` for
 * `gen_ai.*`, `@arizeai/openinference-vercel` for `ai.*`: what Phoenix uses); this module adds
 * what they leave out: the conventions before 1.37 (`gen_ai.system`, the indexed prompt and
 * completion, the message events), `gen_ai.conversation.id` as the session, and the AI SDK's
 * `userId`/`sessionId` metadata as user and session.
 */
import { convertGenAISpanAttributesToOpenInferenceSpanAttributes as convertGenAI } from '@arizeai/openinference-genai';
import {
  mapAgentAttributes,
  mapModels,
  mapProviderAndSystem,
  mapSpanKind,
  mapTokenCounts,
  mapToolExecution,
} from '@arizeai/openinference-genai/attributes';
import { safelyGetOpenInferenceAttributes as convertVercel } from '@arizeai/openinference-vercel/utils';
import type { AttributeValue, Attributes } from '../decoded-spans.js';
import {
  GEN_AI_CONVERSATION_ID,
  GEN_AI_INPUT_MESSAGES,
  GEN_AI_OUTPUT_MESSAGES,
  GEN_AI_OPERATION_DETAILS_EVENT,
  GEN_AI_COMPLETION_PREFIX,
  GEN_AI_PREFIX,
  GEN_AI_PROMPT_PREFIX,
  GEN_AI_PROVIDER_NAME,
  GEN_AI_SYSTEM,
  GEN_AI_USAGE_REASONING_TOKENS,
  INPUT_MIME_TYPE,
  INPUT_VALUE,
  AGENT_NAME,
  LLM_INPUT_MESSAGES,
  LLM_MODEL_NAME,
  LLM_OUTPUT_MESSAGES,
  LLM_PROVIDER,
  LLM_SYSTEM,
  LLM_TOKEN_COUNT_CACHE_READ,
  LLM_TOKEN_COUNT_CACHE_WRITE,
  LLM_TOKEN_COUNT_COMPLETION,
  LLM_TOKEN_COUNT_PROMPT,
  LLM_TOKEN_COUNT_REASONING,
  LLM_TOKEN_COUNT_TOTAL,
  OpenInferenceSpanKind,
  OUTPUT_MIME_TYPE,
  OUTPUT_VALUE,
  SESSION_ID,
  SPAN_KIND,
  TOOL_CALL_FUNCTION_ARGUMENTS,
  TOOL_NAME,
  USER_ID,
  VERCEL_METADATA_PREFIX,
  VERCEL_OPERATION_NAME,
  VERCEL_PREFIX,
} from './attribute-names.js';
import {
  type ChatMessage,
  type ConventionEvent,
  type FoundMessages,
  messageAttributes,
  messagesOfEvents,
  messagesOfIndexedAttributes,
} from './genai-events.js';

export type { ConventionEvent } from './genai-events.js';

type PackageAttributes = Parameters<typeof convertGenAI>[0];

/** Which conventions a span's keys and events follow. */
interface Conventions {
  openInference: boolean;
  genAI: boolean;
  vercel: boolean;
  genAIEvents: boolean;
  /** The indexed prompt and completion of conventions before 1.27. */
  indexed: boolean;
}

function conventionsOf(attributes: Attributes, events: readonly ConventionEvent[], remap: boolean): Conventions {
  const found: Conventions = { openInference: false, genAI: false, vercel: false, genAIEvents: false, indexed: false };
  // Most spans are OpenInference's: one lookup, not a walk over their keys.
  if (!remap && attributes[SPAN_KIND] !== undefined) {
    found.openInference = true;
    return found;
  }
  for (const key in attributes) {
    // One character compared before the prefixes: most keys of most spans start otherwise.
    const first = key.charCodeAt(0);
    if (first === 103 /* g */ && key.startsWith(GEN_AI_PREFIX)) {
      found.genAI = true;
      if (key.startsWith(GEN_AI_PROMPT_PREFIX) || key.startsWith(GEN_AI_COMPLETION_PREFIX)) found.indexed = true;
    } else if (first === 97 /* a */ && key.startsWith(VERCEL_PREFIX)) found.vercel = true;
  }
  for (const event of events) {
    if (event.name.startsWith(GEN_AI_PREFIX)) {
      found.genAIEvents = true;
      break;
    }
  }
  return found;
}

/** Older token names (conventions before 1.27) and the reasoning tokens the packages leave out. */
const LEGACY_TOKENS: readonly [string, string][] = [
  ['gen_ai.usage.prompt_tokens', LLM_TOKEN_COUNT_PROMPT],
  ['gen_ai.usage.completion_tokens', LLM_TOKEN_COUNT_COMPLETION],
  [GEN_AI_USAGE_REASONING_TOKENS, LLM_TOKEN_COUNT_REASONING],
];

/**
 * `gen_ai.system` / `gen_ai.provider.name` values as OpenInference names providers (what the cost
 * table's provider column holds); others are kept as sent, lower-cased.
 */
const PROVIDERS: Readonly<Record<string, string>> = {
  'az.ai.openai': 'azure',
  'azure.ai.openai': 'azure',
  'az.ai.inference': 'azure',
  'azure.ai.inference': 'azure',
  'aws.bedrock': 'aws',
  'gcp.gemini': 'google',
  'gcp.vertex_ai': 'google',
  'gcp.gen_ai': 'google',
  vertex_ai: 'google',
  gemini: 'google',
  x_ai: 'xai',
  mistral_ai: 'mistralai',
};

/**
 * The provider a `gen_ai.system`, `gen_ai.provider.name` or AI SDK provider value names: the
 * table above, else the first dotted segment (the AI SDK's `openai.chat`, `anthropic.messages`),
 * lower-cased.
 */
function providerOf(value: AttributeValue | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  let provider = PROVIDERS_SEEN.get(value);
  if (provider === undefined) {
    const name = value.trim().toLowerCase();
    provider = name === '' ? '' : (PROVIDERS[name] ?? name.split('.')[0]!);
    // Bounded: the values come from clients. A few providers in practice, read on every GenAI span.
    if (PROVIDERS_SEEN.size < 1024) PROVIDERS_SEEN.set(value, provider);
  }
  return provider === '' ? undefined : provider;
}

const PROVIDERS_SEEN = new Map<string, string>();

/** A non-negative whole number from a number or numeric text. */
function countOf(value: AttributeValue | undefined): number | undefined {
  const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isSafeInteger(number) && number >= 0 ? number : undefined;
}

/** Sets `key` unless the mapping or the span already holds it. */
function add(target: Attributes, key: string, value: AttributeValue | undefined): void {
  if (value !== undefined && value !== null && target[key] === undefined) target[key] = value;
}

/** The events' GenAI attributes (1.37's operation-details event carries the messages) as span attributes, as JSON text. */
function eventAttributesAsSpanAttributes(attributes: Attributes, events: readonly ConventionEvent[]): Attributes {
  let merged: Attributes | null = null;
  for (const event of events) {
    if (event.name !== GEN_AI_OPERATION_DETAILS_EVENT) continue;
    merged ??= { ...attributes };
    for (const key in event.attributes) {
      const value = event.attributes[key]!;
      if (merged[key] === undefined) merged[key] = typeof value === 'object' && value !== null ? JSON.stringify(value) : value;
    }
  }
  return merged ?? attributes;
}

/** The messages as one JSON value for input.value / output.value (what the span list shows). */
function messagesValue(messages: readonly ChatMessage[]): string {
  return JSON.stringify(
    messages.map((message) => ({
      role: message.role,
      ...(message.content !== undefined ? { content: message.content } : {}),
      ...(message.toolCalls ? { tool_calls: message.toolCalls } : {}),
    })),
  );
}

/** The answer's text when there is one choice of plain text, else the messages as JSON. */
function outputValue(messages: readonly ChatMessage[]): { value: string; mime: string } {
  const [only] = messages;
  if (messages.length === 1 && only?.content !== undefined && !only.toolCalls) return { value: only.content, mime: 'text/plain' };
  return { value: messagesValue(messages), mime: 'application/json' };
}

/** Adds what the GenAI packages leave out: older names, events, the conversation as session. */
function addGenAIExtras(mapped: Attributes, attributes: Attributes, events: readonly ConventionEvent[], hasEvents: boolean): void {
  add(mapped, LLM_PROVIDER, providerOf(attributes[GEN_AI_PROVIDER_NAME] ?? attributes[GEN_AI_SYSTEM]));
  add(mapped, LLM_SYSTEM, providerOf(attributes[GEN_AI_SYSTEM] ?? attributes[GEN_AI_PROVIDER_NAME]));
  for (const [from, to] of LEGACY_TOKENS) add(mapped, to, countOf(attributes[from]));
  const prompt = countOf(mapped[LLM_TOKEN_COUNT_PROMPT] ?? attributes[LLM_TOKEN_COUNT_PROMPT]);
  const completion = countOf(mapped[LLM_TOKEN_COUNT_COMPLETION] ?? attributes[LLM_TOKEN_COUNT_COMPLETION]);
  if (prompt !== undefined || completion !== undefined) add(mapped, LLM_TOKEN_COUNT_TOTAL, (prompt ?? 0) + (completion ?? 0));
  const conversation = attributes[GEN_AI_CONVERSATION_ID];
  if (typeof conversation === 'string' || typeof conversation === 'number') add(mapped, SESSION_ID, String(conversation));

  // Messages of the span's own JSON attributes come from there (expanded when read, or by the package).
  const hasInput = mapped[`${LLM_INPUT_MESSAGES}.0.message.role`] !== undefined || typeof attributes[GEN_AI_INPUT_MESSAGES] === 'string';
  const hasOutput = mapped[`${LLM_OUTPUT_MESSAGES}.0.message.role`] !== undefined || typeof attributes[GEN_AI_OUTPUT_MESSAGES] === 'string';
  if (hasInput && hasOutput) return;
  const sources: FoundMessages[] = [messagesOfIndexedAttributes(attributes)];
  if (hasEvents) sources.push(messagesOfEvents(events));
  for (const found of sources) {
    if (!hasInput && found.input.length > 0 && mapped[`${LLM_INPUT_MESSAGES}.0.message.role`] === undefined) {
      Object.assign(mapped, messageAttributes(LLM_INPUT_MESSAGES, found.input));
      add(mapped, INPUT_VALUE, messagesValue(found.input));
      add(mapped, INPUT_MIME_TYPE, 'application/json');
    }
    if (!hasOutput && found.output.length > 0 && mapped[`${LLM_OUTPUT_MESSAGES}.0.message.role`] === undefined) {
      Object.assign(mapped, messageAttributes(LLM_OUTPUT_MESSAGES, found.output));
      const output = outputValue(found.output);
      add(mapped, OUTPUT_VALUE, output.value);
      add(mapped, OUTPUT_MIME_TYPE, output.mime);
    }
    if (found.promptText !== undefined) {
      add(mapped, INPUT_VALUE, found.promptText);
      add(mapped, INPUT_MIME_TYPE, found.promptText.trim().startsWith('[') ? 'application/json' : 'text/plain');
    }
    if (found.completionText !== undefined) {
      add(mapped, OUTPUT_VALUE, found.completionText);
      add(mapped, OUTPUT_MIME_TYPE, found.completionText.trim().startsWith('[') ? 'application/json' : 'text/plain');
    }
  }
}

/**
 * Of the OpenInference attributes a span of conventions 1.37 and later maps to, the ones stored
 * with it: what SQL reads from the JSON column of stored rows (filters, sorts and groups, the
 * cost job's cached tokens). Its token counts are stored in the row's token columns only
 * (`MappedSpan.tokens`). The rest (input and output values, messages, tools, invocation
 * parameters) is derived from the span's own attributes whenever it is read
 * (`addDerivedAttributes`): the span's content is stored once, as sent, so a GenAI span is stored
 * no larger than the same OpenInference span and ingested as fast (docs/performance.md, "GenAI
 * conventions at ingest"). Storing every mapped attribute made it two and a half times larger and
 * its ingest a third slower.
 */
const STORED_WHEN_DERIVABLE: readonly string[] = [
  SPAN_KIND,
  LLM_MODEL_NAME,
  LLM_PROVIDER,
  LLM_SYSTEM,
  SESSION_ID,
  USER_ID,
  LLM_TOKEN_COUNT_CACHE_READ,
  LLM_TOKEN_COUNT_CACHE_WRITE,
  TOOL_NAME,
  AGENT_NAME,
];

/**
 * The package's mappers of what STORED_WHEN_DERIVABLE holds (the rest, which parse and expand the
 * JSON attributes, run when the span is read).
 */
const STORED_MAPPERS: readonly ((attributes: PackageAttributes) => Record<string, unknown>)[] = [
  mapSpanKind,
  mapModels,
  mapProviderAndSystem,
  mapTokenCounts,
  mapToolExecution,
  mapAgentAttributes,
];

/** The stored attributes' mappings of a GenAI span (an empty result where the package fails on a value, as its own entry point does). */
function mapStoredGenAI(attributes: Attributes): Attributes {
  const mapped: Attributes = {};
  try {
    for (const mapper of STORED_MAPPERS) Object.assign(mapped, mapper(attributes as PackageAttributes));
  } catch {
    return {};
  }
  return mapped;
}

/**
 * Whether a span's OpenInference attributes are stored in part and derived in full when read:
 * spans of the GenAI conventions whose content is all in their attributes. Spans of the AI SDK,
 * spans with GenAI events (whose messages may come from log records) and spans of the indexed
 * prompts of conventions before 1.27 are stored mapped in full.
 */
function isDerivedWhenRead(conventions: Conventions, vercel: boolean): boolean {
  return conventions.genAI && !vercel && !conventions.genAIEvents && !conventions.indexed;
}

function hasOpenInferenceMessages(attributes: Attributes): boolean {
  return (
    attributes[`${LLM_INPUT_MESSAGES}.0.message.role`] !== undefined || attributes[`${LLM_OUTPUT_MESSAGES}.0.message.role`] !== undefined
  );
}

/** A GenAI message as conventions 1.37 write it (`{role, parts: [{type: 'text', content}, …]}`), as far as it is read here. */
interface GenAIMessage {
  role?: unknown;
  parts?: unknown;
}

/** The messages of a `gen_ai.input.messages` / `gen_ai.output.messages` value, or null when it is not a JSON array. */
function parseGenAIMessages(value: AttributeValue | undefined): GenAIMessage[] | null {
  if (typeof value !== 'string') return null;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed.filter((item): item is GenAIMessage => typeof item === 'object' && item !== null) : null;
  } catch {
    return null;
  }
}

/** A message's text parts joined, or undefined when it has none. */
function textOf(message: GenAIMessage): string | undefined {
  if (!Array.isArray(message.parts)) return undefined;
  const texts: string[] = [];
  for (const part of message.parts as unknown[]) {
    if (typeof part !== 'object' || part === null) continue;
    const { type, content } = part as { type?: unknown; content?: unknown };
    if (type === 'text' && typeof content === 'string') texts.push(content);
  }
  return texts.length > 0 ? texts.join('\n\n') : undefined;
}

function setValue(mapped: Attributes, key: string, mimeKey: string, value: string, mime: string): void {
  mapped[key] = value;
  mapped[mimeKey] = mime;
}

/**
 * input.value and output.value as the text people read (the last user message, the only answer)
 * rather than a copy of gen_ai.input.messages / gen_ai.output.messages, which the span keeps; the
 * JSON as sent when there is no such text.
 */
function valuesAsText(mapped: Attributes, source: Attributes): void {
  const input = source[GEN_AI_INPUT_MESSAGES];
  if (typeof input === 'string' && (mapped[INPUT_VALUE] === undefined || mapped[INPUT_VALUE] === input)) {
    const messages = parseGenAIMessages(input);
    const lastUser = messages?.findLast((message) => message.role === 'user');
    const text = lastUser && textOf(lastUser);
    if (text !== undefined) setValue(mapped, INPUT_VALUE, INPUT_MIME_TYPE, text, 'text/plain');
    else setValue(mapped, INPUT_VALUE, INPUT_MIME_TYPE, input, messages ? 'application/json' : 'text/plain');
  }
  const output = source[GEN_AI_OUTPUT_MESSAGES];
  if (typeof output === 'string' && (mapped[OUTPUT_VALUE] === undefined || mapped[OUTPUT_VALUE] === output)) {
    const messages = parseGenAIMessages(output);
    const text = messages?.length === 1 ? textOf(messages[0]!) : undefined;
    if (text !== undefined) setValue(mapped, OUTPUT_VALUE, OUTPUT_MIME_TYPE, text, 'text/plain');
    else setValue(mapped, OUTPUT_VALUE, OUTPUT_MIME_TYPE, output, messages ? 'application/json' : 'text/plain');
  }
}

const TOOL_CALL_ARGUMENTS_SUFFIX = `.${TOOL_CALL_FUNCTION_ARGUMENTS}`;

/**
 * The AI SDK's `ai.telemetry.metadata.userId` / `sessionId` (as Langfuse reads them) as user and
 * session; tool-call arguments as their JSON (the package encodes the SDK's JSON text again, so
 * the UI showed `"{\"city\":…}"`).
 */
function addVercelExtras(mapped: Attributes, attributes: Attributes): void {
  for (const key in mapped) {
    const value = mapped[key];
    if (typeof value !== 'string' || !key.endsWith(TOOL_CALL_ARGUMENTS_SUFFIX) || !value.startsWith('"')) continue;
    try {
      const inner: unknown = JSON.parse(value);
      if (typeof inner === 'string') mapped[key] = inner;
    } catch {
      // Not JSON text of a string: kept as the package gave it.
    }
  }
  for (const [name, to] of [
    ['userId', USER_ID],
    ['sessionId', SESSION_ID],
  ] as const) {
    const value = attributes[`${VERCEL_METADATA_PREFIX}${name}`];
    if (typeof value === 'string' || typeof value === 'number') add(mapped, to, String(value));
  }
}

/** Values the packages give that Sightline stores (OpenTelemetry attribute values, no null). */
function isStorable(value: unknown): value is AttributeValue {
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || Array.isArray(value);
}

/** Why the span is mapped: to be stored (what STORED_WHEN_DERIVABLE allows) or to be read (everything). */
type Purpose = 'store' | 'read';

/** A mapped span's token counts, for its row's columns (an LLM span's only; undefined when not sent). */
export interface MappedTokens {
  prompt: AttributeValue | undefined;
  completion: AttributeValue | undefined;
  total: AttributeValue | undefined;
}

/** What mapping a span for storage did: whether it added attributes, and its token counts. */
export interface MappedSpan {
  added: boolean;
  tokens: MappedTokens;
}

/**
 * Adds to `attributes` the OpenInference attributes its conventions map to that it lacks (for
 * storage, of a span derived when read, only STORED_WHEN_DERIVABLE); null when the span follows
 * no convention it maps. `remap` looks at every key, a stored span's kind set or not.
 */
function mapSpan(attributes: Attributes, events: readonly ConventionEvent[], purpose: Purpose, remap: boolean): MappedSpan | null {
  const conventions = conventionsOf(attributes, events, remap);
  if (conventions.openInference) return null;
  const vercel = conventions.vercel && typeof attributes[VERCEL_OPERATION_NAME] === 'string';
  if (!vercel && !conventions.genAI && !conventions.genAIEvents) return null;
  const derived = isDerivedWhenRead(conventions, vercel);
  // A span holding OpenInference messages was not stored in part (ingest never stores them for
  // such a span): its own attributes are not mixed with others derived from its GenAI ones.
  if (purpose === 'read' && (!derived || hasOpenInferenceMessages(attributes))) return null;
  const storedOnly = purpose === 'store' && derived;

  // The packages' results are used as they come (no copy): they hold OpenTelemetry values only.
  let mapped: Attributes;
  if (vercel) {
    mapped = (convertVercel(attributes as Parameters<typeof convertVercel>[0]) ?? {}) as Attributes;
    addVercelExtras(mapped, attributes);
  } else {
    const source = conventions.genAIEvents ? eventAttributesAsSpanAttributes(attributes, events) : attributes;
    if (storedOnly) mapped = mapStoredGenAI(source);
    else {
      mapped = (convertGenAI(source as PackageAttributes) ?? {}) as Attributes;
      valuesAsText(mapped, source);
    }
  }
  // The packages copy the provider as sent; the cost table names providers as OpenInference does.
  for (const key of [LLM_PROVIDER, LLM_SYSTEM]) if (mapped[key] !== undefined) mapped[key] = providerOf(mapped[key]) ?? mapped[key];
  if (conventions.genAI || conventions.genAIEvents) addGenAIExtras(mapped, attributes, events, conventions.genAIEvents);
  if (typeof mapped[SPAN_KIND] !== 'string') {
    // A span of the AI SDK whose operation the package does not know (a newer function):
    // a chain, so it still shows its input and output.
    if (!vercel) return null;
    mapped[SPAN_KIND] = OpenInferenceSpanKind.CHAIN;
  }
  // Only LLM spans count tokens (span-rows.ts); a model name on another kind is still shown.
  const tokensToo = mapped[SPAN_KIND] === OpenInferenceSpanKind.LLM;
  let added = false;
  // The few stored keys looked up rather than every mapped key walked: a third of the mapping's time.
  for (const key of storedOnly ? STORED_WHEN_DERIVABLE : Object.keys(mapped)) {
    const value = mapped[key];
    if (value === undefined || attributes[key] !== undefined || !isStorable(value) || (!tokensToo && key === LLM_TOKEN_COUNT_TOTAL))
      continue;
    attributes[key] = Array.isArray(value) ? value.filter((item) => item !== null && typeof item !== 'object') : value;
    added = true;
  }
  const tokens: MappedTokens = {
    prompt: attributes[LLM_TOKEN_COUNT_PROMPT] ?? mapped[LLM_TOKEN_COUNT_PROMPT],
    completion: attributes[LLM_TOKEN_COUNT_COMPLETION] ?? mapped[LLM_TOKEN_COUNT_COMPLETION],
    total: attributes[LLM_TOKEN_COUNT_TOTAL] ?? (tokensToo ? mapped[LLM_TOKEN_COUNT_TOTAL] : undefined),
  };
  return { added: added || (storedOnly && tokens.prompt !== undefined), tokens };
}

/**
 * Ingest: adds to a span of the GenAI or Vercel AI SDK conventions the OpenInference attributes
 * stored with it (the span's own attributes win; for most GenAI spans only those in
 * STORED_WHEN_DERIVABLE, the rest derived when read), and answers with its token counts for the
 * row's columns; null for an OpenInference span or a span of neither convention (the common,
 * cheap case). `remap` maps a span stored before again, with the events that arrived since as
 * OTLP log records: only what it still lacks is added.
 */
export function addOpenInferenceAttributes(
  attributes: Attributes,
  events: readonly ConventionEvent[],
  { remap = false }: { remap?: boolean } = {},
): MappedSpan | null {
  return mapSpan(attributes, events, 'store', remap);
}

/**
 * Read: adds to a stored span (in place) the OpenInference attributes its GenAI attributes map to
 * and ingest did not store (messages, tools, invocation parameters, …), so that every reader of
 * a span record sees it mapped in full. One look at the kind and keys for any other span.
 */
export function addDerivedAttributes(attributes: Record<string, unknown>, events: readonly { name: string }[]): void {
  // Only the events' names are read: a span with GenAI events was stored mapped in full.
  mapSpan(attributes as Attributes, events as readonly ConventionEvent[], 'read', true);
}
