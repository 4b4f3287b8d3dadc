/**
 * What each column of an uploaded file becomes in the examples (docs/ui.md, "Datasets"): part of
 * the input, of the output, of the metadata, or nothing; the defaults by column name, and the
 * upload form's key fields (docs/datasets.md, "Files").
 */
export const COLUMN_ROLES = ['input', 'output', 'metadata', 'ignore'] as const;
export type ColumnRole = (typeof COLUMN_ROLES)[number];

const INPUT_NAMES = new Set(['input', 'question', 'query', 'prompt']);
const OUTPUT_NAMES = new Set(['output', 'answer', 'expected', 'response']);

/**
 * Why the server cannot be asked for the column, or null when it can: it reads a key field as
 * comma-separated names and trims each (docs/datasets.md, "Files").
 */
export function unusableColumn(column: string): string | null {
  if (column.trim() === '') return 'a column without a name cannot be picked';
  if (column.includes(',')) return 'a column whose name has a comma cannot be picked';
  if (column.trim() !== column) return 'a column whose name starts or ends with a space cannot be picked';
  return null;
}

/**
 * The role of each column by its name: input, question, query, prompt → input; output, answer,
 * expected, response → output; any other → metadata. Without an input column by name the first
 * column that can be picked is the input, so that the defaults always make an upload.
 */
export function defaultRoles(columns: string[]): ColumnRole[] {
  const roles = columns.map((column): ColumnRole => {
    if (unusableColumn(column) !== null) return 'ignore';
    const name = column.toLowerCase();
    if (INPUT_NAMES.has(name)) return 'input';
    if (OUTPUT_NAMES.has(name)) return 'output';
    return 'metadata';
  });
  if (!roles.includes('input')) {
    const first = roles.indexOf('metadata');
    if (first >= 0) roles[first] = 'input';
  }
  return roles;
}

/** The upload form's `input_keys[]`, `output_keys[]` and `metadata_keys[]` for the roles. */
export function roleKeys(columns: string[], roles: ColumnRole[]): { input: string[]; output: string[]; metadata: string[] } {
  const of = (role: ColumnRole) => columns.filter((_, index) => roles[index] === role);
  return { input: of('input'), output: of('output'), metadata: of('metadata') };
}
