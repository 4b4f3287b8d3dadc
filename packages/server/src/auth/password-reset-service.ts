/** Password recovery by email: single-use, short-lived links; only the newest link works. */
import { createHash, randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import type { PasswordResetRepository } from '../db/repositories/password-reset-repository.js';
import type { UsersRepository } from '../db/repositories/users-repository.js';
import { InvalidInputError, UnauthenticatedError, UnavailableError } from '@sightline/common';
import { normalizeEmail } from './emails.js';
import type { Mailer } from './mailer.js';
import { hashPassword, passwordProblem } from './passwords.js';
import { publicBaseUrl } from './public-url.js';
import type { LoginSessionsService } from './login-sessions-service.js';

interface Dependencies {
  config: Config;
  users: UsersRepository;
  resets: PasswordResetRepository;
  sessions: LoginSessionsService;
  mailer: Mailer | null;
  onError?: (error: unknown) => void;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export type PasswordResetService = ReturnType<typeof createPasswordResetService>;

/** The password reset service. */
export function createPasswordResetService({ config, users, resets, sessions, mailer, onError }: Dependencies) {
  const sendLink = async (email: string, now: Date) => {
    const user = await users.findByEmail(email);
    // Deleted users and IDP users get nothing; the caller cannot tell the difference.
    if (!user || user.deletedAt !== null || user.authMethod !== 'LOCAL') return;
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now.getTime() + config.passwordResetTokenExpiryMinutes * 60_000);
    await resets.replace(user.id, hashToken(token), now.toISOString(), expiresAt.toISOString());
    const link = `${publicBaseUrl(config)}/reset-password-with-token?token=${token}`;
    const minutes = config.passwordResetTokenExpiryMinutes;
    await mailer!.send({
      to: user.email,
      subject: 'Reset your Sightline password',
      text: `Someone asked to reset the password of ${user.email} on Sightline.\n\nTo choose a new password, open this link within ${minutes} minutes:\n${link}\n\nIf it was not you, ignore this mail: your password stays as it is.\n`,
      html: `<p>Someone asked to reset the password of <b>${escapeHtml(user.email)}</b> on Sightline.</p><p><a href="${escapeHtml(link)}">Choose a new password</a> (the link works once, for ${minutes} minutes).</p><p>If it was not you, ignore this mail: your password stays as it is.</p>`,
    });
  };

  return {
    /**
     * Mails a reset link to an active local user with this email. Answers the same way whether or
     * not such a user exists: the work happens after the response, so timing reveals nothing either.
     */
    requestReset(rawEmail: unknown, now = new Date()): void {
      if (mailer === null) throw new UnavailableError('password recovery by email is not available: SMTP is not configured');
      if (typeof rawEmail !== 'string' || rawEmail.trim() === '') throw new InvalidInputError('email is required');
      sendLink(normalizeEmail(rawEmail), now).catch((error: unknown) => onError?.(error));
    },

    /** Sets a new password from a mailed token; every session of the user ends. */
    async resetPassword(token: unknown, password: unknown, now = new Date()): Promise<void> {
      const invalid = () => new UnauthenticatedError('this reset link is invalid, already used, replaced by a newer one, or expired');
      if (typeof token !== 'string' || token === '') throw invalid();
      const problem = passwordProblem(password);
      const record = await resets.find(hashToken(token));
      if (!record || record.usedAt !== null || Date.parse(record.expiresAt) <= now.getTime()) throw invalid();
      if (problem) throw new InvalidInputError(problem);
      const user = await users.findActiveById(record.userId);
      if (user?.authMethod !== 'LOCAL') throw invalid();
      if (!(await resets.markUsed(hashToken(token), now.toISOString()))) throw invalid();
      const hashed = await hashPassword(password as string);
      await users.update(user.id, { passwordHash: hashed.hash, passwordSalt: hashed.salt, passwordNeedsReset: false }, now.toISOString());
      await sessions.revokeAll(user.id, now);
    },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
