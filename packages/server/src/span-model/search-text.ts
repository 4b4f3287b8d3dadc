/**
 * The words of a span that full-text search finds (docs/search.md): its input and output values
 * and the text of its LLM messages, cut into words by the rules here rather than by a database's
 * own, so that SQLite's FTS5 and PostgreSQL's tsvector index exactly the same words and a query
 * is cut the same way as the text it looks for.
 *
 * A word is a run of letters, digits and combining marks, lower-cased, with the accents of Latin
 * letters folded (café finds cafe). Scripts written without spaces between words (Chinese,
 * Japanese, Thai, Lao, Khmer, Myanmar) have no word boundary a tokenizer can see, so each of
 * their characters is a word of its own and a query for 你好 is the phrase 你 好: any run of
 * characters is found, whatever the language.
 */
import type { Attributes } from './decoded-spans.js';
import { INPUT_VALUE, OUTPUT_VALUE } from './conventions/attribute-names.js';

/**
 * A row's search text when ingest did not cut its words: the SQLite indexer was holding back, the
 * machine being saturated, and indexes such spans later from the database (docs/search.md,
 * "SQLite"). searchTextOf never returns it: a text without words is null.
 */
export const DEFERRED_SEARCH_TEXT = '';

/** Most characters of one value that are indexed: a prompt's first pages, not a whole document pasted into it. */
export const MAX_INDEXED_VALUE_CHARS = 8_000;
/** Most words indexed per span (PostgreSQL keeps word positions up to 16,383). */
export const MAX_INDEXED_WORDS = 8_000;
/** Longer words (hashes, base64) are cut to this many characters, in the text and in queries alike. */
const MAX_WORD_CHARS = 64;

const RUN = /[\p{L}\p{N}\p{M}]+/gu;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const UNSPACED_SPLIT =
  /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}])/u;
const LATIN_ACCENT = /(\p{Script=Latin})\p{Mn}+/gu;
const PLAIN = /^[\x00-\x7f]*$/;

function normalize(run: string): string {
  const lower = run.toLowerCase();
  if (PLAIN.test(lower)) return lower;
  return lower.normalize('NFD').replace(LATIN_ACCENT, '$1').normalize('NFC');
}

/** Appends the words of `text` to `words`, up to `limit` words in all. */
export function appendWords(text: string, words: string[], limit = MAX_INDEXED_WORDS): void {
  for (const match of text.matchAll(RUN)) {
    if (words.length >= limit) return;
    const run = normalize(match[0]);
    if (!UNSPACED.test(run)) {
      words.push(run.length > MAX_WORD_CHARS ? run.slice(0, MAX_WORD_CHARS) : run);
      continue;
    }
    for (const part of run.split(UNSPACED_SPLIT)) {
      if (part === '') continue;
      if (words.length >= limit) return;
      words.push(part.length > MAX_WORD_CHARS ? part.slice(0, MAX_WORD_CHARS) : part);
    }
  }
}

/** The words of a text, as the index holds them. */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  appendWords(text, words);
  return words;
}

/** OpenInference's message texts: `llm.input_messages.0.message.content` and the parts of a multi-part message. */
const MESSAGE_TEXT = /^llm\.(?:input|output)_messages\.\d+\.message\.(?:content|contents\.\d+\.message_content\.text)$/;

function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/**
 * A span's search text, the form both databases index, or null when it has none. Reads
 * input.value, output.value and the message texts, in that order, each distinct text once.
 *
 * Its words are its runs of ASCII letters and digits and of non-ASCII characters, lower-cased:
 * the words FTS5's `ascii` tokenizer sees (indexedWords cuts it the same way for PostgreSQL). A
 * plain ASCII value is therefore kept as it is, its words being exactly the runs of [A-Za-z0-9]
 * that wordsOf cuts, and SQLite's tokenizer, on the writer thread, does the cutting. Other values,
 * values with a word longer than MAX_WORD_CHARS and spans that may hold more than
 * MAX_INDEXED_WORDS are cut here, into their words with a space between them. Cutting every
 * value here cost about 25 µs a span of the ingest benchmark, now about 6 (docs/performance.md).
 */
export function searchTextOf(attributes: Attributes): string | null {
  const values: string[] = [];
  // A text already read is not indexed twice: instrumentations often give the user's message as
  // input.value and the answer as output.value, and the same texts again as messages. Doubling
  // them found nothing more and doubled the index's work at ingest.
  const seen = new Set<string>();
  const add = (value: unknown) => {
    const text = textOf(value);
    if (!text || seen.has(text)) return;
    seen.add(text);
    values.push(text.length > MAX_INDEXED_VALUE_CHARS ? text.slice(0, MAX_INDEXED_VALUE_CHARS) : text);
  };
  add(attributes[INPUT_VALUE]);
  add(attributes[OUTPUT_VALUE]);
  for (const key of messageKeys(attributes)) add(attributes[key]);
  if (values.length === 0) return null;
  // A text of n characters holds at most (n + 1) / 2 words: below the limit, nothing is counted.
  let wordBound = 0;
  for (const value of values) wordBound += (value.length + 1) / 2;
  if (wordBound >= MAX_INDEXED_WORDS) {
    const words: string[] = [];
    for (const value of values) appendWords(value, words);
    return words.length === 0 ? null : words.join(' ');
  }
  let text = '';
  for (const value of values) {
    const part = NOT_PLAIN.test(value) || hasLongPlainWord(value) ? wordsOf(value).join(' ') : value;
    if (part !== '') text = text === '' ? part : `${text} ${part}`;
  }
  return text === '' || NO_WORD.test(text) ? null : text;
}

/**
 * The message text keys of the attributes, input messages then output messages, each in its
 * index's order. The order is the attributes' own only as the instrumentation sent them:
 * PostgreSQL's jsonb sorts keys by length, and a long value read back from its own column comes
 * last (span-model/long-attributes.ts). Sorted, a span stored and read back gives the same text,
 * word positions included, as the span at ingest (docs/search.md).
 */
function messageKeys(attributes: Attributes): string[] {
  const keys: string[] = [];
  let sorted = true;
  for (const key in attributes) {
    if (!MESSAGE_TEXT.test(key)) continue;
    if (sorted && keys.length > 0 && compareKeys(keys[keys.length - 1]!, key) > 0) sorted = false;
    keys.push(key);
  }
  // Instrumentations send the messages in order: sorting is rarely needed.
  return sorted ? keys : keys.sort(compareKeys);
}

/**
 * Compares two keys as text, but a run of digits by its number: `messages.2` before
 * `messages.10`. Without splitting the keys: it runs on every span's message keys at ingest.
 */
function compareKeys(a: string, b: string): number {
  const shared = Math.min(a.length, b.length);
  let at = 0;
  while (at < shared && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  if (at === shared) return a.length - b.length;
  // Where the keys differ inside a number (`1` and `10`, `2` and `10`), the whole numbers decide.
  let start = at;
  while (start > 0 && isDigit(a.charCodeAt(start - 1))) start--;
  const endA = digitsEnd(a, start);
  const endB = digitsEnd(b, start);
  if (endA > start && endB > start) {
    const difference = Number(a.slice(start, endA)) - Number(b.slice(start, endB));
    if (difference !== 0) return difference;
  }
  return a.charCodeAt(at) - b.charCodeAt(at);
}

const isDigit = (code: number) => code >= 48 && code <= 57;

function digitsEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && isDigit(text.charCodeAt(end))) end++;
  return end;
}

const NOT_PLAIN = /[^\x00-\x7f]/;
/** True for a text without a word: no ASCII letter or digit and no other character. */
const NO_WORD = /^[^A-Za-z0-9\u0080-\uffff]*$/;
/** Runs of ASCII characters that are neither letters nor digits: what separates the words of a search text. */
const SEPARATORS = /[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/;

/**
 * Whether a plain ASCII text has a run of more than MAX_WORD_CHARS letters and digits. A loop: the
 * pattern /[A-Za-z0-9]{65}/ backtracks at every character and costs five times as much.
 */
function hasLongPlainWord(text: string): boolean {
  let run = 0;
  for (let index = 0; index < text.length; index++) {
    // OR 32 lower-cases a letter; it also maps the control characters 16 to 25 onto the digits,
    // which can only send a text with such a run the slower, exact way.
    const code = text.charCodeAt(index) | 32;
    if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
      if (++run > MAX_WORD_CHARS) return true;
    } else run = 0;
  }
  return false;
}

/** The words of a search text (searchTextOf), as FTS5's `ascii` tokenizer cuts it: PostgreSQL's index holds these. */
export function indexedWords(searchText: string): string[] {
  return searchText
    .toLowerCase()
    .split(SEPARATORS)
    .filter((word) => word !== '');
}
