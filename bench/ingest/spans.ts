/**
 * Realistic OpenInference LLM traffic for the ingest benchmark: a pool of pre-encoded OTLP
 * protobuf request bodies, plus a patcher that gives every span sent fresh trace and span ids
 * (the server ignores a span id it already stored, so re-sending a body would inflate the
 * figures) and moves its times forward with the clock, as spans of live traffic are timed.
 *
 * Each trace is one CHAIN span with LLM children; every LLM span carries about 1.5 KB of
 * attributes (prompts, completion, token counts, invocation parameters, input/output values).
 */
import { randomFillSync } from 'node:crypto';
import { ExportTraceServiceRequest } from '../../packages/server/src/ingest/otlp-schema.js';

/** Where the ids of one span sit in an encoded body. */
interface SpanSlot {
  traceOffset: number;
  spanOffset: number;
  /** -1 for a root span. */
  parentOffset: number;
  /** Index of the span's trace within the body. */
  trace: number;
  /** Index (within the body) of the parent span, -1 for a root span. */
  parent: number;
  /** Offsets of start_time_unix_nano and end_time_unix_nano (fixed64, little-endian). */
  startOffset: number;
  endOffset: number;
}

/** One pre-encoded request body and the positions of its ids. */
export interface BodyTemplate {
  bytes: Buffer;
  spans: number;
  traces: number;
  slots: SpanSlot[];
  /** Bytes of attribute JSON per span, as the server will store it (average over the body). */
  attributeBytesPerSpan: number;
  llmSpans: number;
}

export interface PoolOptions {
  /** Distinct bodies to encode. */
  size: number;
  /** Spans per body (request). */
  batch: number;
  /** Spans per trace: one CHAIN root plus (spansPerTrace - 1) LLM children. */
  spansPerTrace: number;
  seed?: number;
  /**
   * Start time of the first trace of every body, ns since the epoch (default: a minute ago, so a
   * body's spans end by now); the retention benchmark loads old data. The patcher adds the time
   * elapsed since it was created.
   */
  baseNanos?: bigint;
  /**
   * The conventions the spans follow: OpenInference (default), or OpenTelemetry's GenAI
   * conventions 1.37 (the same content under gen_ai.* names, which the server maps at ingest).
   */
  conventions?: 'openinference' | 'genai';
}

// ---------------------------------------------------------------------------------------------
// Deterministic content

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the a an of to in for on with by from about into over after before between under again further then once here there when ' +
  'where why how all any both each few more most other some such only own same so than too very can will just should now ' +
  'customer order invoice refund shipment account password policy document report summary table query database index cache ' +
  'latency request response service cluster region deployment release version feature flag experiment metric dashboard alert ' +
  'incident outage runbook ticket priority escalation contract clause renewal pricing discount subscription plan usage quota ' +
  'limit token prompt model embedding vector retrieval context window answer citation source paragraph section chapter ' +
  'analysis forecast revenue margin quarter growth churn cohort segment funnel conversion retention campaign budget vendor ' +
  'supplier warehouse inventory delivery route schedule meeting agenda decision owner deadline milestone risk mitigation ' +
  'patient appointment prescription dosage symptom diagnosis treatment insurance claim coverage premium deductible provider ' +
  'translate explain compare list describe check verify calculate estimate recommend draft rewrite classify extract summarize'
).split(' ');

const SYSTEM_PROMPTS = [
  'You are a helpful assistant for an online retailer. Answer questions about orders, shipping and refunds. Be concise, cite the policy section you rely on, and never invent order numbers.',
  'You are a senior data analyst. Given the retrieved context, answer the question precisely. If the context does not contain the answer, say so and suggest which report to check.',
  'You are a support agent for a cloud platform. Diagnose the incident from the logs provided, list the most likely root causes in order, and propose the next diagnostic step.',
  'You are a legal assistant. Summarize the contract clauses relevant to the question in plain language and flag any clause that needs review by counsel before signing.',
  'You are a medical office assistant. Help schedule appointments and answer insurance questions. Do not give medical advice; refer clinical questions to the care team.',
];

const MODELS: Array<[string, string, string]> = [
  ['gpt-4o-mini-2024-07-18', 'openai', 'openai'],
  ['gpt-4.1-2025-04-14', 'openai', 'openai'],
  ['claude-3-5-sonnet-20241022', 'anthropic', 'anthropic'],
  ['llama-3.1-70b-instruct', 'groq', 'meta'],
  ['mistral-large-2411', 'mistralai', 'mistralai'],
];

class Content {
  private readonly random: () => number;
  constructor(seed: number) {
    this.random = mulberry32(seed);
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }
  /** Sentences of random words, about `chars` characters long. */
  text(chars: number): string {
    const sentences: string[] = [];
    let length = 0;
    while (length < chars) {
      const words: string[] = [];
      const count = this.int(6, 16);
      for (let i = 0; i < count; i++) words.push(this.pick(WORDS));
      const sentence = `${words[0]![0]!.toUpperCase()}${words.join(' ').slice(1)}.`;
      sentences.push(sentence);
      length += sentence.length + 1;
    }
    return sentences.join(' ');
  }
  hex(bytes: number): string {
    let out = '';
    for (let i = 0; i < bytes; i++) out += this.int(0, 255).toString(16).padStart(2, '0');
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// OTLP objects (protobufjs camelCase shape)

type PbValue = { stringValue: string } | { intValue: number } | { doubleValue: number } | { boolValue: boolean };
interface PbKeyValueIn {
  key: string;
  value: PbValue;
}

function keyValues(attributes: Record<string, string | number | boolean>): PbKeyValueIn[] {
  return Object.entries(attributes).map(([key, value]) => ({
    key,
    value:
      typeof value === 'string'
        ? { stringValue: value }
        : typeof value === 'boolean'
          ? { boolValue: value }
          : Number.isInteger(value)
            ? { intValue: value }
            : { doubleValue: value },
  }));
}

function llmAttributes(content: Content, sessionId: string, userId: string): Record<string, string | number> {
  const [model, provider, system] = content.pick(MODELS);
  const systemPrompt = content.pick(SYSTEM_PROMPTS);
  const question = content.text(content.int(70, 140));
  const answer = content.text(content.int(120, 210));
  const promptTokens = content.int(200, 4000);
  const completionTokens = content.int(40, 800);
  const invocation = {
    temperature: content.pick([0, 0.2, 0.7]),
    max_tokens: content.pick([256, 512, 1024]),
    top_p: 1,
  };
  return {
    'openinference.span.kind': 'LLM',
    'llm.model_name': model,
    'llm.provider': provider,
    'llm.system': system,
    'llm.input_messages.0.message.role': 'system',
    'llm.input_messages.0.message.content': systemPrompt,
    'llm.input_messages.1.message.role': 'user',
    'llm.input_messages.1.message.content': question,
    'llm.output_messages.0.message.role': 'assistant',
    'llm.output_messages.0.message.content': answer,
    'llm.token_count.prompt': promptTokens,
    'llm.token_count.completion': completionTokens,
    'llm.token_count.total': promptTokens + completionTokens,
    'llm.invocation_parameters': JSON.stringify(invocation),
    'input.value': question,
    'input.mime_type': 'text/plain',
    'output.value': answer,
    'output.mime_type': 'text/plain',
    'session.id': sessionId,
    'user.id': userId,
  };
}

/**
 * The same kind of call under OpenTelemetry's GenAI conventions 1.37 (what
 * @opentelemetry/instrumentation-openai and most SDKs send), with the messages as JSON.
 */
function genAiLlmAttributes(content: Content, sessionId: string, userId: string): Record<string, string | number> {
  const [model, provider] = content.pick(MODELS);
  const systemPrompt = content.pick(SYSTEM_PROMPTS);
  const question = content.text(content.int(70, 140));
  const answer = content.text(content.int(120, 210));
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': provider,
    'gen_ai.request.model': model,
    'gen_ai.response.model': model,
    'gen_ai.request.temperature': content.pick([0, 0.2, 0.7]),
    'gen_ai.request.max_tokens': content.pick([256, 512, 1024]),
    'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: systemPrompt }]),
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: question }] }]),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' }]),
    'gen_ai.usage.input_tokens': content.int(200, 4000),
    'gen_ai.usage.output_tokens': content.int(40, 800),
    'gen_ai.response.finish_reasons': 'stop',
    'gen_ai.conversation.id': sessionId,
    'user.id': userId,
  };
}

function genAiAgentAttributes(content: Content, sessionId: string, userId: string): Record<string, string> {
  return {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': 'support-assistant',
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: content.text(content.int(200, 300)) }] }]),
    'gen_ai.output.messages': JSON.stringify([
      { role: 'assistant', parts: [{ type: 'text', content: content.text(content.int(450, 650)) }] },
    ]),
    'gen_ai.conversation.id': sessionId,
    'user.id': userId,
  };
}

function chainAttributes(content: Content, sessionId: string, userId: string): Record<string, string> {
  const question = content.text(content.int(200, 300));
  const answer = content.text(content.int(450, 650));
  return {
    'openinference.span.kind': 'CHAIN',
    'input.value': JSON.stringify({ question }),
    'input.mime_type': 'application/json',
    'output.value': JSON.stringify({ answer }),
    'output.mime_type': 'application/json',
    'session.id': sessionId,
    'user.id': userId,
    metadata: JSON.stringify({ environment: 'production', release: '2025.11.3' }),
  };
}

/** Builds and encodes one request body with placeholder ids, and locates every id in it. */
function buildBody(
  content: Content,
  batch: number,
  spansPerTrace: number,
  baseNanos: bigint,
  conventions: PoolOptions['conventions'] = 'openinference',
): BodyTemplate {
  const [rootAttributes, childAttributes] =
    conventions === 'genai' ? [genAiAgentAttributes, genAiLlmAttributes] : [chainAttributes, llmAttributes];
  const spans: object[] = [];
  const parents: number[] = [];
  const traceOf: number[] = [];
  let attributeBytes = 0;
  let llmSpans = 0;
  let trace = -1;
  let rootIndex = -1;
  let cursor = baseNanos;
  let placeholder = 1;
  const id = (bytes: number) => {
    const buffer = Buffer.alloc(bytes, 0x11);
    buffer.writeUInt32BE(placeholder++, bytes - 4);
    return buffer;
  };
  let traceId = id(16);
  let sessionId = '';
  let userId = '';
  for (let i = 0; i < batch; i++) {
    const isRoot = i % spansPerTrace === 0;
    if (isRoot) {
      trace++;
      rootIndex = i;
      traceId = id(16);
      sessionId = `sess-${content.hex(8)}`;
      userId = `user-${content.int(1, 5000)}`;
    }
    const children = Math.min(spansPerTrace, batch - rootIndex) - 1;
    const llmNanos = BigInt(content.int(300, 4000)) * 1_000_000n;
    const start = isRoot ? cursor : cursor + BigInt(i - rootIndex - 1) * llmNanos + 1_000_000n;
    const end = isRoot ? cursor + BigInt(children + 1) * 4_000_000_000n : start + llmNanos;
    const attributes = isRoot ? rootAttributes(content, sessionId, userId) : childAttributes(content, sessionId, userId);
    attributeBytes += Buffer.byteLength(JSON.stringify(attributes));
    if (!isRoot) llmSpans++;
    spans.push({
      traceId,
      spanId: id(8),
      ...(isRoot ? {} : { parentSpanId: id(8) }),
      name: isRoot ? 'RunnableSequence' : 'ChatCompletion',
      kind: isRoot ? 1 : 3,
      startTimeUnixNano: start.toString(),
      endTimeUnixNano: end.toString(),
      attributes: keyValues(attributes),
      status: { code: 1 },
    });
    parents.push(isRoot ? -1 : rootIndex);
    traceOf.push(trace);
    if (isRoot) cursor += 1_000_000_000n;
  }
  const request = {
    resourceSpans: [
      {
        resource: {
          attributes: keyValues({
            'service.name': 'support-assistant',
            'openinference.project.name': 'ingest-bench',
            'telemetry.sdk.language': 'python',
            'telemetry.sdk.name': 'opentelemetry',
            'telemetry.sdk.version': '1.38.0',
          }),
        },
        scopeSpans: [{ scope: { name: 'openinference.instrumentation.openai', version: '0.1.34' }, spans }],
      },
    ],
  };
  const bytes = Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(request)).finish());
  const located = locateIds(bytes);
  if (located.length !== batch) throw new Error(`id locator found ${located.length} spans, expected ${batch}`);
  const slots = located.map((slot, i) => {
    const parent = parents[i]!;
    if ((parent === -1) !== (slot.parentOffset === -1)) throw new Error(`span ${i}: parent id not where expected`);
    return { ...slot, trace: traceOf[i]!, parent };
  });
  return { bytes, spans: batch, traces: trace + 1, slots, attributeBytesPerSpan: attributeBytes / batch, llmSpans };
}

/** Encodes `size` distinct request bodies of `batch` spans each. */
export function buildBodyPool(options: PoolOptions): BodyTemplate[] {
  if (options.spansPerTrace < 2) throw new Error('spansPerTrace must be at least 2 (a CHAIN root and one LLM span)');
  const content = new Content(options.seed ?? 20251122);
  const baseNanos = options.baseNanos ?? BigInt(Date.now() - 60_000) * 1_000_000n;
  const pool: BodyTemplate[] = [];
  // Every body starts at the same time: the patcher spreads them over the run as it sends them.
  for (let i = 0; i < options.size; i++)
    pool.push(buildBody(content, options.batch, options.spansPerTrace, baseNanos, options.conventions));
  return pool;
}

// ---------------------------------------------------------------------------------------------
// Locating and patching ids in encoded bytes

function readVarint(bytes: Uint8Array, position: number): [value: number, next: number] {
  let value = 0;
  let factor = 1;
  let byte: number;
  do {
    byte = bytes[position++]!;
    value += (byte & 0x7f) * factor;
    factor *= 128;
  } while (byte & 0x80);
  return [value, position];
}

/** Calls `visit` for each field of the message in bytes[start, end). */
function eachField(
  bytes: Uint8Array,
  start: number,
  end: number,
  visit: (field: number, valueStart: number, valueEnd: number) => void,
): void {
  let position = start;
  while (position < end) {
    const [key, afterKey] = readVarint(bytes, position);
    const field = Math.floor(key / 8);
    const wireType = key % 8;
    let valueStart = afterKey;
    let valueEnd: number;
    if (wireType === 0) valueEnd = readVarint(bytes, afterKey)[1];
    else if (wireType === 1) valueEnd = afterKey + 8;
    else if (wireType === 5) valueEnd = afterKey + 4;
    else if (wireType === 2) {
      const [length, afterLength] = readVarint(bytes, afterKey);
      valueStart = afterLength;
      valueEnd = afterLength + length;
    } else throw new Error(`unexpected protobuf wire type ${wireType}`);
    visit(field, valueStart, valueEnd);
    position = valueEnd;
  }
  if (position !== end) throw new Error('protobuf field overran its message');
}

/** Offsets of trace_id, span_id, parent_span_id and both times of every span, in encoding order. */
function locateIds(bytes: Uint8Array): Array<Omit<SpanSlot, 'trace' | 'parent'>> {
  const found: Array<Omit<SpanSlot, 'trace' | 'parent'>> = [];
  // ExportTraceServiceRequest.resource_spans = 1 → ResourceSpans.scope_spans = 2 → ScopeSpans.spans = 2
  eachField(bytes, 0, bytes.length, (field, rsStart, rsEnd) => {
    if (field !== 1) return;
    eachField(bytes, rsStart, rsEnd, (field, ssStart, ssEnd) => {
      if (field !== 2) return;
      eachField(bytes, ssStart, ssEnd, (field, spanStart, spanEnd) => {
        if (field !== 2) return;
        const slot = { traceOffset: -1, spanOffset: -1, parentOffset: -1, startOffset: -1, endOffset: -1 };
        eachField(bytes, spanStart, spanEnd, (field, start, end) => {
          if (field === 1 && end - start === 16) slot.traceOffset = start;
          else if (field === 2 && end - start === 8) slot.spanOffset = start;
          else if (field === 4 && end - start === 8) slot.parentOffset = start;
          else if (field === 7 && end - start === 8) slot.startOffset = start;
          else if (field === 8 && end - start === 8) slot.endOffset = start;
        });
        if (slot.traceOffset < 0 || slot.spanOffset < 0) throw new Error('span without trace or span id');
        if (slot.startOffset < 0 || slot.endOffset < 0) throw new Error('span without start or end time');
        found.push(slot);
      });
    });
  });
  return found;
}

/**
 * Gives bodies fresh ids: 16 random bytes per trace; per span 4 random bytes followed by a
 * 32-bit counter, so span ids never repeat within a run (and differ between runs). It also adds
 * the time elapsed since the patcher was created to every start and end time: re-sending a
 * body's own times would pile up spans with equal times in the time indexes, which no exporter
 * does and which makes those indexes grow random inserts as the database grows
 * (docs/performance.md, "Span times of the benchmark corpus").
 */
export class IdPatcher {
  private counter = 0;
  private scratch = Buffer.alloc(0);
  private readonly created = process.hrtime.bigint();

  /** A copy of the template's bytes with new ids (the template itself is left untouched). */
  next(template: BodyTemplate): Buffer {
    const body = Buffer.from(template.bytes);
    this.patch(body, template);
    return body;
  }

  /** Spans given ids so far. */
  get issued(): number {
    return this.counter;
  }

  private patch(body: Buffer, template: BodyTemplate): void {
    const elapsed = process.hrtime.bigint() - this.created;
    const need = template.traces * 16 + template.spans * 4;
    if (this.scratch.length < need) this.scratch = Buffer.alloc(need);
    randomFillSync(this.scratch, 0, need);
    const spanBase = template.traces * 16;
    for (let i = 0; i < template.slots.length; i++) {
      const slot = template.slots[i]!;
      this.scratch.copy(body, slot.traceOffset, slot.trace * 16, slot.trace * 16 + 16);
      this.scratch.copy(body, slot.spanOffset, spanBase + i * 4, spanBase + i * 4 + 4);
      body.writeUInt32BE(this.counter++ >>> 0, slot.spanOffset + 4);
      body.writeBigUInt64LE(body.readBigUInt64LE(slot.startOffset) + elapsed, slot.startOffset);
      body.writeBigUInt64LE(body.readBigUInt64LE(slot.endOffset) + elapsed, slot.endOffset);
    }
    for (const slot of template.slots) {
      if (slot.parent >= 0)
        body.copy(body, slot.parentOffset, template.slots[slot.parent]!.spanOffset, template.slots[slot.parent]!.spanOffset + 8);
    }
  }
}
