/**
 * Test modules run two ways: compiled in the mirror `npm test` builds (scripts/compiled-tests.mjs),
 * or from their TypeScript sources under tsx when a file is run alone. A child process a test
 * starts on one of its fixtures follows the test's own form.
 */
import { fileURLToPath } from 'node:url';
import { siblingModuleUrl } from '../worker.js';

/** The `node` arguments that run the module `relative` (no extension) next to `base`, an import.meta.url. */
export function nodeArgsForModule(base: string, relative: string): string[] {
  const url = siblingModuleUrl(base, relative);
  const file = fileURLToPath(url);
  return url.pathname.endsWith('.ts') ? ['--import', 'tsx', file] : [file];
}
