/**
 * `attribute=key:value` filters of the span list. The key is a flat dotted attribute name; the
 * value is split off at the first colon. A value always matches the attribute as a string; when
 * it also reads as a JSON number or boolean it matches that too, so `llm.temperature:0.2` finds
 * 0.2 and "0.2". A JSON-quoted value (`user.id:"12345"`, as @arizeai/phoenix-client sends
 * strings that look like numbers) matches only the string.
 */
import type { AttributeScalar } from '../db/sql-dialect.js';
import { InvalidInputError } from '@sightline/common';

export interface AttributeFilter {
  key: string;
  /** The stored values that match (any of them). */
  candidates: AttributeScalar[];
}

/** Parses one `key:value` parameter; 422 for a missing colon, an empty key or value, or a null, list or object value. */
export function parseAttributeFilter(text: string): AttributeFilter {
  const colon = text.indexOf(':');
  if (colon < 0) throw new InvalidInputError(`invalid attribute filter "${text.slice(0, 100)}": expected key:value`);
  const key = text.slice(0, colon);
  const raw = text.slice(colon + 1);
  if (key === '') throw new InvalidInputError('invalid attribute filter: the key must not be empty');
  if (raw === '')
    throw new InvalidInputError(`invalid attribute filter "${key}:": the value must not be empty (send "" for the empty string)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { key, candidates: [raw] };
  }
  if (typeof parsed === 'string') return { key, candidates: [parsed] };
  if (typeof parsed === 'number' || typeof parsed === 'boolean') return { key, candidates: [raw, parsed] };
  throw new InvalidInputError(
    `invalid attribute filter value "${raw.slice(0, 100)}": must be a string, number or boolean (JSON-quote a string that looks like something else, e.g. key:"null")`,
  );
}
