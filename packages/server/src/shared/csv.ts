/**
 * CSV text for downloads (RFC 4180 quoting), safe to open in a spreadsheet (docs/datasets.md,
 * "Downloads"): a cell that starts with =, +, -, @, a tab or a carriage return is run as a formula
 * by Excel, LibreOffice and Google Sheets (`=HYPERLINK(…)` sends data away when clicked), so it is
 * prefixed with a single quote, as OWASP's CSV injection guidance says. Plain numbers (-1, +2.5e3)
 * are left alone: a spreadsheet reads them as numbers and they cannot call anything.
 */

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** One CSV field: defused when a spreadsheet would run it, then quoted when it holds a comma, quote or line break. */
export const csvField = (value: string): string => {
  const safe = FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};
