/**
 * A full-text query as people type it into a search box (docs/search.md): words that must all
 * appear, "quoted phrases" whose words must appear in that order, and a trailing `*` for a
 * prefix. The words are cut as the index cuts a span's text (span-model/search-text.ts), so a
 * hyphenated word or a run of Chinese characters becomes a phrase of its parts.
 */
import { InvalidInputError } from '@sightline/common';
import type { SearchQuery } from '../db/repositories/search-sql.js';
import { wordsOf } from '../span-model/search-text.js';

export const MAX_SEARCH_CHARS = 500;
export const MAX_SEARCH_TERMS = 16;

const TERM = /"([^"]*)"?|(\S+)/g;

/** Parses a search box's text; 422 when it holds no word or too many. */
export function parseSearchQuery(text: string): SearchQuery {
  if (text.length > MAX_SEARCH_CHARS) throw new InvalidInputError(`the search text is longer than ${MAX_SEARCH_CHARS} characters`);
  const phrases: SearchQuery['phrases'] = [];
  for (const match of text.matchAll(TERM)) {
    const quoted = match[1];
    const raw = quoted ?? match[2] ?? '';
    const prefix = quoted === undefined && raw.endsWith('*');
    const words = wordsOf(raw);
    if (words.length === 0) continue;
    phrases.push({ words, prefix });
  }
  if (phrases.length === 0)
    throw new InvalidInputError(`the search text ${JSON.stringify(text)} has no word to look for (letters or digits)`);
  if (phrases.length > MAX_SEARCH_TERMS)
    throw new InvalidInputError(`the search text has ${phrases.length} words or phrases; at most ${MAX_SEARCH_TERMS} are looked for`);
  return { phrases };
}

/** Every word of a query, for the UI's highlighting (the API echoes them). */
export function searchWords(query: SearchQuery): string[] {
  return [...new Set(query.phrases.flatMap((phrase) => phrase.words))];
}
