/**
 * Request input made storable: PostgreSQL rejects NUL in text and lone surrogates in jsonb, so
 * a parameter or body holding one would fail its query (a 500). Ingest stores such characters
 * as U+FFFD (storableString); applying the same mapping to request input keeps lookups of the
 * stored values exact and makes every such request an ordinary one.
 */
import type { FastifyInstance } from 'fastify';
import { InvalidInputError } from '@sightline/common';
import { storableString } from '../span-model/decoded-spans.js';

/**
 * Deepest nesting of arrays and objects accepted in request input. JSON.parse reads any depth, but
 * this walk (and every later one) recurses: a body of 100,000 `[` overflowed the stack (a 500, found
 * by the API fuzzer). Real input (dataset examples, annotations, prompts) stays far below it.
 */
export const MAX_INPUT_DEPTH = 256;

/** The value with every string (object keys included) passed through storableString; 422 beyond MAX_INPUT_DEPTH. */
export function storableDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return storableString(value);
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value; // binary bodies (OTLP protobuf) are decoded elsewhere
  if (depth >= MAX_INPUT_DEPTH) throw new InvalidInputError(`the input nests arrays and objects more than ${MAX_INPUT_DEPTH} levels deep`);
  if (Array.isArray(value)) return value.map((item) => storableDeep(item, depth + 1));
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    Object.defineProperty(result, storableString(key), {
      value: storableDeep(item, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

/** Adds a hook that maps the path parameters, query string and parsed body of every route in the scope. */
export function storableInput(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    request.params = storableDeep(request.params);
    request.query = storableDeep(request.query);
    if (request.body !== undefined) request.body = storableDeep(request.body);
  });
}
