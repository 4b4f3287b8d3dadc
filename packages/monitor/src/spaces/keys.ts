/**
 * API keys and space keys: 256 random bits behind a recognizable prefix; only their SHA-256
 * digest is stored. A fast hash is right for secrets with 256 bits of entropy (nothing to
 * brute-force), and the service checks them on every request.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'slm-ak-';
export const SPACE_KEY_PREFIX = 'slm-sk-';

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function generateSpaceKey(): string {
  return SPACE_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** SHA-256 of the key's UTF-8 bytes. */
export function digest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** The stored form: hex SHA-256. */
export function hashKey(key: string): string {
  return digest(key).toString('hex');
}

/** Constant-time comparison of two secrets (compared as SHA-256 digests, so lengths never leak). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/** Constant-time comparison of a presented key with a stored hex digest. */
export function matchesHash(key: string, storedHash: Buffer): boolean {
  return storedHash.length === 32 && timingSafeEqual(digest(key), storedHash);
}
