/** React Query hooks and calls of dashboards (docs/dashboards.md): saved ones, a project's default, a widget's data. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Dashboard, DashboardWidget } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { allPages } from '../../api/paging';
import type { RangeOption } from '../../lib/timeRange';

export const defaultDashboardKey = (projectId: string) => ['default-dashboard', projectId] as const;
export const dashboardsKey = ['dashboards'] as const;

export function useDefaultDashboard(projectId: string) {
  return useQuery({
    queryKey: defaultDashboardKey(projectId),
    queryFn: async ({ signal }) =>
      (
        await call(
          client.GET('/v1/projects/{project_identifier}/default_dashboard', {
            params: { path: { project_identifier: projectId } },
            signal,
          }),
        )
      ).data,
  });
}

export async function saveDefaultDashboard(projectId: string, widgets: DashboardWidget[]): Promise<Dashboard> {
  return (
    await call(
      client.PUT('/v1/projects/{project_identifier}/default_dashboard', {
        params: { path: { project_identifier: projectId } },
        body: { widgets },
      }),
    )
  ).data;
}

/** The global dashboards (across projects), newest first. */
export function useGlobalDashboards() {
  return useQuery({
    queryKey: dashboardsKey,
    queryFn: ({ signal }) =>
      allPages<Dashboard>((cursor) => call(client.GET('/v1/dashboards', { params: { query: { limit: 1000, cursor } }, signal }))),
  });
}

export async function createDashboard(name: string, widgets: DashboardWidget[]): Promise<Dashboard> {
  return (await call(client.POST('/v1/dashboards', { body: { name, widgets } }))).data;
}

export async function updateDashboard(id: string, widgets: DashboardWidget[]): Promise<Dashboard> {
  return (await call(client.PUT('/v1/dashboards/{dashboard_id}', { params: { path: { dashboard_id: id } }, body: { widgets } }))).data;
}

export async function deleteDashboard(id: string): Promise<void> {
  await call(client.DELETE('/v1/dashboards/{dashboard_id}', { params: { path: { dashboard_id: id } } }));
}

type Bucket = 'minute' | 'hour' | 'day' | 'none';

/**
 * The range and bucket a widget reads: minute buckets up to 6 hours, hours up to 7 days, days
 * beyond (at most a few hundred points); all time is the last year (the query API's longest).
 */
export function widgetRange(option: RangeOption, type: DashboardWidget['type'], now = Date.now()) {
  const ms = option.ms ?? 365 * 86_400_000;
  const bucket: Bucket = type !== 'timeseries' ? 'none' : ms <= 6 * 3_600_000 ? 'minute' : ms <= 7 * 86_400_000 ? 'hour' : 'day';
  return { start_time: new Date(now - ms).toISOString(), end_time: new Date(now).toISOString(), bucket };
}

/** One widget's data over the page's range; `projects` are ids or names. */
export function useWidgetData(widget: DashboardWidget, projects: string[], option: RangeOption, refetchInterval: number | false) {
  return useQuery({
    queryKey: ['widget', projects, option.value, widget],
    queryFn: async ({ signal }) => {
      const { id: _id, title: _title, type, projects: _projects, ...query } = widget;
      return (await call(client.POST('/v1/dashboards/query', { body: { ...query, projects, ...widgetRange(option, type) }, signal }))).data;
    },
    enabled: projects.length > 0,
    refetchInterval,
    placeholderData: keepPreviousData,
    retry: false,
  });
}
