/**
 * Request input made storable: PostgreSQL rejects NUL in text and lone surrogates in jsonb, so
 * a parameter or body holding one would fail its query (a 500). Ingest stores such characters
 * as U+FFFD (storableString); applying the same mapping to request input keeps lookups of the
 * stored values exact and makes every such request an ordinary one.
 */
import type { FastifyInstance } from 'fastify';
import { storableString } from '../ingest/otlp-model.js';

/** The value with every string (object keys included) passed through storableString. */
export function storableDeep(value: unknown): unknown {
  if (typeof value === 'string') return storableString(value);
  if (value instanceof Uint8Array) return value; // binary bodies (OTLP protobuf) are decoded elsewhere
  if (Array.isArray(value)) return value.map(storableDeep);
  if (value !== null && typeof value === 'object') {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(result, storableString(key), {
        value: storableDeep(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return result;
  }
  return value;
}

/** Adds a hook that maps the path parameters, query string and parsed body of every route in the scope. */
export function storableInput(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    request.params = storableDeep(request.params);
    request.query = storableDeep(request.query);
    if (request.body !== undefined) request.body = storableDeep(request.body);
  });
}
