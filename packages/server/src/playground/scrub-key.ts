/** Removing a provider key from what the provider said (docs/playground.md, "Keys and base URLs"). */

/** The text with every echo of the key replaced by `[key]`. */
export function scrubKey(text: string, key: string | null): string {
  if (!key) return text;
  return text.split(key).join('[key]');
}
