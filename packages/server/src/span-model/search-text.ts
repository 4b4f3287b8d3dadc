/**
 * The words of a span that full-text search finds (docs/search.md): its input and output values
 * and the text of its LLM messages, cut into words here rather than by the database, so that
 * SQLite's FTS5 and PostgreSQL's tsvector index exactly the same words and a query is cut the
 * same way as the text it looks for.
 *
 * A word is a run of letters, digits and combining marks, lower-cased, with the accents of Latin
 * letters folded (café finds cafe). Scripts written without spaces between words (Chinese,
 * Japanese, Thai, Lao, Khmer, Myanmar) have no word boundary a tokenizer can see, so each of
 * their characters is a word of its own and a query for 你好 is the phrase 你 好: any run of
 * characters is found, whatever the language.
 */
import type { Attributes } from './decoded-spans.js';
import { INPUT_VALUE, OUTPUT_VALUE } from './conventions/attribute-names.js';

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
 * The indexed words of a span, one space between them (the form both databases store), or null
 * when it has none. Reads input.value, output.value and the message texts, in that order.
 */
export function searchTextOf(attributes: Attributes): string | null {
  const words: string[] = [];
  const add = (value: unknown) => {
    const text = textOf(value);
    if (text) appendWords(text.length > MAX_INDEXED_VALUE_CHARS ? text.slice(0, MAX_INDEXED_VALUE_CHARS) : text, words);
  };
  add(attributes[INPUT_VALUE]);
  add(attributes[OUTPUT_VALUE]);
  for (const key in attributes) {
    if (words.length >= MAX_INDEXED_WORDS) break;
    if (MESSAGE_TEXT.test(key)) add(attributes[key]);
  }
  return words.length === 0 ? null : words.join(' ');
}
