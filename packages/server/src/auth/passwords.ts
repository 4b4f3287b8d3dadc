/** Password hashing (scrypt with a per-user salt), verification in constant time, and the password policy. */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 64;
const PARAMS: ScryptOptions = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const PREFIX = `scrypt:${PARAMS.N}:${PARAMS.r}:${PARAMS.p}:`;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export interface PasswordHash {
  /** `scrypt:N:r:p:<base64 key>`, so parameters can be raised later without breaking old hashes. */
  hash: string;
  /** base64 salt. */
  salt: string;
}

/** Hashes a password with a fresh random salt. */
export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return { hash: PREFIX + key.toString('base64'), salt: salt.toString('base64') };
}

/** True when the password matches; compares in constant time. */
export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const [scheme, n, r, p, encoded] = stored.hash.split(':');
  if (scheme !== 'scrypt' || encoded === undefined) return false;
  const expected = Buffer.from(encoded, 'base64');
  const key = await derive(password, Buffer.from(stored.salt, 'base64'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Burns the time of one verification, so unknown users answer as slowly as known ones. */
export async function verifyNothing(password: string): Promise<void> {
  await derive(password, Buffer.alloc(16), PARAMS);
}

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 256;

/** The first rule the password breaks, as a sentence, or null when it is acceptable. */
export function passwordProblem(password: unknown): string | null {
  if (typeof password !== 'string') return 'password must be a string';
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `password must be at least ${PASSWORD_MIN_LENGTH} characters long`;
  if (length > PASSWORD_MAX_LENGTH) return `password must be at most ${PASSWORD_MAX_LENGTH} characters long`;
  if (password.trim() === '') return 'password must not be only whitespace';
  return null;
}
