/** The server's password policy (docs/auth.md, "Protection against guessing and forgery"), checked before sending for a quicker answer. */
export function passwordProblem(password: string): string | null {
  if (password.length < 8) return 'At least 8 characters';
  if (password.length > 256) return 'At most 256 characters';
  if (password.trim() === '') return 'Not only spaces';
  return null;
}

/** A random password for "reset password" by an admin (the user must change it at next sign-in). */
export function generatePassword(length = 16): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const bytes = new Uint32Array(length);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => alphabet[byte % alphabet.length]).join('');
}

/** "4 minutes", "30 seconds" */
export function formatWait(seconds: number): string {
  if (seconds >= 90) return `${Math.ceil(seconds / 60)} minutes`;
  if (seconds >= 60) return '1 minute';
  return `${Math.max(1, Math.round(seconds))} seconds`;
}
