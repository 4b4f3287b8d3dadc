/**
 * A deterministic, realistic OpenInference span corpus for the query benchmark, produced in
 * batches of whole traces (so each batch can be committed by the server's own insert code).
 *
 * Shape:
 *  - a few projects of unequal size (the benchmark queries the largest, `bench-main`);
 *  - most traces are small RAG / agent requests of 3–7 spans (5 on average): a CHAIN root with
 *    RETRIEVER, LLM and TOOL children, sometimes one level deeper;
 *  - about one trace in 800 is a 200-span agent run (AGENT root, 19 CHAIN steps, each with
 *    LLM / TOOL / RETRIEVER children) — the trace-tree query reads these;
 *  - span kinds overall ≈ 36% LLM, 20% CHAIN, 24% TOOL, 20% RETRIEVER (and one AGENT root per big trace);
 *  - status ≈ 5% ERROR (with an exception event), 70% OK, the rest UNSET;
 *  - attributes ≈ 0.5–1.5 KB of JSON per span (LLM spans carry `llm.model_name` with a skewed
 *    model mix, token counts, messages, invocation parameters);
 *  - trace start times spread evenly (with jitter) over the last `days` days, in time order,
 *    as a live system would have written them.
 *
 * Ids are unique by construction (a bijective mix of a counter, plus seeded random digits), so
 * no span is dropped by the store's ON CONFLICT (trace_rowid, span_id) DO NOTHING.
 */
import { storeAttributes } from '../../packages/server/src/span-model/long-attributes.js';
import { userKeyOf } from '../../packages/server/src/span-model/trace-users.js';
import { searchTextOf } from '../../packages/server/src/span-model/search-text.js';
import type { SpanRow } from '../../packages/server/src/span-model/span-rows.js';

export interface ProjectShare {
  name: string;
  weight: number;
}

export const PROJECTS: ProjectShare[] = [
  { name: 'bench-main', weight: 0.7 },
  { name: 'bench-support', weight: 0.15 },
  { name: 'bench-search', weight: 0.1 },
  { name: 'bench-batch', weight: 0.05 },
];

/** The project every query of the benchmark reads (the largest). */
export const MAIN_PROJECT = PROJECTS[0]!.name;

/** Root span name of the 200-span traces (found again through the name index on --reuse). */
/** Distinct `user.id` values, one per trace at random: at 1M spans each user has about 200 spans. */
export const USERS = 5000;

/** The `user.id` of user number `n` (1 to USERS). */
export function userId(n: number): string {
  return `user-${n}`;
}

export const BIG_TRACE_ROOT_NAME = 'AgentExecutor.run';
/** A word in the root input of one trace of the main project in RARE_WORD_EVERY (its 1st, 100,001st…), for the search scenario. */
export const RARE_WORD = 'zyzzogeton';
export const RARE_WORD_EVERY = 100_000;
export const BIG_TRACE_SPANS = 200;

/** llm.model_name values and their shares of LLM spans. */
export const MODELS: Array<{ model: string; provider: string; system: string; weight: number }> = [
  { model: 'gpt-4o-mini-2024-07-18', provider: 'openai', system: 'openai', weight: 0.4 },
  { model: 'gpt-4.1-2025-04-14', provider: 'openai', system: 'openai', weight: 0.2 },
  { model: 'claude-3-5-sonnet-20241022', provider: 'anthropic', system: 'anthropic', weight: 0.2 },
  { model: 'llama-3.1-70b-instruct', provider: 'groq', system: 'meta', weight: 0.12 },
  { model: 'mistral-large-2411', provider: 'mistralai', system: 'mistralai', weight: 0.08 },
];

export interface DatasetOptions {
  /** Spans to generate (the last trace may overshoot by a few spans; it is truncated). */
  spans: number;
  /** Spans per batch handed to the store (whole traces; a batch may exceed this by one trace). */
  batchSpans: number;
  /** Days the trace start times are spread over, ending at `endMs`. */
  days: number;
  /** End of the time range, ms since the epoch. */
  endMs: number;
  /** Probability that a trace is a 200-span agent run. */
  bigTraceShare: number;
  seed: number;
  /** The projects traces go to, by weight (default PROJECTS). */
  projects?: ProjectShare[];
}

export interface DatasetStats {
  spans: number;
  traces: number;
  bigTraces: number;
  attributeBytes: number;
  byKind: Record<string, number>;
  byStatus: Record<string, number>;
  byProject: Record<string, number>;
}

// ---------------------------------------------------------------------------------------------

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

/** A bijection on 32-bit integers (murmur3 finaliser): distinct counters give distinct, random-looking ids. */
function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

const hex8 = (value: number) => (value >>> 0).toString(16).padStart(8, '0');

const WORDS = (
  'the a an of to in for on with by from about into over after before between under again then once here there when where why how ' +
  'all any both each few more most other some such only own same so than too very can will just should now customer order invoice ' +
  'refund shipment account password policy document report summary table query database index cache latency request response ' +
  'service cluster region deployment release version feature flag experiment metric dashboard alert incident outage runbook ticket ' +
  'priority escalation contract clause renewal pricing discount subscription plan usage quota limit token prompt model embedding ' +
  'vector retrieval context window answer citation source paragraph section chapter analysis forecast revenue margin quarter growth ' +
  'churn cohort segment funnel conversion retention campaign budget vendor supplier warehouse inventory delivery route schedule ' +
  'meeting agenda decision owner deadline milestone risk mitigation patient appointment prescription insurance claim coverage'
).split(' ');

const SYSTEM_PROMPTS = [
  'You are a helpful assistant for an online retailer. Answer questions about orders, shipping and refunds. Be concise, cite the policy section you rely on, and never invent order numbers.',
  'You are a senior data analyst. Given the retrieved context, answer the question precisely. If the context does not contain the answer, say so and suggest which report to check.',
  'You are a support agent for a cloud platform. Diagnose the incident from the logs provided, list the most likely root causes in order, and propose the next diagnostic step.',
  'You are a legal assistant. Summarize the contract clauses relevant to the question in plain language and flag any clause that needs review by counsel before signing.',
];

const TOOLS = ['search_orders', 'lookup_customer', 'create_ticket', 'get_weather', 'run_sql', 'send_email', 'calculator'];
const ERRORS = [
  ['RateLimitError', 'Rate limit reached for requests per minute. Please try again in 20s.'],
  ['TimeoutError', 'Request timed out after 30000 ms'],
  ['ValidationError', 'Tool arguments did not match the declared JSON schema: missing property "order_id"'],
  ['APIConnectionError', 'Connection reset by peer while reading the response body'],
] as const;

/**
 * Generates the corpus batch by batch. Text comes from one pre-generated block of prose sliced at
 * random offsets, so generating a million spans costs a few seconds, not minutes.
 */
export class SpanCorpus {
  readonly stats: DatasetStats;
  private readonly random: () => number;
  private readonly prose: string;
  private readonly salt: number;
  private readonly stepUs: number;
  private readonly startUs: number;
  private spanCounter = 0;
  private traceCounter = 0;
  /** Whether the trace being made carries RARE_WORD in its root input (no random draw: the corpus is otherwise unchanged). */
  private rareTrace = false;
  private mainTraces = 0;
  private produced = 0;

  constructor(private readonly options: DatasetOptions) {
    this.random = mulberry32(options.seed);
    this.salt = Math.floor(this.random() * 2 ** 32);
    const words: string[] = [];
    let length = 0;
    while (length < 1 << 20) {
      const sentence = Array.from({ length: this.int(6, 16) }, () => this.pick(WORDS)).join(' ');
      words.push(`${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`);
      length += sentence.length + 2;
    }
    this.prose = words.join(' ');
    // Expected spans per trace: small traces average 5, big ones 200.
    const expectedPerTrace = 5 * (1 - options.bigTraceShare) + BIG_TRACE_SPANS * options.bigTraceShare;
    const traces = Math.max(1, options.spans / expectedPerTrace);
    const rangeUs = options.days * 86_400e6;
    this.startUs = options.endMs * 1000 - rangeUs;
    this.stepUs = rangeUs / traces;
    this.stats = { spans: 0, traces: 0, bigTraces: 0, attributeBytes: 0, byKind: {}, byStatus: {}, byProject: {} };
  }

  /** The next batch of whole traces, or null when `spans` have been produced. */
  nextBatch(): SpanRow[] | null {
    if (this.produced >= this.options.spans) return null;
    const rows: SpanRow[] = [];
    while (rows.length < this.options.batchSpans && this.produced < this.options.spans) {
      const trace = this.trace();
      const room = this.options.spans - this.produced;
      // The very last trace is cut to the requested total (its spans keep their parents: roots come first).
      const kept = trace.length > room ? trace.slice(0, room) : trace;
      for (const row of kept) this.count(row);
      this.produced += kept.length;
      this.stats.traces += 1;
      if (kept.length === BIG_TRACE_SPANS) this.stats.bigTraces += 1;
      rows.push(...kept);
    }
    return rows;
  }

  // ---- one trace

  private trace(): SpanRow[] {
    const index = this.traceCounter++;
    const traceId = `${this.hex(4)}${this.hex(4)}${this.hex(4)}${hex8(mix32(index ^ this.salt))}`;
    const project = this.weighted(this.options.projects ?? PROJECTS).name;
    if (project === MAIN_PROJECT) this.rareTrace = this.mainTraces++ % RARE_WORD_EVERY === 0;
    else this.rareTrace = false;
    const startUs = Math.round(this.startUs + index * this.stepUs + this.random() * this.stepUs);
    const session = `sess-${this.hex(4)}`;
    const user = userId(this.int(1, USERS));
    return this.random() < this.options.bigTraceShare
      ? this.bigTrace(project, traceId, startUs, session, user)
      : this.smallTrace(project, traceId, startUs, session, user);
  }

  /** A RAG request: CHAIN root, RETRIEVER, LLM, then TOOL / LLM children (some under the first LLM). */
  private smallTrace(project: string, traceId: string, startUs: number, session: string, user: string): SpanRow[] {
    const size = this.weightedValue([3, 4, 5, 6, 7], [0.1, 0.2, 0.4, 0.2, 0.1]);
    const rows: SpanRow[] = [];
    const root = this.span(project, traceId, null, 'CHAIN', 'RAGPipeline.invoke', startUs, 0, session, user);
    rows.push(root);
    let cursor = startUs + 200;
    const plan = ['RETRIEVER', 'LLM', 'TOOL', 'LLM', 'TOOL', 'LLM'].slice(0, size - 1);
    let firstLlm: SpanRow | null = null;
    for (const kind of plan) {
      const parent = kind === 'TOOL' && firstLlm !== null && this.random() < 0.5 ? firstLlm : root;
      const durationUs = this.durationUs(kind);
      const span = this.span(project, traceId, parent.spanId, kind, this.spanName(kind), cursor, durationUs, session, user);
      rows.push(span);
      if (kind === 'LLM' && firstLlm === null) firstLlm = span;
      cursor += durationUs + this.int(100, 2000);
    }
    this.close(rows, startUs, cursor);
    return rows;
  }

  /** An agent run of exactly 200 spans: AGENT root, 19 CHAIN steps, each with ~9 LLM / TOOL / RETRIEVER children. */
  private bigTrace(project: string, traceId: string, startUs: number, session: string, user: string): SpanRow[] {
    const rows: SpanRow[] = [];
    const root = this.span(project, traceId, null, 'AGENT', BIG_TRACE_ROOT_NAME, startUs, 0, session, user);
    rows.push(root);
    const steps = 19;
    const children = BIG_TRACE_SPANS - 1 - steps; // 180, spread over the steps
    let cursor = startUs + 500;
    for (let step = 0; step < steps; step++) {
      const stepSpan = this.span(project, traceId, root.spanId, 'CHAIN', `AgentStep.${step + 1}`, cursor, 0, session, user);
      rows.push(stepSpan);
      const stepStart = cursor;
      const count = Math.floor(children / steps) + (step < children % steps ? 1 : 0);
      for (let i = 0; i < count; i++) {
        const kind = i % 3 === 0 ? 'LLM' : i % 3 === 1 ? 'TOOL' : 'RETRIEVER';
        const durationUs = Math.round(this.durationUs(kind) / 4);
        rows.push(this.span(project, traceId, stepSpan.spanId, kind, this.spanName(kind), cursor, durationUs, session, user));
        cursor += durationUs + this.int(50, 500);
      }
      this.close([stepSpan], stepStart, cursor);
      cursor += this.int(100, 1000);
    }
    this.close([root], startUs, cursor);
    return rows;
  }

  /** Sets the end time of container spans (created with duration 0) once their children are laid out. */
  private close(containers: SpanRow[], startUs: number, endUs: number): void {
    const container = containers[0]!;
    container.startTime = BigInt(startUs) * 1000n;
    container.endTime = BigInt(endUs) * 1000n;
  }

  private span(
    project: string,
    traceId: string,
    parentId: string | null,
    kind: string,
    name: string,
    startUs: number,
    durationUs: number,
    session: string,
    user: string,
  ): SpanRow {
    const spanId = `${this.hex(4)}${hex8(mix32(this.spanCounter++ ^ this.salt))}`;
    const roll = this.random();
    const statusCode = roll < 0.05 ? 'ERROR' : roll < 0.75 ? 'OK' : 'UNSET';
    let attributes: Record<string, string | number | boolean>;
    let prompt: number | null = null;
    let completion: number | null = null;
    if (kind === 'LLM') {
      const model = this.weighted(MODELS);
      prompt = this.int(200, 4000);
      completion = this.int(20, 800);
      const question = this.text(60, 180);
      const answer = statusCode === 'ERROR' ? '' : this.text(100, 300);
      attributes = {
        'openinference.span.kind': 'LLM',
        'llm.model_name': model.model,
        'llm.provider': model.provider,
        'llm.system': model.system,
        'llm.invocation_parameters': JSON.stringify({ temperature: this.pick([0, 0.2, 0.7]), max_tokens: this.pick([256, 512, 1024]) }),
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': this.pick(SYSTEM_PROMPTS),
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.content': question,
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': answer,
        'llm.token_count.prompt': prompt,
        'llm.token_count.completion': completion,
        'llm.token_count.total': prompt + completion,
        'input.value': question,
        'output.value': answer,
      };
    } else if (kind === 'RETRIEVER') {
      const query = this.text(40, 120);
      attributes = { 'openinference.span.kind': 'RETRIEVER', 'input.value': query, 'embedding.model_name': 'text-embedding-3-small' };
      const documents = this.int(2, 3);
      for (let d = 0; d < documents; d++) {
        attributes[`retrieval.documents.${d}.document.id`] = `doc-${this.int(1, 200_000)}`;
        attributes[`retrieval.documents.${d}.document.score`] = Math.round(this.random() * 1000) / 1000;
        attributes[`retrieval.documents.${d}.document.content`] = this.text(120, 300);
      }
    } else if (kind === 'TOOL') {
      const tool = this.pick(TOOLS);
      attributes = {
        'openinference.span.kind': 'TOOL',
        'tool.name': tool,
        'tool.description': `Calls the ${tool} function of the support back office.`,
        'tool.parameters': JSON.stringify({ order_id: `ORD-${this.int(10000, 99999)}`, include_history: this.random() < 0.5 }),
        'input.value': JSON.stringify({ query: this.text(40, 120) }),
        'output.value': statusCode === 'ERROR' ? '' : this.text(150, 400),
      };
    } else {
      attributes = {
        'openinference.span.kind': kind,
        'input.value': JSON.stringify({ question: `${this.text(150, 300)}${this.rareTrace && parentId === null ? ` ${RARE_WORD}` : ''}` }),
        'input.mime_type': 'application/json',
        'output.value': JSON.stringify({ answer: this.text(250, 600) }),
        'output.mime_type': 'application/json',
        metadata: JSON.stringify({ environment: 'production', release: '2025.11.3', tenant: `t-${this.int(1, 40)}` }),
      };
    }
    attributes['session.id'] = session;
    attributes['user.id'] = user;
    let events = '[]';
    let statusMessage = '';
    if (statusCode === 'ERROR') {
      const [type, message] = this.pick(ERRORS);
      statusMessage = `${type}: ${message}`;
      events = JSON.stringify([
        {
          name: 'exception',
          timestamp: new Date(Math.floor((startUs + durationUs) / 1000)).toISOString(),
          attributes: { 'exception.type': type, 'exception.message': message },
        },
      ]);
    }
    this.stats.attributeBytes += JSON.stringify(attributes).length;
    // As ingest stores them (docs/ingest.md, "How attributes are stored").
    const stored = storeAttributes(attributes);
    return {
      projectName: project,
      traceId,
      spanId,
      parentId,
      name,
      spanKind: kind,
      startTime: BigInt(startUs) * 1000n,
      endTime: BigInt(startUs + durationUs) * 1000n,
      statusCode,
      statusMessage,
      attributes: stored.json,
      longAttributes: stored.long,
      events,
      tokenCountPrompt: prompt,
      tokenCountCompletion: completion,
      tokenCountTotal: prompt === null || completion === null ? null : prompt + completion,
      sessionId: null,
      userKey: userKeyOf(user),
      searchText: searchTextOf(attributes),
      modelName: typeof attributes['llm.model_name'] === 'string' ? attributes['llm.model_name'] : null,
    };
  }

  private count(row: SpanRow): void {
    this.stats.spans += 1;
    this.stats.byKind[row.spanKind] = (this.stats.byKind[row.spanKind] ?? 0) + 1;
    this.stats.byStatus[row.statusCode] = (this.stats.byStatus[row.statusCode] ?? 0) + 1;
    this.stats.byProject[row.projectName] = (this.stats.byProject[row.projectName] ?? 0) + 1;
  }

  // ---- helpers

  private durationUs(kind: string): number {
    switch (kind) {
      case 'LLM':
        return this.int(300_000, 4_000_000);
      case 'RETRIEVER':
        return this.int(40_000, 300_000);
      case 'TOOL':
        return this.int(5_000, 500_000);
      default:
        return this.int(1_000, 50_000);
    }
  }

  private spanName(kind: string): string {
    switch (kind) {
      case 'LLM':
        return 'ChatCompletion';
      case 'RETRIEVER':
        return 'VectorStoreRetriever';
      case 'TOOL':
        return 'ToolCall';
      default:
        return 'Chain';
    }
  }

  /** Prose of a length between min and max characters, sliced from the pre-generated block. */
  private text(min: number, max: number): string {
    const length = this.int(min, max);
    const offset = this.int(0, this.prose.length - length - 1);
    return this.prose.slice(offset, offset + length);
  }

  private hex(bytes: 4): string {
    return hex8(Math.floor(this.random() * 2 ** 32)).slice(0, 2 * bytes);
  }

  private int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  private weighted<T extends { weight: number }>(items: readonly T[]): T {
    let roll = this.random();
    for (const item of items) {
      roll -= item.weight;
      if (roll < 0) return item;
    }
    return items[items.length - 1]!;
  }

  private weightedValue<T>(values: readonly T[], weights: readonly number[]): T {
    let roll = this.random();
    for (let i = 0; i < values.length; i++) {
      roll -= weights[i]!;
      if (roll < 0) return values[i]!;
    }
    return values[values.length - 1]!;
  }
}
