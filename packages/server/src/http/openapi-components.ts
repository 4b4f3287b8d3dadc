/**
 * Names in the OpenAPI document: every schema that carries a `title` (User, Span, Project, …:
 * the TypeBox schemas of api/*-schemas.ts) moves to `components.schemas` under that name and
 * is referenced from where it was, so the document and the client generated from it expose
 * each shape by name (docs/api.md). Schemas with the same title and different content keep a
 * numbered name, so nothing is lost.
 */

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The schema without `description`: two uses of one shape may be described differently. */
function shape(schema: JsonObject): string {
  const { description: _description, ...rest } = schema;
  return JSON.stringify(rest);
}

/** Returns the document with titled schemas hoisted into components.schemas (the input is not modified). */
export function hoistNamedSchemas<T extends object>(document: T): T {
  const copy = structuredClone(document) as JsonObject;
  if (!isObject(copy.components)) copy.components = {};
  const components = copy.components as JsonObject;
  if (!isObject(components.schemas)) components.schemas = {};
  const named = components.schemas as JsonObject;
  const shapes = new Map<string, string>();
  for (const [name, schema] of Object.entries(named)) if (isObject(schema)) shapes.set(shape(schema), name);

  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isObject(node)) return node;
    const result: JsonObject = {};
    for (const [key, value] of Object.entries(node)) result[key] = visit(value);
    const title = result.title;
    if (typeof title !== 'string' || !('type' in result || 'anyOf' in result || 'oneOf' in result)) return result;
    const key = shape(result);
    let name = shapes.get(key);
    if (name === undefined) {
      name = title;
      for (let n = 2; name in named; n++) name = `${title}${n}`;
      const { description: _description, ...stored } = result;
      named[name] = stored;
      shapes.set(key, name);
    }
    const reference: JsonObject = { $ref: `#/components/schemas/${name}` };
    if (typeof result.description === 'string') reference.description = result.description;
    return reference;
  };

  for (const [key, value] of Object.entries(copy)) if (key !== 'components') copy[key] = visit(value);
  return copy as T;
}
