/**
 * A project's overview: its annotation summaries, its default dashboard over the chosen range
 * (docs/dashboards.md: built in until edited, then stored for everyone), and its retention.
 */
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Center, Loader, Stack } from '@mantine/core';
import type { DashboardWidget } from '@sightline/client/browser';
import { useLiveRefresh, useTimeRange } from '../../lib/timeRange';
import { DashboardGrid } from '../dashboards/DashboardGrid';
import { defaultDashboardKey, saveDefaultDashboard, useDefaultDashboard } from '../dashboards/dashboardQueries';
import { useProjectContext } from './ProjectLayout';
import { AnnotationSummaries } from './AnnotationSummaries';
import { RetentionSection } from './RetentionSection';

export function OverviewTab() {
  const { projectId } = useProjectContext();
  const { option } = useTimeRange();
  const { interval } = useLiveRefresh();
  const dashboard = useDefaultDashboard(projectId);
  const queryClient = useQueryClient();

  const save = async (widgets: DashboardWidget[]) => {
    const saved = await saveDefaultDashboard(projectId, widgets);
    queryClient.setQueryData(defaultDashboardKey(projectId), saved);
  };

  return (
    <Stack gap="md" data-testid="overview-charts">
      <AnnotationSummaries />
      {dashboard.error ? (
        <Alert color="red">{dashboard.error.message}</Alert>
      ) : !dashboard.data ? (
        <Center py="xl">
          <Loader aria-label="Loading charts" />
        </Center>
      ) : (
        <DashboardGrid widgets={dashboard.data.widgets} projects={[projectId]} option={option} refetchInterval={interval} onChange={save} />
      )}
      <RetentionSection projectId={projectId} />
    </Stack>
  );
}
