/** React Query hooks of the projects list and a project's overview: the project, its summary, timeseries and retention. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Project } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { allPages } from '../../api/paging';
import { resolveRange, type RangeOption } from '../../lib/timeRange';

/** Path parameters of a project's routes. */
export const inProject = (projectId: string) => ({ project_identifier: projectId });

/** Every project (follows next_cursor; a server holds few projects). */
export function useProjects(refetchInterval: number | false = false) {
  return useQuery({
    queryKey: ['projects'],
    queryFn: ({ signal }) =>
      allPages<Project>((cursor) => call(client.GET('/v1/projects', { params: { query: { limit: 1000, cursor } }, signal }))),
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

export const retentionKey = (projectId: string) => ['retention', projectId] as const;

/** A project's retention policy and what the retention job last deleted (docs/retention.md). */
export function useRetention(projectId: string) {
  return useQuery({
    queryKey: retentionKey(projectId),
    queryFn: async ({ signal }) =>
      (await call(client.GET('/v1/projects/{project_identifier}/retention', { params: { path: inProject(projectId) }, signal }))).data,
  });
}
