/**
 * The OpenInference span kinds and the colour the UI shows each in, defined here once: the
 * badges, the span tree's bars, the overview's counts and the spans filter all read them.
 */
import type { DefaultMantineColor } from '@mantine/core';
import type { operations } from '@sightline/client/browser';

/**
 * A span kind, as the OpenAPI document enumerates it. Its only enum is the span_kind filter of
 * GET /v1/projects/{project_identifier}/spans: spans themselves carry span_kind as any string.
 */
export type SpanKind = NonNullable<NonNullable<operations['getSpans']['parameters']['query']>['span_kind']>[number];

/** Each kind's colour, in the order the UI offers kinds as filters; every kind exactly once. */
const COLORS: Record<SpanKind, DefaultMantineColor> = {
  LLM: 'violet',
  CHAIN: 'blue',
  AGENT: 'grape',
  TOOL: 'orange',
  RETRIEVER: 'teal',
  RERANKER: 'cyan',
  EMBEDDING: 'lime',
  GUARDRAIL: 'red',
  EVALUATOR: 'yellow',
  PROMPT: 'pink',
  UNKNOWN: 'gray',
};

/** Every span kind, in the order the UI offers them as filters. */
export const SPAN_KINDS = Object.keys(COLORS) as SpanKind[];

/** The colour of a span's kind; gray for a kind the API does not name. */
export function spanKindColor(kind: string): DefaultMantineColor {
  return Object.hasOwn(COLORS, kind) ? COLORS[kind as SpanKind] : 'gray';
}
