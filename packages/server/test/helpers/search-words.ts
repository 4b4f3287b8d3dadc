/** Random spans' attributes for the search-text tests, and the words cutting each of their values gives. */
import type { prng } from '@sightline/common/testing';
import type { Attributes } from '../../src/span-model/decoded-spans.js';
import { appendWords, MAX_INDEXED_VALUE_CHARS, MAX_INDEXED_WORDS } from '../../src/span-model/search-text.js';

/** The span's words as cutting every value gives them, in order, up to the span's limit. */
export function expectedWords(attributes: Attributes): string[] {
  const words: string[] = [];
  const values = [attributes['input.value'], attributes['output.value']];
  for (const key of Object.keys(attributes))
    if (/^llm\.(input|output)_messages\.\d+\.message\.content$/.test(key)) values.push(attributes[key]);
  const seen = new Set<string>();
  for (const value of values) {
    const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
    if (text && !seen.has(text)) appendWords(text.slice(0, MAX_INDEXED_VALUE_CHARS), words, MAX_INDEXED_WORDS);
    if (text) seen.add(text);
  }
  return words;
}

const PIECES = [
  'Refund',
  'POLICY',
  'gpt-4o',
  "don't",
  '{"question": "Where is my order?"}',
  '  ',
  '...',
  '\n',
  'Café',
  'naïve',
  '退款',
  'キャンセル',
  'привет',
  'İstanbul',
  'x'.repeat(70),
  'A1b2'.repeat(20),
  '٣٤',
  '\u0000',
  '\u0012',
];

export function randomAttributes(random: ReturnType<typeof prng>): Attributes {
  const text = (pieces: number) => {
    let out = '';
    for (let i = 0; i < pieces; i++) out += random.pick(PIECES) + (random.chance(0.7) ? ' ' : random.pick(['', ',', '-', '"']));
    return out;
  };
  const attributes: Attributes = { 'llm.model_name': 'gpt-4o', 'input.mime_type': 'text/plain' };
  if (random.chance(0.9)) attributes['input.value'] = text(random.int(30));
  if (random.chance(0.8)) attributes['output.value'] = random.chance(0.1) ? random.int(1000) : text(random.int(30));
  const messages = random.int(4);
  for (let i = 0; i < messages; i++) {
    // Now and then the input again, as instrumentations repeat the user's message.
    const repeated = attributes['input.value'];
    attributes[`llm.input_messages.${i}.message.content`] = random.chance(0.2) && repeated !== undefined ? repeated : text(random.int(20));
  }
  return attributes;
}
