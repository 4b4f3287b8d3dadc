/**
 * Annotation filters of the span and trace lists (docs/annotations.md, "Filters"):
 * `annotation=name` (has an annotation of that name), `annotation=name:label` (with that label;
 * split at the first colon) and `annotation_score=name>=0.5` (operators >=, <=, >, <, =).
 * Repeated parameters all apply (AND).
 */
import { InvalidInputError } from '@sightline/common';
import type { AnnotationFilter, ScoreOperator } from '../db/repositories/annotation-filters.js';

export type { AnnotationFilter };

/** Most annotation filters one list request may carry. */
export const MAX_ANNOTATION_FILTERS = 10;

const SCORE = /^([^<>=]+)(>=|<=|>|<|=)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)$/;

/** Parses the `annotation` and `annotation_score` parameters; 422 naming a malformed one. */
export function parseAnnotationFilters(labels: string[] | undefined, scores: string[] | undefined): AnnotationFilter[] {
  const filters: AnnotationFilter[] = [];
  for (const text of labels ?? []) {
    const colon = text.indexOf(':');
    const name = (colon < 0 ? text : text.slice(0, colon)).trim();
    if (name === '') throw new InvalidInputError(`invalid annotation filter "${text.slice(0, 100)}": expected name or name:label`);
    if (colon < 0) filters.push({ name });
    else {
      const label = text.slice(colon + 1);
      if (label === '')
        throw new InvalidInputError(`invalid annotation filter "${text.slice(0, 100)}": the label after the colon is empty`);
      filters.push({ name, label });
    }
  }
  for (const text of scores ?? []) {
    const match = SCORE.exec(text.trim());
    const name = match?.[1]?.trim() ?? '';
    if (!match || name === '')
      throw new InvalidInputError(`invalid annotation_score filter "${text.slice(0, 100)}": expected name>=number (or <=, >, <, =)`);
    filters.push({ name, score: { op: match[2] as ScoreOperator, value: Number(match[3]) } });
  }
  if (filters.length > MAX_ANNOTATION_FILTERS)
    throw new InvalidInputError(`too many annotation filters: ${filters.length} (at most ${MAX_ANNOTATION_FILTERS})`);
  return filters;
}
