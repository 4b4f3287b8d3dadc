/** CSV text for downloads (RFC 4180 quoting). */

/** One CSV field: quoted when it holds a comma, quote or line break. */
export const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
