/**
 * Removing a provider key from what the provider said (docs/playground.md, "Keys and base
 * URLs"). Providers echo a refused key in their own ways: as sent, upper- or lower-cased, or
 * base64-encoded (a Basic credential, a token that wraps it), standard or URL-safe, alone or
 * inside a longer base64 text. Every such echo becomes `[key]`.
 */

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Shortest encoded run worth replacing: shorter ones could match ordinary text by chance. */
const MIN_ENCODED = 8;

/**
 * The base64 characters that encode the key whatever its offset in a longer encoded text: for each
 * of the three byte alignments, the characters made of the key's bits only (the first and last
 * characters of an alignment also hold bits of the bytes around it).
 */
function base64Cores(key: string): string[] {
  const bytes = Buffer.from(key, 'utf8');
  const cores: string[] = [];
  for (let shift = 0; shift < 3; shift += 1) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    const start = [0, 2, 3][shift]!;
    // A trailing group that is not whole has a last character shared with whatever follows.
    const end = (shift + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 1;
    const core = encoded.slice(start, end);
    if (core.length >= MIN_ENCODED) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...new Set(cores)];
}

/** The text with every echo of the key replaced by `[key]`. */
export function scrubKey(text: string, key: string | null): string {
  if (!key) return text;
  // The key in any case first, then its encodings (case matters in base64).
  let scrubbed = text.replace(new RegExp(escapeRegExp(key), 'gi'), '[key]');
  for (const core of base64Cores(key).sort((a, b) => b.length - a.length)) scrubbed = scrubbed.split(core).join('[key]');
  return scrubbed;
}
