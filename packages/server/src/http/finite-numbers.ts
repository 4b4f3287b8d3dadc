/**
 * Numbers in query strings and paths that read as ±Infinity ("1e999", "Infinity"): Ajv's type
 * coercion turns them into Infinity and then lets them pass `integer`, `minimum` and `maximum`,
 * so `?limit=1e999` reached the database as `LIMIT Infinity` (a 500, found by the API fuzzer).
 * This hook refuses them with 422 before validation, for every parameter its schema calls a number.
 */
import type { FastifyInstance } from 'fastify';
import { InvalidInputError } from '@sightline/common';

type Schema = Record<string, unknown>;

const isNumeric = (schema: unknown): boolean => {
  if (typeof schema !== 'object' || schema === null) return false;
  const { type, items, anyOf } = schema as Schema;
  if (type === 'integer' || type === 'number') return true;
  if (Array.isArray(type) && type.some((item) => item === 'integer' || item === 'number')) return true;
  if (Array.isArray(anyOf)) return anyOf.some(isNumeric);
  return type === 'array' && isNumeric(items);
};

const numericKeysOf = new WeakMap<object, string[]>();

/** The names of the schema's numeric properties (computed once per schema). */
function numericKeys(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  let keys = numericKeysOf.get(schema);
  if (keys === undefined) {
    const properties = ((schema as Schema).properties ?? {}) as Record<string, unknown>;
    keys = Object.entries(properties)
      .filter(([, property]) => isNumeric(property))
      .map(([key]) => key);
    numericKeysOf.set(schema, keys);
  }
  return keys;
}

function check(where: string, schema: unknown, values: unknown): void {
  if (typeof values !== 'object' || values === null) return;
  for (const key of numericKeys(schema)) {
    const value = (values as Record<string, unknown>)[key];
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string' && Math.abs(Number(item)) === Number.POSITIVE_INFINITY) {
        throw new InvalidInputError(`${where}.${key}: must be a finite number, got "${item.slice(0, 40)}"`);
      }
    }
  }
}

/** Adds the check to every route of the scope. */
export function finiteNumbers(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const schema = request.routeOptions.schema;
    check('query', schema?.querystring, request.query);
    check('path', schema?.params, request.params);
  });
}
