/**
 * JSON with integers that JavaScript numbers cannot hold exactly (nanosecond times: about 1.8e18,
 * past 2^53). `exactInteger(text)` marks a decimal integer; `stringifyExact` writes it as a bare JSON
 * number with every digit, where JSON.stringify of a number would round it.
 */

/** A decimal integer to be written as a JSON number digit for digit. */
export class ExactInteger {
  constructor(readonly digits: string) {
    if (!/^-?\d+$/.test(digits)) throw new Error(`not a decimal integer: ${digits}`);
  }
}

export const exactInteger = (value: bigint | string) => new ExactInteger(String(value));

// A NUL never reaches a stored string (ingest and the API store U+FFFD instead, docs/api.md), so
// no value of the data can look like the marker once JSON.stringify has escaped it.
const MARKER = '\u0000exact:';
const MARKED = /"\\u0000exact:(-?\d+)"/g;

/** JSON.stringify, with each ExactInteger written as the number it names. */
export function stringifyExact(value: unknown): string {
  const text = JSON.stringify(value, (_key, item: unknown) => (item instanceof ExactInteger ? `${MARKER}${item.digits}` : item));
  return text.replace(MARKED, '$1');
}
