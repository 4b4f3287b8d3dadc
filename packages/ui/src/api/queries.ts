/** React Query hooks for the query API (projects, traces, spans, metrics) and the admin API. */
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { get } from './http';
import type {
  ApiKey,
  Envelope,
  Page,
  Project,
  ProjectSummary,
  ProjectTimeseries,
  Span,
  Trace,
  TraceDetail,
  User,
  UserApiKey,
} from './types';
import { resolveRange, type RangeOption } from '../lib/timeRange';

const p = (projectId: string) => `/v1/projects/${encodeURIComponent(projectId)}`;

/** Every project (follows next_cursor; a server holds few projects). */
export function useProjects(refetchInterval: number | false = false) {
  return useQuery({
    queryKey: ['projects'],
    queryFn: async ({ signal }) => {
      const all: Project[] = [];
      let cursor: string | null = null;
      do {
        const page: Page<Project> = await get<Page<Project>>('/v1/projects', { limit: 1000, cursor }, signal);
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
    queryFn: async ({ signal }) => (await get<Envelope<Project>>(p(projectId), undefined, signal)).data,
  });
}

export function summaryQuery(projectId: string, range: RangeOption, refetchInterval: number | false = false) {
  return {
    queryKey: ['summary', projectId, range.value],
    queryFn: async ({ signal }: { signal: AbortSignal }) =>
      (await get<Envelope<ProjectSummary>>(`${p(projectId)}/summary`, { ...resolveRange(range) }, signal)).data,
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
        const first = await get<Page<Trace>>(`${p(projectId)}/traces`, { limit: 1, order: 'asc' }, signal);
        const earliest = first.data[0]?.start_time;
        start_time = earliest
          ? new Date(Math.min(Date.parse(earliest), now - 60 * 60_000)).toISOString()
          : new Date(now - 24 * 3_600_000).toISOString();
      }
      const end_time = new Date(now).toISOString();
      return (await get<Envelope<ProjectTimeseries>>(`${p(projectId)}/timeseries`, { start_time, end_time }, signal)).data;
    },
    refetchInterval,
    placeholderData: keepPreviousData,
  });
}

export type TraceSortKey = 'start_time' | 'latency_ms';

export function useTraces(
  projectId: string,
  range: RangeOption,
  sort: TraceSortKey,
  order: 'asc' | 'desc',
  refetchInterval: number | false,
) {
  return useInfiniteQuery({
    queryKey: ['traces', projectId, range.value, sort, order],
    queryFn: ({ pageParam, signal }) =>
      get<Page<Trace>>(`${p(projectId)}/traces`, { limit: 100, cursor: pageParam, sort, order, ...resolveRange(range) }, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    refetchInterval,
    placeholderData: keepPreviousData,
  });
}

export interface SpanFilters {
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
      get<Page<Span>>(
        `${p(projectId)}/spans`,
        {
          limit: 100,
          cursor: pageParam,
          order,
          name: filters.name,
          span_kind: filters.span_kind,
          status_code: filters.status_code,
          attribute: filters.attribute,
          parent_id: filters.rootsOnly ? 'null' : undefined,
          ...resolveRange(range),
        },
        signal,
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
      (await get<Envelope<TraceDetail>>(`${p(projectId)}/traces/${encodeURIComponent(traceId)}`, undefined, signal)).data,
    refetchInterval,
  });
}

// ---------------------------------------------------------------- settings

async function allPages<T>(path: string, signal: AbortSignal): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<T> = await get<Page<T>>(path, { limit: 1000, cursor }, signal);
    all.push(...page.data);
    cursor = page.next_cursor;
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
    queryFn: async ({ signal }) => (await get<Envelope<ApiKey[]>>('/v1/user/api_keys', undefined, signal)).data,
    enabled,
  });
}

export function useSystemKeys(enabled: boolean) {
  return useQuery({
    queryKey: systemKeysKey,
    queryFn: async ({ signal }) => (await get<Envelope<ApiKey[]>>('/v1/system/api_keys', undefined, signal)).data,
    enabled,
  });
}

export function useAllUserKeys(enabled: boolean) {
  return useQuery({ queryKey: allUserKeysKey, queryFn: ({ signal }) => allPages<UserApiKey>('/v1/users/api_keys', signal), enabled });
}

export function useUsers(enabled: boolean) {
  return useQuery({ queryKey: usersKey, queryFn: ({ signal }) => allPages<User>('/v1/users', signal), enabled });
}
