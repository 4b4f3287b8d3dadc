/** React Query hooks and calls of a project's scheduled exports (docs/export.md, "Scheduled exports"). */
import { useQuery } from '@tanstack/react-query';
import type { ScheduledExport, ScheduledExportRun } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { allPages } from '../../api/paging';

export const scheduledExportsKey = (projectId: string) => ['scheduled-exports', projectId] as const;
export const exportRunsKey = (exportId: string) => ['scheduled-export-runs', exportId] as const;

/** Whether the server has an export directory (SERVICE_EXPORT_DIR). */
export function useScheduledExportsStatus() {
  return useQuery({
    queryKey: ['scheduled-exports-status'],
    queryFn: async ({ signal }) => (await call(client.GET('/v1/scheduled_exports/status', { signal }))).data,
    staleTime: 60_000,
  });
}

export function useScheduledExports(projectId: string) {
  return useQuery({
    queryKey: scheduledExportsKey(projectId),
    queryFn: ({ signal }) =>
      allPages<ScheduledExport>((cursor) =>
        call(
          client.GET('/v1/projects/{project_identifier}/scheduled_exports', {
            params: { path: { project_identifier: projectId }, query: { limit: 1000, cursor } },
            signal,
          }),
        ),
      ),
  });
}

/** The export's latest runs (one page: the newest 20). */
export function useExportRuns(exportId: string) {
  return useQuery({
    queryKey: exportRunsKey(exportId),
    queryFn: async ({ signal }): Promise<ScheduledExportRun[]> =>
      (
        await call(
          client.GET('/v1/scheduled_exports/{export_id}/runs', { params: { path: { export_id: exportId }, query: { limit: 20 } }, signal }),
        )
      ).data,
  });
}

export interface ExportForm {
  name: string;
  target: ScheduledExport['target'];
  format: ScheduledExport['format'];
  filter: string;
  interval_minutes: number;
}

export async function createScheduledExport(projectId: string, form: ExportForm): Promise<ScheduledExport> {
  return (
    await call(
      client.POST('/v1/projects/{project_identifier}/scheduled_exports', {
        params: { path: { project_identifier: projectId } },
        body: form,
      }),
    )
  ).data;
}

export async function updateScheduledExport(exportId: string, body: { enabled?: boolean }): Promise<ScheduledExport> {
  return (await call(client.PATCH('/v1/scheduled_exports/{export_id}', { params: { path: { export_id: exportId } }, body }))).data;
}

export async function deleteScheduledExport(exportId: string): Promise<void> {
  await call(client.DELETE('/v1/scheduled_exports/{export_id}', { params: { path: { export_id: exportId } } }));
}

export async function runScheduledExport(exportId: string): Promise<ScheduledExportRun> {
  return (await call(client.POST('/v1/scheduled_exports/{export_id}/run', { params: { path: { export_id: exportId } } }))).data;
}
