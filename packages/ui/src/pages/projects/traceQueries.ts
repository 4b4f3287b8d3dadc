/** React Query hooks of a project's traces and spans, with the filters of their lists. */
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { Span } from '@sightline/client/browser';
import { apiUrl, call, client } from '../../api/http';
import { cursorPages } from '../../api/paging';
import type { SpanKind } from '../../lib/spanKinds';
import { resolveRange, type RangeOption } from '../../lib/timeRange';
import { inProject } from './queries';

export type TraceSortKey = 'start_time' | 'latency_ms';

/** Annotation filters of the span and trace lists (docs/annotations.md, "Filters"). */
export interface AnnotationFilters {
  /** `name` or `name:label`. */
  annotation: string[];
  /** `name>=0.5` and the like. */
  annotation_score: string[];
}

export const NO_ANNOTATION_FILTERS: AnnotationFilters = { annotation: [], annotation_score: [] };

/** The filters as query parameters; an empty list is left out, since it would be sent as one empty value. */
function annotationQuery(filters: AnnotationFilters) {
  return {
    annotation: filters.annotation.length > 0 ? filters.annotation : undefined,
    annotation_score: filters.annotation_score.length > 0 ? filters.annotation_score : undefined,
  };
}

/** Full-text search words and a filter condition (docs/search.md); empty texts filter nothing. */
export interface TextFilters {
  search: string;
  filter: string;
}

export const NO_TEXT_FILTERS: TextFilters = { search: '', filter: '' };

const textQuery = (text: TextFilters) => ({ search: text.search || undefined, filter: text.filter || undefined });

export function useTraces(
  projectId: string,
  range: RangeOption,
  sort: TraceSortKey,
  order: 'asc' | 'desc',
  refetchInterval: number | false,
  annotations: AnnotationFilters = NO_ANNOTATION_FILTERS,
  text: TextFilters = NO_TEXT_FILTERS,
  userId = '',
) {
  return useInfiniteQuery({
    queryKey: ['traces', projectId, range.value, sort, order, annotations, text, userId],
    queryFn: ({ pageParam, signal }) =>
      call(
        client.GET('/v1/projects/{project_identifier}/traces', {
          params: {
            path: inProject(projectId),
            query: {
              limit: 100,
              cursor: pageParam ?? undefined,
              sort,
              order,
              ...annotationQuery(annotations),
              ...textQuery(text),
              user_id: userId || undefined,
              ...resolveRange(range),
            },
          },
          signal,
        }),
      ),
    ...cursorPages,
    refetchInterval,
  });
}

export interface SpanFilters extends AnnotationFilters, TextFilters {
  name: string[];
  span_kind: string[];
  status_code: string[];
  attribute: string[];
  rootsOnly: boolean;
}

/** The span list's filters as query parameters (the list's own and its export's). */
function spanQuery(filters: SpanFilters) {
  return {
    name: filters.name,
    span_kind: filters.span_kind as SpanKind[],
    status_code: filters.status_code as Span['status_code'][],
    attribute: filters.attribute,
    ...annotationQuery(filters),
    ...textQuery(filters),
    parent_id: filters.rootsOnly ? 'null' : undefined,
  };
}

/** The link of an export of every span the list's filters and time range select (docs/export.md). */
export function spanExportUrl(projectId: string, range: RangeOption, filters: SpanFilters, format: 'csv' | 'jsonl' | 'parquet'): string {
  return apiUrl('/v1/projects/{project_identifier}/spans/export', {
    path: inProject(projectId),
    query: { format, ...spanQuery(filters), ...resolveRange(range) },
  });
}

/** The link of an export of every trace the list's filters (annotations, search, condition, user) and time range select. */
export function traceExportUrl(
  projectId: string,
  range: RangeOption,
  filters: { annotations: AnnotationFilters; text: TextFilters; userId: string },
  format: 'csv' | 'jsonl' | 'parquet',
): string {
  return apiUrl('/v1/projects/{project_identifier}/traces/export', {
    path: inProject(projectId),
    query: {
      format,
      ...annotationQuery(filters.annotations),
      ...textQuery(filters.text),
      user_id: filters.userId || undefined,
      ...resolveRange(range),
    },
  });
}

export function useSpans(
  projectId: string,
  range: RangeOption,
  filters: SpanFilters,
  order: 'asc' | 'desc',
  refetchInterval: number | false,
) {
  return useInfiniteQuery({
    queryKey: ['spans', projectId, range.value, filters, order],
    queryFn: ({ pageParam, signal }) =>
      call(
        client.GET('/v1/projects/{project_identifier}/spans', {
          params: {
            path: inProject(projectId),
            query: {
              limit: 100,
              cursor: pageParam ?? undefined,
              order,
              ...spanQuery(filters),
              ...resolveRange(range),
            },
          },
          signal,
        }),
      ),
    ...cursorPages,
    refetchInterval,
  });
}

export function useTrace(projectId: string, traceId: string, refetchInterval: number | false = false) {
  return useQuery({
    queryKey: ['trace', projectId, traceId],
    queryFn: async ({ signal }) =>
      (
        await call(
          client.GET('/v1/projects/{project_identifier}/traces/{trace_identifier}', {
            params: { path: { ...inProject(projectId), trace_identifier: traceId } },
            signal,
          }),
        )
      ).data,
    refetchInterval,
  });
}
