/** React Query hooks for the query API (projects, traces, spans, metrics) and the admin API. */
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { call, client } from './http';
import type { SpanKind } from '../lib/spanKinds';
import type {
  AnnotationConfig,
  Dataset,
  DatasetVersion,
  Experiment,
  Page,
  Project,
  Session,
  Span,
  User,
  UserApiKey,
} from '@sightline/client/browser';
import type { PromptSummary as Prompt, PromptVersion } from '../lib/playground';
import { resolveRange, type RangeOption } from '../lib/timeRange';

/** Path parameters of a project's routes. */
const inProject = (projectId: string) => ({ project_identifier: projectId });

/** Every project (follows next_cursor; a server holds few projects). */
export function useProjects(refetchInterval: number | false = false) {
  return useQuery({
    queryKey: ['projects'],
    queryFn: async ({ signal }) => {
      const all: Project[] = [];
      let cursor: string | null = null;
      do {
        const page: Page<Project> = await call(
          client.GET('/v1/projects', { params: { query: { limit: 1000, cursor: cursor ?? undefined } }, signal }),
        );
        all.push(...page.data);
        cursor = page.next_cursor;
      } while (cursor);
      return all;
    },
    // New projects appear with their first span: look again whenever a page shows the list.
    staleTime: 0,
    refetchInterval,
  });
}

export function useProject(projectId: string) {
  return useQuery({
    queryKey: ['project', projectId],
    queryFn: async ({ signal }) =>
      (await call(client.GET('/v1/projects/{project_identifier}', { params: { path: inProject(projectId) }, signal }))).data,
  });
}

export function summaryQuery(projectId: string, range: RangeOption, refetchInterval: number | false = false) {
  return {
    queryKey: ['summary', projectId, range.value],
    queryFn: async ({ signal }: { signal: AbortSignal }) =>
      (
        await call(
          client.GET('/v1/projects/{project_identifier}/summary', {
            params: { path: inProject(projectId), query: { ...resolveRange(range) } },
            signal,
          }),
        )
      ).data,
    refetchInterval,
    placeholderData: keepPreviousData,
  };
}

export function useSummary(projectId: string, range: RangeOption, refetchInterval: number | false = false) {
  return useQuery(summaryQuery(projectId, range, refetchInterval));
}

/** Buckets over the range; for all time, from the first trace of the project to now. */
export function useTimeseries(projectId: string, range: RangeOption, refetchInterval: number | false = false) {
  return useQuery({
    queryKey: ['timeseries', projectId, range.value],
    queryFn: async ({ signal }) => {
      const now = Date.now();
      let { start_time } = resolveRange(range, now);
      if (!start_time) {
        const first = await call(
          client.GET('/v1/projects/{project_identifier}/traces', {
            params: { path: inProject(projectId), query: { limit: 1, order: 'asc' } },
            signal,
          }),
        );
        const earliest = first.data[0]?.start_time;
        start_time = earliest
          ? new Date(Math.min(Date.parse(earliest), now - 60 * 60_000)).toISOString()
          : new Date(now - 24 * 3_600_000).toISOString();
      }
      const end_time = new Date(now).toISOString();
      return (
        await call(
          client.GET('/v1/projects/{project_identifier}/timeseries', {
            params: { path: inProject(projectId), query: { start_time, end_time } },
            signal,
          }),
        )
      ).data;
    },
    refetchInterval,
    placeholderData: keepPreviousData,
  });
}

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

export function useTraces(
  projectId: string,
  range: RangeOption,
  sort: TraceSortKey,
  order: 'asc' | 'desc',
  refetchInterval: number | false,
  annotations: AnnotationFilters = NO_ANNOTATION_FILTERS,
) {
  return useInfiniteQuery({
    queryKey: ['traces', projectId, range.value, sort, order, annotations],
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
              ...resolveRange(range),
            },
          },
          signal,
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    refetchInterval,
    placeholderData: keepPreviousData,
  });
}

export interface SpanFilters extends AnnotationFilters {
  name: string[];
  span_kind: string[];
  status_code: string[];
  attribute: string[];
  rootsOnly: boolean;
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
              name: filters.name,
              span_kind: filters.span_kind as SpanKind[],
              status_code: filters.status_code as Span['status_code'][],
              attribute: filters.attribute,
              ...annotationQuery(filters),
              parent_id: filters.rootsOnly ? 'null' : undefined,
              ...resolveRange(range),
            },
          },
          signal,
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    refetchInterval,
    placeholderData: keepPreviousData,
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

// ---------------------------------------------------------------- settings

/** Every item of a paged admin list (follows next_cursor). */
async function allPages<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    all.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

export const ownKeysKey = ['api-keys', 'own'] as const;
export const systemKeysKey = ['api-keys', 'system'] as const;
export const allUserKeysKey = ['api-keys', 'all-users'] as const;
export const usersKey = ['users'] as const;

export function useOwnKeys(enabled = true) {
  return useQuery({
    queryKey: ownKeysKey,
    queryFn: async ({ signal }) => (await call(client.GET('/v1/user/api_keys', { signal }))).data,
    enabled,
  });
}

export function useSystemKeys(enabled: boolean) {
  return useQuery({
    queryKey: systemKeysKey,
    queryFn: async ({ signal }) => (await call(client.GET('/v1/system/api_keys', { signal }))).data,
    enabled,
  });
}

export function useAllUserKeys(enabled: boolean) {
  return useQuery({
    queryKey: allUserKeysKey,
    queryFn: ({ signal }) =>
      allPages<UserApiKey>((cursor) => call(client.GET('/v1/users/api_keys', { params: { query: { limit: 1000, cursor } }, signal }))),
    enabled,
  });
}

export function useUsers(enabled: boolean) {
  return useQuery({
    queryKey: usersKey,
    queryFn: ({ signal }) =>
      allPages<User>((cursor) => call(client.GET('/v1/users', { params: { query: { limit: 1000, cursor } }, signal }))),
    enabled,
  });
}

// ---------------------------------------------------------------- datasets

export const datasetsKey = ['datasets'] as const;

/** Every dataset, newest first (follows next_cursor). */
export function useDatasets() {
  return useQuery({
    queryKey: datasetsKey,
    queryFn: ({ signal }) =>
      allPages<Dataset>((cursor) => call(client.GET('/v1/datasets', { params: { query: { limit: 1000, cursor } }, signal }))),
    staleTime: 0,
  });
}

export function useDataset(datasetId: string) {
  return useQuery({
    queryKey: ['dataset', datasetId],
    queryFn: async ({ signal }) => (await call(client.GET('/v1/datasets/{id}', { params: { path: { id: datasetId } }, signal }))).data,
  });
}

export function useDatasetVersions(datasetId: string) {
  return useQuery({
    queryKey: ['dataset-versions', datasetId],
    queryFn: ({ signal }) =>
      allPages<DatasetVersion>((cursor) =>
        call(client.GET('/v1/datasets/{id}/versions', { params: { path: { id: datasetId }, query: { limit: 1000, cursor } }, signal })),
      ),
  });
}

/** The examples at a version (undefined: the latest). */
export function useDatasetExamples(datasetId: string, versionId: string | undefined) {
  return useQuery({
    queryKey: ['dataset-examples', datasetId, versionId ?? 'latest'],
    queryFn: async ({ signal }) =>
      (
        await call(
          client.GET('/v1/datasets/{id}/examples', {
            params: { path: { id: datasetId }, query: versionId ? { version_id: versionId } : {} },
            signal,
          }),
        )
      ).data,
    placeholderData: keepPreviousData,
  });
}

// ---------------------------------------------------------------- experiments

/** A dataset's experiments, newest first, with their counts and per-evaluator summaries. */
export function useExperiments(datasetId: string) {
  return useQuery({
    queryKey: ['experiments', datasetId],
    queryFn: ({ signal }) =>
      allPages<Experiment>((cursor) =>
        call(
          client.GET('/v1/datasets/{dataset_id}/experiments', {
            params: { path: { dataset_id: datasetId }, query: { limit: 1000, cursor } },
            signal,
          }),
        ),
      ),
    staleTime: 0,
  });
}

/** One page of a comparison (rows are the base experiment's examples, from `cursor`). */
export function useComparison(datasetId: string, experimentIds: string[], cursor: string | undefined, limit = 50) {
  return useQuery({
    queryKey: ['comparison', datasetId, experimentIds, cursor ?? '', limit],
    queryFn: ({ signal }) =>
      call(
        client.GET('/v1/datasets/{dataset_id}/compare', {
          params: { path: { dataset_id: datasetId }, query: { experiment_id: experimentIds, cursor, limit } },
          signal,
        }),
      ),
    enabled: experimentIds.length > 0,
    placeholderData: keepPreviousData,
  });
}

// ---------------------------------------------------------------- model prices

export const modelPricesKey = ['model-prices'] as const;

/** Overrides first, then the shipped prices (docs/costs.md). */
export function useModelPrices() {
  return useQuery({
    queryKey: modelPricesKey,
    queryFn: async ({ signal }) => (await call(client.GET('/v1/model_prices', { signal }))).data,
  });
}

// ---------------------------------------------------------------- annotations

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

// ---------------------------------------------------------------- sessions

/** A project's sessions, newest first, with infinite scroll. */
export function useSessions(projectId: string, refetchInterval: number | false) {
  return useInfiniteQuery({
    queryKey: ['sessions', projectId],
    queryFn: ({ pageParam, signal }) =>
      call(
        client.GET('/v1/projects/{project_identifier}/sessions', {
          params: { path: inProject(projectId), query: { limit: 100, cursor: pageParam ?? undefined, order: 'desc' } },
          signal,
        }),
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    refetchInterval,
    placeholderData: keepPreviousData,
  });
}

export function useSession(sessionId: string, refetchInterval: number | false = false) {
  return useQuery({
    queryKey: ['session', sessionId],
    queryFn: async ({ signal }): Promise<Session> =>
      (await call(client.GET('/v1/sessions/{session_identifier}', { params: { path: { session_identifier: sessionId } }, signal }))).data,
    refetchInterval,
  });
}

/** The root spans of the given traces (the turns of a session), fetched 100 traces at a time. */
export function useRootSpans(projectId: string, traceIds: string[]) {
  return useQuery({
    queryKey: ['root-spans', projectId, traceIds],
    queryFn: async ({ signal }) => {
      const roots: Span[] = [];
      for (let index = 0; index < traceIds.length; index += 100) {
        const chunk = traceIds.slice(index, index + 100);
        let cursor: string | undefined;
        do {
          const page: Page<Span> = await call(
            client.GET('/v1/projects/{project_identifier}/spans', {
              params: { path: inProject(projectId), query: { trace_id: chunk, parent_id: 'null', limit: 1000, cursor, order: 'asc' } },
              signal,
            }),
          );
          roots.push(...page.data);
          cursor = page.next_cursor ?? undefined;
        } while (cursor);
      }
      return roots;
    },
    enabled: traceIds.length > 0,
  });
}

// ---------------------------------------------------------------- retention

export const retentionKey = (projectId: string) => ['retention', projectId] as const;

/** A project's retention policy and what the retention job last deleted (docs/retention.md). */
export function useRetention(projectId: string) {
  return useQuery({
    queryKey: retentionKey(projectId),
    queryFn: async ({ signal }) =>
      (
        await call(
          client.GET('/v1/projects/{project_identifier}/retention', { params: { path: { project_identifier: projectId } }, signal }),
        )
      ).data,
  });
}
// ---------------------------------------------------------------- prompts

export const promptsKey = ['prompts'] as const;

/** Every prompt, newest first (follows next_cursor). */
export function usePrompts() {
  return useQuery({
    queryKey: promptsKey,
    queryFn: ({ signal }) =>
      allPages<Prompt>((cursor) => call(client.GET('/v1/prompts', { params: { query: { limit: 1000, cursor } }, signal }))),
    staleTime: 0,
  });
}

/** A prompt's versions, newest first. */
export function usePromptVersions(promptName: string) {
  return useQuery({
    queryKey: ['prompt-versions', promptName],
    queryFn: ({ signal }) =>
      allPages<PromptVersion>((cursor) =>
        call(
          client.GET('/v1/prompts/{prompt_identifier}/versions', {
            params: { path: { prompt_identifier: promptName }, query: { limit: 1000, cursor } },
            signal,
          }),
        ),
      ),
    staleTime: 0,
  });
}

// ---------------------------------------------------------------- provider settings

export const secretsKey = ['secrets'] as const;

/** Which provider settings are set, in the environment or stored (admins; never a value). */
export function useSecrets(enabled: boolean) {
  return useQuery({
    queryKey: secretsKey,
    queryFn: async ({ signal }) => (await call(client.GET('/v1/secrets', { signal }))).data,
    enabled,
  });
}
