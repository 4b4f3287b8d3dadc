/**
 * Template variables per template format (docs/prompts.md): MUSTACHE (`{{name}}`, parsed by
 * mustache.js), F_STRING (Python `str.format` fields, `{name}`, with `{{` and `}}` as literal
 * braces) and NONE (no variables). A template that its format cannot render is malformed.
 */
import mustache from 'mustache';

export const TEMPLATE_FORMATS = ['MUSTACHE', 'F_STRING', 'NONE'] as const;
export type TemplateFormat = (typeof TEMPLATE_FORMATS)[number];

/** Thrown for a template its format cannot render; the message says where and why. */
export class MalformedTemplateError extends Error {
  override readonly name = 'MalformedTemplateError';
}

// A variable is a name optionally followed by `.attr` or `[index]` parts, as both formats allow.
const VARIABLE_PATH = /^[\p{L}_][\p{L}\p{N}_-]*(?:\.[\p{L}_][\p{L}\p{N}_-]*|\[\d+\])*$/u;

/** The root variable names a template uses; throws MalformedTemplateError when it cannot be rendered. */
export function templateVariables(format: TemplateFormat, text: string): string[] {
  switch (format) {
    case 'MUSTACHE':
      return mustacheVariables(text);
    case 'F_STRING':
      return fStringVariables(text);
    case 'NONE':
      return [];
  }
}

type MustacheToken = [type: string, value: string, start: number, end: number, children?: MustacheToken[]];

function mustacheVariables(text: string): string[] {
  let tokens: MustacheToken[];
  try {
    // A writer of its own: the default one caches every template it ever parsed.
    tokens = new mustache.Writer().parse(text) as MustacheToken[];
  } catch (error) {
    throw new MalformedTemplateError(`malformed mustache template: ${(error as Error).message}`);
  }
  const names = new Set<string>();
  const walk = (list: MustacheToken[]): void => {
    for (const [type, value, start, , children] of list) {
      if (type === '>') throw new MalformedTemplateError(`mustache partials are not supported ("{{> ${value}}}" at ${start})`);
      if (type === 'name' || type === '&' || type === '#' || type === '^') {
        // `{{.}}` is the current item inside a section.
        if (value !== '.' && !VARIABLE_PATH.test(value)) {
          throw new MalformedTemplateError(`invalid mustache variable ${JSON.stringify(value)} at ${start}`);
        }
        if (value !== '.') names.add(rootOf(value));
      }
      if (children) walk(children);
    }
  };
  walk(tokens);
  return [...names];
}

/** Fields of a Python format string, as `string.Formatter().parse` reads them. */
function fStringVariables(text: string): string[] {
  const names = new Set<string>();
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '{' && text[i + 1] === '{') {
      i += 2;
    } else if (char === '}' && text[i + 1] === '}') {
      i += 2;
    } else if (char === '}') {
      throw new MalformedTemplateError(`malformed f-string template: single '}' at ${i} (write '}}' for a literal brace)`);
    } else if (char === '{') {
      const end = fieldEnd(text, i);
      const field = text.slice(i + 1, end);
      // The field name ends at a conversion (`!r`) or a format spec (`:>10`).
      const name = field.split(/[!:]/u, 1)[0]!.trim();
      if (!VARIABLE_PATH.test(name)) {
        throw new MalformedTemplateError(
          `malformed f-string template: invalid field ${JSON.stringify(`{${field}}`)} at ${i} (write '{{' for a literal brace)`,
        );
      }
      names.add(rootOf(name));
      i = end + 1;
    } else {
      i += 1;
    }
  }
  return [...names];
}

/** Index of the `}` closing the field opened at `start`; a format spec may nest one level of fields. */
function fieldEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '{') depth += 1;
    else if (text[i] === '}') {
      if (depth === 0) return i;
      depth -= 1;
    }
  }
  throw new MalformedTemplateError(`malformed f-string template: '{' at ${start} is never closed (write '{{' for a literal brace)`);
}

const rootOf = (path: string): string => path.split(/[.[]/u, 1)[0]!;
