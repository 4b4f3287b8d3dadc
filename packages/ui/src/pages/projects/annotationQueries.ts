/** React Query hooks of annotation configs, a span's or trace's annotations and a project's annotation summaries. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { AnnotationConfig, Trace } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { allPages } from '../../api/paging';
import { resolveRange, type RangeOption } from '../../lib/timeRange';
import { inProject } from './queries';

export const annotationConfigsKey = ['annotation-configs'] as const;

/** Every annotation config, newest first (follows next_cursor). */
export function useAnnotationConfigs() {
  return useQuery({
    queryKey: annotationConfigsKey,
    queryFn: ({ signal }) =>
      allPages<AnnotationConfig>((cursor) =>
        call(client.GET('/v1/annotation_configs', { params: { query: { limit: 1000, cursor } }, signal })),
      ),
  });
}

/** The configs assigned to a project. */
export function useProjectAnnotationConfigs(projectId: string) {
  return useQuery({
    queryKey: [...annotationConfigsKey, 'project', projectId],
    queryFn: ({ signal }) =>
      allPages<AnnotationConfig>((cursor) =>
        call(
          client.GET('/v1/projects/{project_identifier}/annotation_configs', {
            params: { path: inProject(projectId), query: { limit: 1000, cursor } },
            signal,
          }),
        ),
      ),
  });
}

/** Every annotation of one span (notes included), newest first. */
export function useSpanAnnotations(projectId: string, spanId: string) {
  return useQuery({
    queryKey: ['annotations', 'span', projectId, spanId],
    queryFn: async ({ signal }) =>
      (
        await call(
          client.GET('/v1/projects/{project_identifier}/span_annotations', {
            params: { path: inProject(projectId), query: { span_ids: [spanId], limit: 1000 } },
            signal,
          }),
        )
      ).data,
  });
}

/** Every annotation of one trace (notes included), newest first. */
export function useTraceAnnotations(projectId: string, traceId: string) {
  return useQuery({
    queryKey: ['annotations', 'trace', projectId, traceId],
    queryFn: async ({ signal }) =>
      (
        await call(
          client.GET('/v1/projects/{project_identifier}/trace_annotations', {
            params: { path: inProject(projectId), query: { trace_ids: [traceId], limit: 1000 } },
            signal,
          }),
        )
      ).data,
  });
}

/** Every annotation of one session (by its session.id text; notes included), newest first. */
export function useSessionAnnotations(projectId: string, sessionId: string) {
  return useQuery({
    queryKey: ['annotations', 'session', projectId, sessionId],
    queryFn: async ({ signal }) =>
      (
        await call(
          client.GET('/v1/projects/{project_identifier}/session_annotations', {
            params: { path: inProject(projectId), query: { session_ids: [sessionId], limit: 1000 } },
            signal,
          }),
        )
      ).data,
  });
}

/** Per annotation name over the range: counts, labels, mean score. */
export function useAnnotationSummaries(projectId: string, range: RangeOption, refetchInterval: number | false = false) {
  return useQuery({
    queryKey: ['annotations', 'summaries', projectId, range.value],
    queryFn: async ({ signal }) =>
      (
        await call(
          client.GET('/v1/projects/{project_identifier}/annotation_summaries', {
            params: { path: inProject(projectId), query: { ...resolveRange(range) } },
            signal,
          }),
        )
      ).data,
    refetchInterval,
    placeholderData: keepPreviousData,
  });
}

/** The newest label and score of an annotation name on a row. */
export interface RowAnnotation {
  label: string | null;
  score: number | null;
}

/**
 * The annotations of the traces a table shows, for a column per name: each trace's own and its
 * root span's (an online rule on spans writes those), newest first per name; notes (no label
 * and no score) are left out. Read 100 traces at a time.
 */
export function useTraceRowAnnotations(projectId: string, traces: Pick<Trace, 'trace_id' | 'root_span'>[]) {
  const traceIds = traces.map((trace) => trace.trace_id);
  return useQuery({
    queryKey: ['row-annotations', projectId, traceIds],
    enabled: traceIds.length > 0,
    placeholderData: keepPreviousData,
    queryFn: async ({ signal }) => {
      const byTrace = new Map<string, Map<string, RowAnnotation>>();
      const add = (
        traceId: string | undefined,
        name: string,
        result: { label: string | null; score: number | null } | null | undefined,
      ) => {
        if (!traceId || !result || (result.label === null && result.score === null)) return;
        let names = byTrace.get(traceId);
        if (!names) {
          names = new Map();
          byTrace.set(traceId, names);
        }
        if (!names.has(name)) names.set(name, { label: result.label, score: result.score });
      };
      for (let start = 0; start < traces.length; start += 100) {
        const chunk = traces.slice(start, start + 100);
        const traceOfRoot = new Map(
          chunk.flatMap((trace) => (trace.root_span ? [[trace.root_span.span_id, trace.trace_id] as const] : [])),
        );
        const [own, roots] = await Promise.all([
          call(
            client.GET('/v1/projects/{project_identifier}/trace_annotations', {
              params: { path: inProject(projectId), query: { trace_ids: chunk.map((trace) => trace.trace_id), limit: 1000 } },
              signal,
            }),
          ),
          traceOfRoot.size === 0
            ? Promise.resolve({ data: [] })
            : call(
                client.GET('/v1/projects/{project_identifier}/span_annotations', {
                  params: { path: inProject(projectId), query: { span_ids: [...traceOfRoot.keys()], limit: 1000 } },
                  signal,
                }),
              ),
        ]);
        for (const annotation of own.data) add(annotation.trace_id, annotation.name, annotation.result);
        for (const annotation of roots.data) add(traceOfRoot.get(annotation.span_id), annotation.name, annotation.result);
      }
      return byTrace;
    },
  });
}
