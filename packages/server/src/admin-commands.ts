/** Operator commands run on the host against the configured database (no server needed). */
import { randomBytes } from 'node:crypto';
import type { Config } from './config.js';
import { createAuthLayer, type AuthLayer } from './auth/index.js';
import { openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { DomainError } from '@sightline/common';

/** A strong random password an operator can hand over (the user must change it). */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

async function withAuth<T>(config: Config, action: (auth: AuthLayer) => Promise<T>): Promise<T> {
  const database = openDatabase(config.database);
  try {
    await migrateToLatest(database);
    return await action(createAuthLayer(config, database));
  } catch (error) {
    // Service refusals read as sentences already; show them as the command's one-line reason.
    if (error instanceof DomainError) throw new Error(error.message);
    throw error;
  } finally {
    await database.close();
  }
}

export interface CreateUserOptions {
  email: string;
  username: string;
  role: string;
  password?: string;
}

/** Creates a local user; returns the password to hand over when one was generated. */
export async function createUserCommand(
  config: Config,
  options: CreateUserOptions,
): Promise<{ email: string; generatedPassword?: string }> {
  const password = options.password ?? generatePassword();
  return withAuth(config, async (auth) => {
    const user = await auth.users.create({
      email: options.email,
      username: options.username,
      role: options.role,
      authMethod: 'LOCAL',
      password,
    });
    return { email: user.email, ...(options.password === undefined && { generatedPassword: password }) };
  });
}

/** Sets a new password (given or generated); the user must change it at next login. */
export async function resetPasswordCommand(
  config: Config,
  email: string,
  password?: string,
): Promise<{ email: string; generatedPassword?: string }> {
  const newPassword = password ?? generatePassword();
  return withAuth(config, async (auth) => {
    const user = await auth.users.resetPasswordByEmail(email, newPassword);
    return { email: user.email, ...(password === undefined && { generatedPassword: newPassword }) };
  });
}
