/**
 * Model name patterns (docs/costs.md, "Patterns"), matched in time linear in the name's length
 * by RE2's algorithm (the re2js package, pure JavaScript): the cost job matches every LLM span's
 * llm.model_name against every admin's pattern, and JavaScript's backtracking RegExp takes
 * exponential time on patterns such as `^(a+)+$`, which would stall ingest's writer. RE2 has no
 * backreferences or lookaround; a pattern using them is refused when stored.
 */
import { InvalidInputError } from '@sightline/common';
import { RE2JS } from 're2js';

export interface ModelPattern {
  /** Whether the pattern matches somewhere in the name, ignoring case (as RegExp.test with the i flag). */
  test(name: string): boolean;
}

/** The pattern, compiled; throws InvalidInputError (422) saying why it cannot be. */
export function compileModelPattern(pattern: string): ModelPattern {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    throw new InvalidInputError(
      `name_pattern is not a valid regular expression: ${(error as Error).message.replace(/^error parsing regexp: /, '')} ` +
        '(patterns use RE2 syntax, matched in linear time: no backreferences or lookaround)',
    );
  }
  return { test: (name) => compiled.matcher(name).find() };
}
