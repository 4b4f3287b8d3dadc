/**
 * The input, output and metadata of an example typed by hand (docs/ui.md, "Datasets"): each must
 * be a JSON object, as the server stores them (docs/datasets.md); the sentence says what is wrong.
 */
export type ParsedObject = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

const kindOf = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'string' ? 'a string' : `a ${typeof value}`;

/** The object in the text; blank text is `{}` unless `required`. */
export function parseObject(text: string, required: boolean): ParsedObject {
  if (text.trim() === '')
    return required ? { ok: false, error: 'Required: a JSON object such as {"question": "…"}.' } : { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: `Must be a JSON object ({…}), not ${kindOf(value)}.` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** A starting text with the keys of an existing document, each empty: what the dataset's examples hold. */
export function templateOf(document: Record<string, unknown> | undefined): string {
  if (document === undefined || Object.keys(document).length === 0) return '';
  return JSON.stringify(Object.fromEntries(Object.keys(document).map((key) => [key, ''])), null, 2);
}
