/** `/projects/:projectId/*`: project header with totals, the Traces / Spans / Sessions / Overview / Annotation configs / Online evaluation / Alerts / Exports tabs, and the range controls. */
import { DeleteButton } from '../../components/DeleteButton';
import { call, client } from '../../api/http';
import { Anchor, Alert, Breadcrumbs, Group, Stack, Tabs, Text, Title } from '@mantine/core';
import { IconBell, IconChartBar, IconFileExport, IconGavel, IconListTree, IconMessages, IconTag, IconTimeline } from '@tabler/icons-react';
import { Link, Outlet, useLocation, useNavigate, useOutletContext, useParams, useSearchParams } from 'react-router';
import { useIsFetching, useQueryClient } from '@tanstack/react-query';
import { useProject, useSummary } from './queries';
import type { Project } from '@sightline/client/browser';
import { RangeControls } from '../../components/RangeControls';
import { StatStrip } from '../../components/StatStrip';
import { CopyIcon } from '../../components/Copy';
import { formatCount, formatCompact, formatCost, formatDuration, formatInt, formatPercent } from '../../lib/format';
import { useLiveRefresh, useTimeRange } from '../../lib/timeRange';
import { explorerSearch } from './ProjectsPage';
import { usePageTitle } from '../../lib/pageTitle';

export interface ProjectContext {
  project: Project;
  projectId: string;
}

export function useProjectContext(): ProjectContext {
  return useOutletContext<ProjectContext>();
}

export function ProjectLayout() {
  const { projectId = '' } = useParams();
  const location = useLocation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const queryClient = useQueryClient();
  const { option } = useTimeRange();
  const { interval } = useLiveRefresh();
  const project = useProject(projectId);
  usePageTitle(project.data?.name ?? 'Project');
  const summary = useSummary(projectId, option, interval);
  const fetching = useIsFetching() > 0;
  const tab = location.pathname.split('/')[3] ?? 'traces';
  const search = explorerSearch(params);

  if (project.error) {
    return (
      <Alert color="red" title="Project not found">
        {project.error.message}{' '}
        <Anchor component={Link} to="/projects">
          All projects
        </Anchor>
      </Alert>
    );
  }

  const s = summary.data;
  // A large range is summed from the per-minute rollups: percentiles within ±19 % (docs/dashboards.md).
  const approx = s?.approximate && s.latency_ms_p50 !== null ? '≈ ' : '';
  const approxHint = s?.approximate ? ', within ±19 % (from the per-minute rollups of this many spans)' : '';
  const tokensHint = s ? `${formatInt(s.token_count_prompt)} prompt · ${formatInt(s.token_count_completion)} completion` : undefined;

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <div>
          <Breadcrumbs separator="/" mb={4}>
            <Anchor component={Link} to={`/projects${search}`} size="sm">
              Projects
            </Anchor>
            <Text size="sm">{project.data?.name ?? '…'}</Text>
          </Breadcrumbs>
          <Group gap={6}>
            <Title order={2}>{project.data?.name ?? ' '}</Title>
            {project.data ? <CopyIcon value={project.data.name} label="Copy project name" /> : null}
            {project.data ? (
              <DeleteButton
                what={`project "${project.data.name}"`}
                consequence="Its traces, spans, sessions and annotations go with it."
                adminOnly
                onDelete={() =>
                  call(client.DELETE('/v1/projects/{project_identifier}', { params: { path: { project_identifier: projectId } } }))
                }
                onDeleted={() => {
                  void queryClient.invalidateQueries({ queryKey: ['projects'] });
                  navigate('/projects');
                }}
              />
            ) : null}
          </Group>
          {project.data?.description ? (
            <Text c="dimmed" size="sm">
              {project.data.description}
            </Text>
          ) : null}
        </div>
        <RangeControls onRefresh={() => void queryClient.invalidateQueries()} refreshing={fetching} />
      </Group>
      <StatStrip
        loading={summary.isPending}
        stats={[
          { label: 'Traces', value: formatInt(s?.trace_count) },
          { label: 'Spans', value: formatInt(s?.span_count) },
          {
            label: 'Error rate',
            value: formatPercent(s?.error_rate),
            color: s && s.error_rate > 0 ? 'red' : undefined,
            hint: s ? `${formatCount(s.error_count, 'span')} with status ERROR` : undefined,
          },
          {
            label: 'Latency p50',
            value: `${approx}${formatDuration(s?.latency_ms_p50)}`,
            hint: `Median duration of root spans${approxHint}`,
          },
          {
            label: 'Latency p99',
            value: `${approx}${formatDuration(s?.latency_ms_p99)}`,
            hint: `99th percentile duration of root spans${approxHint}`,
          },
          { label: 'Tokens', value: formatCompact(s?.token_count_total), hint: tokensHint },
          {
            label: 'Cost',
            value: formatCost(s?.cost_total),
            hint: s ? `${formatCost(s.cost_prompt)} prompt · ${formatCost(s.cost_completion)} completion (priced LLM spans)` : undefined,
          },
        ]}
      />
      <Tabs value={tab} onChange={(value) => value && navigate(`/projects/${encodeURIComponent(projectId)}/${value}${search}`)}>
        <Tabs.List className="sl-tabs-scroll">
          <Tabs.Tab value="traces" leftSection={<IconListTree size={16} />}>
            Traces
          </Tabs.Tab>
          <Tabs.Tab value="spans" leftSection={<IconTimeline size={16} />}>
            Spans
          </Tabs.Tab>
          <Tabs.Tab value="sessions" leftSection={<IconMessages size={16} />}>
            Sessions
          </Tabs.Tab>
          <Tabs.Tab value="overview" leftSection={<IconChartBar size={16} />}>
            Overview
          </Tabs.Tab>
          <Tabs.Tab value="annotations" leftSection={<IconTag size={16} />}>
            Annotation configs
          </Tabs.Tab>
          <Tabs.Tab value="online-eval" leftSection={<IconGavel size={16} />}>
            Online evaluation
          </Tabs.Tab>
          <Tabs.Tab value="alerts" leftSection={<IconBell size={16} />}>
            Alerts
          </Tabs.Tab>
          <Tabs.Tab value="exports" leftSection={<IconFileExport size={16} />}>
            Exports
          </Tabs.Tab>
        </Tabs.List>
      </Tabs>
      {project.data ? <Outlet context={{ project: project.data, projectId } satisfies ProjectContext} /> : null}
    </Stack>
  );
}
