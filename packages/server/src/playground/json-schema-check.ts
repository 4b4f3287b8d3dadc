/**
 * Whether a value is a JSON schema (draft-07, or 2019-09 / 2020-12 when its `$schema` says so),
 * checked against the draft's meta-schema: the playground refuses a tool's parameters or a
 * response format's schema that no provider could read (docs/playground.md, "Tools").
 */
import { Ajv, type ErrorObject } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';

type AnyAjv = Ajv | Ajv2019 | Ajv2020;
// Only the meta-schemas are compiled, once each: checking a schema adds nothing to an instance.
const instances = new Map<string, AnyAjv>();

function ajvFor(declared: string): AnyAjv {
  const draft = declared.includes('2020-12') ? '2020-12' : declared.includes('2019-09') ? '2019-09' : 'draft-07';
  let ajv = instances.get(draft);
  if (!ajv) {
    const options = { strict: false, logger: false as const };
    ajv = draft === '2020-12' ? new Ajv2020(options) : draft === '2019-09' ? new Ajv2019(options) : new Ajv(options);
    instances.set(draft, ajv);
  }
  return ajv;
}

/** The first problem of `schema` as a sentence starting with `name` (e.g. `parameters/properties/city/type must be …`), or null. */
export function jsonSchemaProblem(schema: unknown, name: string): string | null {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return `${name} must be a JSON object`;
  const declared = (schema as { $schema?: unknown }).$schema;
  const ajv = ajvFor(typeof declared === 'string' ? declared : '');
  let valid: boolean;
  try {
    valid = ajv.validateSchema(schema) as boolean;
  } catch (error) {
    // An unknown $schema: Ajv has no meta-schema to check against.
    return `${name} cannot be checked: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (valid) return null;
  const first = ajv.errors?.[0];
  return first ? describe(first, name) : `${name} is not a JSON schema`;
}

function describe(error: ErrorObject, name: string): string {
  const allowed = (error.params as { allowedValues?: unknown }).allowedValues;
  const where = `${name}${error.instancePath}`;
  const list = Array.isArray(allowed) ? ` (${allowed.map((value) => JSON.stringify(value)).join(', ')})` : '';
  return `${where} ${error.message ?? 'is not valid'}${list}`;
}
