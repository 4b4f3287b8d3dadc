/**
 * How a span's attributes are stored (docs/ingest.md, "How attributes are stored"): the short
 * values stay in the queryable JSON column `attributes`; the long ones (prompts, completions,
 * input and output values, documents: most of a span's bytes) are moved into `long_attributes`,
 * one JSON object compressed with raw deflate and a preset dictionary of OpenInference keys.
 * Reads merge the two back, so the API's attributes are unchanged.
 *
 * Which values are long depends on the key and the value alone, never on the rest of the span:
 * an attribute filter's key and candidate therefore say by themselves which column could hold a
 * match (`inLongAttributes`), and filters on short values stay plain JSON-column SQL.
 * Compression never runs on the SQLite writer thread, which has no time to spare: OTLP exports
 * are compressed on a thread of their own (span-model/long-attributes-compressor.ts), other rows
 * where they are made (docs/performance.md, "Smaller span rows").
 */
import {
  EMBEDDING_EMBEDDINGS,
  LLM_INPUT_MESSAGES,
  LLM_MODEL_NAME,
  LLM_OUTPUT_MESSAGES,
  LLM_PROMPTS,
  LLM_PROVIDER,
  LLM_SYSTEM,
  LLM_TOOLS,
  RERANKER_INPUT_DOCUMENTS,
  RERANKER_OUTPUT_DOCUMENTS,
  RETRIEVAL_DOCUMENTS,
  SESSION_ID,
  SPAN_KIND,
  USER_ID,
} from './conventions/attribute-names.js';
import type { ValueList } from './span-row-codec.js';
import zlib from 'node:zlib';

/** Strings longer than this (UTF-16 code units), and arrays or objects whose JSON text is, are long. */
export const LONG_VALUE_CHARS = 64;

/**
 * Keys kept in the JSON column whatever their length: the server reads them in SQL (per-model
 * metrics group by `llm.model_name`), prices spans from them, or they are the common filters.
 */
const JSON_COLUMN_KEYS: ReadonlySet<string> = new Set([SPAN_KIND, LLM_MODEL_NAME, LLM_PROVIDER, LLM_SYSTEM, SESSION_ID, USER_ID]);

/**
 * OpenInference's flattened lists (messages, prompts, tools, documents, embeddings): every value
 * under them is long, short ones too (a message's role, a document's score). They are most of a
 * span's keys and bytes and are read whole, with the span, rather than filtered on.
 */
const LONG_KEY_PREFIXES: readonly string[] = [
  LLM_INPUT_MESSAGES,
  LLM_OUTPUT_MESSAGES,
  LLM_PROMPTS,
  LLM_TOOLS,
  RETRIEVAL_DOCUMENTS,
  RERANKER_INPUT_DOCUMENTS,
  RERANKER_OUTPUT_DOCUMENTS,
  EMBEDDING_EMBEDDINGS,
].map((list) => `${list}.`);

/** First byte of every `long_attributes` value: raw deflate with DICTIONARY_V1. Another format gets another byte. */
const FORMAT_DEFLATE_V1 = 1;

/**
 * Preset dictionary of format 1: the key names and JSON punctuation that start most long values
 * (OpenInference semantic conventions), so that even a span's first bytes compress. Deflate finds
 * matches by distance, so the most common strings come last. Never change it: stored values
 * depend on it byte for byte (a new dictionary needs a new format byte).
 */
const DICTIONARY_V1 = Buffer.from(
  [
    '"exception.stacktrace":"Traceback (most recent call last):\\n  File \\"',
    '"exception.message":"',
    '"tool.parameters":"{\\"type\\":\\"object\\",\\"properties\\":{\\"',
    '"tool.description":"',
    '"llm.tools.0.tool.json_schema":"{\\"type\\":\\"function\\",\\"function\\":{\\"name\\":\\"',
    '"llm.prompt_template.template":"',
    '"llm.prompt_template.variables":"{\\"',
    '"llm.prompts.0.prompt.text":"',
    '"embedding.embeddings.0.embedding.text":"',
    '"embedding.embeddings.0.embedding.vector":[',
    '"reranker.input_documents.0.document.content":"',
    '"reranker.output_documents.0.document.content":"',
    '"retrieval.documents.0.document.metadata":"{\\"',
    '"retrieval.documents.0.document.content":"',
    '"retrieval.documents.1.document.content":"',
    '"metadata":"{\\"',
    '"llm.invocation_parameters":"{\\"temperature\\":',
    '"llm.input_messages.0.message.tool_calls.0.tool_call.function.arguments":"{\\"',
    '"llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments":"{\\"',
    '{\\"messages\\": [{\\"role\\": \\"system\\", \\"content\\": \\"',
    '{\\"role\\": \\"user\\", \\"content\\": \\"',
    '{\\"role\\":\\"assistant\\",\\"content\\":\\"',
    '"llm.input_messages.2.message.role":"user","llm.input_messages.2.message.content":"',
    '"llm.input_messages.1.message.role":"assistant","llm.input_messages.1.message.content":"',
    '"llm.input_messages.1.message.role":"user","llm.input_messages.1.message.content":"',
    '{"llm.input_messages.0.message.role":"system","llm.input_messages.0.message.content":"',
    '","llm.output_messages.0.message.role":"assistant","llm.output_messages.0.message.content":"',
    '{"input.value":"{\\"',
    '","output.value":"',
    '{"input.value":"',
  ].join(''),
);

// Output buffers sized for a span (zlib's default is 16 KiB per call): a fifth less time per call.
// Level 1: 4 µs a span less than level 6 for 2% more bytes (docs/performance.md, "Smaller span rows").
const DEFLATE_OPTIONS: zlib.ZlibOptions = { level: 1, dictionary: DICTIONARY_V1, chunkSize: 1024 };
const INFLATE_OPTIONS: zlib.ZlibOptions = { dictionary: DICTIONARY_V1, chunkSize: 4096 };

/** Attributes as stored: the JSON column's text and the compressed long values (null when none). */
export interface StoredAttributes {
  json: string;
  long: Buffer | null;
}

/** True when every value of `key` is stored in `long_attributes`, whatever its length. */
function isLongKey(key: string): boolean {
  for (const prefix of LONG_KEY_PREFIXES) if (key.startsWith(prefix)) return true;
  return false;
}

/** True when the value of `key` is stored in `long_attributes`. */
function isLong(key: string, value: unknown): boolean {
  if (JSON_COLUMN_KEYS.has(key)) return false;
  if (isLongKey(key)) return true;
  if (typeof value === 'string') return value.length > LONG_VALUE_CHARS;
  return value !== null && typeof value === 'object' && JSON.stringify(value).length > LONG_VALUE_CHARS;
}

/** Sets a key, `__proto__` included, as an own property (as the OTLP decoders do). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Attributes split for storage, the long values still JSON text (compressed by `packLongJson`). */
export interface SplitAttributes {
  json: string;
  long: string | null;
}

/** Splits attributes (flat dotted keys, as decoded) into the JSON column's text and the long values' JSON text. */
export function splitAttributes(attributes: Record<string, unknown>): SplitAttributes {
  let short: Record<string, unknown> | null = null;
  let long: Record<string, unknown> | null = null;
  for (const key of Object.keys(attributes)) {
    const value = attributes[key];
    if (isLong(key, value)) {
      if (long === null) {
        long = {};
        // The keys before the first long one were all short.
        short = {};
        for (const earlier of Object.keys(attributes)) {
          if (earlier === key) break;
          put(short, earlier, attributes[earlier]);
        }
      }
      put(long, key, value);
    } else if (short !== null) put(short, key, value);
  }
  if (long === null) return { json: JSON.stringify(attributes), long: null };
  return { json: JSON.stringify(short), long: JSON.stringify(long) };
}

/** Splits and compresses attributes, on the calling thread. */
export function storeAttributes(attributes: Record<string, unknown>): StoredAttributes {
  const split = splitAttributes(attributes);
  return { json: split.json, long: split.long === null ? null : packLongJson(split.long) };
}

/** Compresses the long values' JSON text (a string, or its UTF-8 bytes) into the stored format. */
export function packLongJson(json: string | Uint8Array): Buffer {
  const deflated = zlib.deflateRawSync(json, DEFLATE_OPTIONS);
  const packed = Buffer.allocUnsafe(deflated.length + 1);
  packed[0] = FORMAT_DEFLATE_V1;
  deflated.copy(packed, 1);
  return packed;
}

/** packLongJson of each UTF-8 text of a list (the compression thread's work), as one list. */
export function packLongJsonList(texts: ValueList): ValueList {
  const source = Buffer.from(texts.values);
  const parts: Buffer[] = [];
  const ends = new Uint32Array(texts.ends.length);
  let start = 0;
  let total = 0;
  for (const [index, end] of texts.ends.entries()) {
    const part = packLongJson(source.subarray(start, end));
    parts.push(part);
    total += part.length;
    ends[index] = total;
    start = end;
  }
  const packed = Buffer.concat(parts, total);
  // Its own ArrayBuffer (a concatenation this large never comes from Node's shared pool), so it can be transferred.
  const values =
    packed.byteOffset === 0 && packed.byteLength === packed.buffer.byteLength
      ? (packed.buffer as ArrayBuffer)
      : (packed.buffer.slice(packed.byteOffset, packed.byteOffset + total) as ArrayBuffer);
  return { values, ends };
}

/** The long values' object of a stored `long_attributes` value. Throws on an unknown format. */
export function unpackLongAttributes(packed: Uint8Array): Record<string, unknown> {
  if (packed[0] !== FORMAT_DEFLATE_V1) throw new Error(`long_attributes: unknown format ${packed[0]}`);
  const text = zlib.inflateRawSync(packed.subarray(1), INFLATE_OPTIONS).toString('utf8');
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * The span's attributes: the JSON column's object with the long values merged in. Rows written
 * before long values were split off (and never converted) have no long values: their JSON
 * column holds every attribute.
 */
export function mergeAttributes(short: Record<string, unknown>, packed: Uint8Array | null | undefined): Record<string, unknown> {
  if (packed === null || packed === undefined) return short;
  const long = unpackLongAttributes(packed);
  for (const key of Object.keys(long)) put(short, key, long[key]);
  return short;
}

/**
 * A long value as sql-dialect.ts's `attributeText` reads one from the JSON column: a string as
 * itself, an array or object as its JSON text, null when absent.
 */
export function longAttributeText(long: Record<string, unknown>, key: string): string | null {
  if (!Object.hasOwn(long, key)) return null;
  const value = long[key];
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * True when an attribute filter's candidate may match a value stored in `long_attributes`: any
 * value under a list key (messages, documents, ...), or a string as long as the values moved
 * there. Other strings, numbers and booleans are always in the JSON column; arrays and objects
 * are never matched by a filter.
 */
export function inLongAttributes(key: string, candidate: string | number | boolean): boolean {
  return isLong(key, candidate);
}
