/**
 * The response serializer of routes whose answers are mostly spans in full: JSON.stringify into
 * UTF-8 bytes instead of fast-json-stringify's string.
 *
 * A span's attributes and events are free-form maps, which fast-json-stringify hands to
 * JSON.stringify anyway; around them its generated code concatenates thousands of pieces into
 * a rope that Fastify then measures (Buffer.byteLength) and the socket encodes again. For a
 * 200-span trace (300 KB) that was about 5 ms of a 20 ms answer; one JSON.stringify and one
 * encoding take about 2 (docs/performance.md, "PostgreSQL at 10M spans"). The bytes are the same:
 * a route using it must present exactly its documented fields, so that the schema's filtering has
 * nothing to remove; the trace page's test (api/traces.test.ts) compares its answer's bytes with
 * what the schema's serializer writes.
 */
import type { FastifySerializerCompiler } from 'fastify';

/** Serializes a response body to UTF-8 JSON bytes; Fastify sends a Buffer as it is. */
const serialize = (body: unknown): Buffer => Buffer.from(JSON.stringify(body), 'utf8');

/**
 * Route options for a span-heavy route: its serializer, for every status it answers. Fastify
 * types a serializer as returning a string, and accepts a Buffer (its reply sends either).
 */
export const bulkJson = {
  serializerCompiler: (() => serialize) as unknown as FastifySerializerCompiler<unknown>,
};
