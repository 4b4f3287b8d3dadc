/**
 * The annotation filter of the span and trace lists (docs/annotations.md, "Filters"): tags
 * written `name`, `name:label` or `name>=0.5`, kept in the address as `ann=` and sent as the
 * `annotation` and `annotation_score` parameters.
 */
import { TagsInput } from '@mantine/core';
import type { AnnotationFilters } from '../pages/projects/traceQueries';

const SCORE = /^[^<>=:]+(>=|<=|>|<|=)/;

/** Splits the tags into label filters and score filters (a tag with a comparison before any colon is a score filter). */
export function annotationFiltersOf(tags: string[]): AnnotationFilters {
  return {
    annotation: tags.filter((tag) => !SCORE.test(tag)),
    annotation_score: tags.filter((tag) => SCORE.test(tag)),
  };
}

/** A tags input for annotation filters; `names` suggests annotation names (from the configs). */
export function AnnotationFilterInput({
  value,
  onChange,
  names,
  w = 260,
}: {
  value: string[];
  onChange: (values: string[]) => void;
  names: string[];
  w?: number;
}) {
  return (
    <TagsInput
      label="Annotation"
      placeholder="name:label or name>=0.5, Enter"
      value={value}
      onChange={onChange}
      data={names.filter((name) => !value.includes(name))}
      w={w}
      clearable
    />
  );
}
