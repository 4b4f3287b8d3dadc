/**
 * Dashboards across projects (docs/dashboards.md): the global dashboards, one shown at a time over
 * the chosen range; a new one starts from the project default's widgets over every project.
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Button, Center, Group, Loader, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import type { DashboardWidget } from '@sightline/client/browser';
import { RangeControls } from '../../components/RangeControls';
import { usePageTitle } from '../../lib/pageTitle';
import { useLiveRefresh, useTimeRange } from '../../lib/timeRange';
import { useProjects } from '../projects/queries';
import { DashboardGrid } from './DashboardGrid';
import { createDashboard, dashboardsKey, deleteDashboard, updateDashboard, useGlobalDashboards } from './dashboardQueries';

/** The project default's widgets, as a new cross-project dashboard's start. */
const STARTER: DashboardWidget[] = [
  { id: 'spans', title: 'Spans by kind', type: 'timeseries', metric: 'span_count', group_by: 'span_kind' },
  { id: 'errors', title: 'Error rate', type: 'timeseries', metric: 'error_rate' },
  { id: 'latency-p95', title: 'Latency p95 (ms)', type: 'timeseries', metric: 'latency_p95' },
  { id: 'tokens', title: 'Tokens by model', type: 'bar', metric: 'tokens', group_by: 'model' },
];

export function DashboardsPage() {
  usePageTitle('Dashboards');
  const dashboards = useGlobalDashboards();
  const projects = useProjects();
  const { option } = useTimeRange();
  const { interval } = useLiveRefresh();
  const queryClient = useQueryClient();
  const [selected, setSelected] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);

  const list = dashboards.data ?? [];
  const current = list.find((dashboard) => dashboard.id === selected) ?? list[0] ?? null;
  // A server holds few projects; the query API takes up to 100 at a time.
  const projectIds = (projects.data ?? []).slice(0, 100).map((project) => project.id);

  const create = async () => {
    setError(null);
    try {
      const created = await createDashboard(name.trim(), STARTER);
      setName('');
      await queryClient.invalidateQueries({ queryKey: dashboardsKey });
      setSelected(created.id);
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Title order={2}>Dashboards</Title>
        <RangeControls onRefresh={() => void queryClient.invalidateQueries()} />
      </Group>
      <Group gap="sm" align="flex-end" wrap="wrap">
        {list.length > 0 ? (
          <Select
            label="Dashboard"
            data={list.map((dashboard) => ({ value: dashboard.id ?? '', label: dashboard.name }))}
            value={current?.id ?? null}
            onChange={setSelected}
            allowDeselect={false}
            w={240}
          />
        ) : null}
        <TextInput label="New dashboard" placeholder="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} w={220} />
        <Button onClick={() => void create()} disabled={name.trim() === ''}>
          Create
        </Button>
        {current?.id ? (
          <Button
            variant="subtle"
            color="red"
            onClick={() =>
              void deleteDashboard(current.id!).then(() => {
                setSelected(null);
                return queryClient.invalidateQueries({ queryKey: dashboardsKey });
              })
            }
          >
            Delete dashboard
          </Button>
        ) : null}
      </Group>
      {error ? <Alert color="red">{error}</Alert> : null}
      {dashboards.error ? <Alert color="red">{dashboards.error.message}</Alert> : null}
      {!dashboards.data || !projects.data ? (
        <Center py="xl">
          <Loader aria-label="Loading dashboards" />
        </Center>
      ) : current === null ? (
        <Text c="dimmed">
          No dashboard across projects yet: name one to create it. Each project's own dashboard is on its Overview tab.
        </Text>
      ) : (
        <DashboardGrid
          key={current.id}
          widgets={current.widgets}
          projects={projectIds}
          option={option}
          refetchInterval={interval}
          onChange={async (widgets) => {
            await updateDashboard(current.id!, widgets);
            await queryClient.invalidateQueries({ queryKey: dashboardsKey });
          }}
        />
      )}
    </Stack>
  );
}
