/** React Query hooks of a project's sessions and their turns. */
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { Session, Span } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { allPages, cursorPages } from '../../api/paging';
import { inProject } from './queries';

/** A project's sessions, newest first, with infinite scroll. */
/** What the sessions table is ordered by: when a session started, or its last activity. */
export type SessionSortKey = 'start_time' | 'end_time';

export function useSessions(
  projectId: string,
  refetchInterval: number | false,
  sort: SessionSortKey = 'start_time',
  order: 'asc' | 'desc' = 'desc',
  userId = '',
) {
  return useInfiniteQuery({
    queryKey: ['sessions', projectId, sort, order, userId],
    queryFn: ({ pageParam, signal }) =>
      call(
        client.GET('/v1/projects/{project_identifier}/sessions', {
          params: {
            path: inProject(projectId),
            query: { limit: 100, cursor: pageParam ?? undefined, order, sort, user_id: userId || undefined },
          },
          signal,
        }),
      ),
    ...cursorPages,
    refetchInterval,
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
        const chunkRoots = await allPages<Span>((cursor) =>
          call(
            client.GET('/v1/projects/{project_identifier}/spans', {
              params: { path: inProject(projectId), query: { trace_id: chunk, parent_id: 'null', limit: 1000, cursor, order: 'asc' } },
              signal,
            }),
          ),
        );
        roots.push(...chunkRoots);
      }
      return roots;
    },
    enabled: traceIds.length > 0,
  });
}
