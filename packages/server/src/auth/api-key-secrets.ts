/** API key strings: `sk-sl-` + 256 random bits; stored only as a SHA-256 digest. */
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'sk-sl-';

/** A new random API key, shown to its creator once. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * The digest stored and looked up. A fast hash is right here: the key has 256 bits of entropy,
 * so there is nothing to brute-force, and ingest checks it on every request.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** True for strings shaped like our API keys (cheap pre-check before any lookup). */
export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX) && token.length > API_KEY_PREFIX.length + 20;
}
