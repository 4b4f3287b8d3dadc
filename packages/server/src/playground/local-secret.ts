/**
 * The key that encrypts stored provider keys when SERVICE_SECRET is not set (docs/playground.md,
 * "Provider keys"): with sign-in off and SQLite, the quick start, the server generates 48 random
 * bytes once and keeps them in its working directory (mode 0600), beside the database they
 * protect. Never with sign-in on (it needs SERVICE_SECRET, which then seals the keys too) and
 * never with PostgreSQL, whose replicas would each generate a key of their own and could not
 * read each other's values.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const LOCAL_SECRET_FILE = 'provider-keys.secret';

/** The secret in `workingDir`, created when missing; a file that holds too little is refused rather than replaced. */
export function localSecret(workingDir: string): string {
  const file = path.join(workingDir, LOCAL_SECRET_FILE);
  fs.mkdirSync(workingDir, { recursive: true });
  try {
    // `wx`: two servers starting at once on one directory do not both write a key.
    fs.writeFileSync(file, `${randomBytes(48).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (secret.length < 32)
    throw new Error(
      `${file} holds ${secret.length} characters, fewer than 32: delete it (stored provider keys are then lost) or set SERVICE_SECRET`,
    );
  return secret;
}

/** The secret that seals provider keys: SERVICE_SECRET, else the local one when allowed, else none. */
export function providerKeySecret(config: {
  secret: string | null;
  enableAuth: boolean;
  workingDir: string;
  dialect: string;
}): string | null {
  if (config.secret) return config.secret;
  if (config.enableAuth || config.dialect !== 'sqlite') return null;
  return localSecret(config.workingDir);
}
