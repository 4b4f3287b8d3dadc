/** Email addresses are compared trimmed and lower-cased. */

/** The canonical form of an email address. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** True for something@something without spaces (admin@localhost included). */
export function isPlausibleEmail(email: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(email) && email.length <= 320;
}
