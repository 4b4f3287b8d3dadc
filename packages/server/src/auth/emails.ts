/** Email addresses are compared trimmed and lower-cased. */

/** The canonical form of an email address. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const EMAIL = /^[^\s@\u0000-\u001f\u007f\uFFFD]+@[^\s@\u0000-\u001f\u007f\uFFFD]+$/;

/** True for something@something without spaces or control characters (admin@localhost included). */
export function isPlausibleEmail(email: string): boolean {
  return EMAIL.test(email) && email.length <= 320;
}
