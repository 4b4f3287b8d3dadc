/** `/projects`: every project with its totals over the chosen time range. */
import { useMemo, useState, type ReactNode } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useQueries } from '@tanstack/react-query';
import { Alert, Anchor, Code, Group, Paper, Skeleton, Stack, Table, Text, Title, Tooltip, UnstyledButton } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconArrowsSort, IconInfoCircle } from '@tabler/icons-react';
import { summaryQuery, useProjects } from './queries';
import { collectorUrl } from '../../api/http';
import type { Project, ProjectSummary } from '@sightline/client/browser';
import { RangeControls } from '../../components/RangeControls';
import { formatCompact, formatDuration, formatInt, formatPercent, formatRelative } from '../../lib/format';
import { useLiveRefresh, useTimeRange } from '../../lib/timeRange';
import { usePageTitle } from '../../lib/pageTitle';

type SortKey = 'name' | 'traces' | 'spans' | 'errors' | 'p50' | 'p99' | 'tokens' | 'created';

const value = (key: SortKey, project: Project, summary: ProjectSummary | undefined): number | string => {
  switch (key) {
    case 'name':
      return project.name.toLowerCase();
    case 'created':
      return project.created_at;
    case 'traces':
      return summary?.trace_count ?? -1;
    case 'spans':
      return summary?.span_count ?? -1;
    case 'errors':
      return summary?.error_rate ?? -1;
    case 'p50':
      return summary?.latency_ms_p50 ?? -1;
    case 'p99':
      return summary?.latency_ms_p99 ?? -1;
    case 'tokens':
      return summary?.token_count_total ?? -1;
  }
};

export function projectPath(projectId: string, tab = 'traces', search = '') {
  return `/projects/${encodeURIComponent(projectId)}/${tab}${search}`;
}

/** Keeps the range and live switch when moving between explorer pages. */
export function explorerSearch(params: URLSearchParams): string {
  const kept = new URLSearchParams();
  for (const key of ['range', 'live']) {
    const found = params.get(key);
    if (found) kept.set(key, found);
  }
  const text = kept.toString();
  return text ? `?${text}` : '';
}

export function ProjectsPage() {
  usePageTitle('Projects');
  const { option } = useTimeRange();
  const { interval } = useLiveRefresh();
  const projects = useProjects(interval);
  const navigate = useNavigate();
  const [sort, setSort] = useState<{ key: SortKey; direction: 'asc' | 'desc' }>({ key: 'traces', direction: 'desc' });
  const summaries = useQueries({ queries: (projects.data ?? []).map((project) => summaryQuery(project.id, option, interval)) });
  const byId = new Map<string, ProjectSummary>();
  summaries.forEach((result, index) => {
    const project = projects.data?.[index];
    if (project && result.data) byId.set(project.id, result.data);
  });
  const [params] = useSearchParams();
  const search = explorerSearch(params);

  // Summaries arrive one by one: re-sort when any of them changes (their update times), not on every render.
  const summariesVersion = summaries.map((result) => result.dataUpdatedAt).join();
  // biome-ignore lint/correctness/useExhaustiveDependencies: summariesVersion stands for byId, which is rebuilt on every render
  const sorted = useMemo(() => {
    const list = [...(projects.data ?? [])];
    list.sort((a, b) => {
      const left = value(sort.key, a, byId.get(a.id));
      const right = value(sort.key, b, byId.get(b.id));
      const order = left < right ? -1 : left > right ? 1 : 0;
      return sort.direction === 'asc' ? order : -order;
    });
    return list;
  }, [projects.data, sort, summariesVersion]);

  const header = (key: SortKey, label: string, align: 'left' | 'right' = 'right') => {
    const active = sort.key === key;
    return (
      <Table.Th ta={align} aria-sort={active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}>
        <UnstyledButton
          fz="sm"
          fw={600}
          onClick={() => setSort({ key, direction: active && sort.direction === 'desc' ? 'asc' : 'desc' })}
          aria-label={`Sort by ${label}`}
        >
          <Group gap={4} wrap="nowrap" justify={align === 'right' ? 'flex-end' : 'flex-start'}>
            {label}
            {active ? (
              sort.direction === 'asc' ? (
                <IconArrowUp size={12} />
              ) : (
                <IconArrowDown size={12} />
              )
            ) : (
              <IconArrowsSort size={12} opacity={0.4} />
            )}
          </Group>
        </UnstyledButton>
      </Table.Th>
    );
  };

  const cell = (summary: ProjectSummary | undefined, loading: boolean, render: (summary: ProjectSummary) => ReactNode) => (
    <Table.Td ta="right" style={{ fontVariantNumeric: 'tabular-nums' }}>
      {summary ? render(summary) : loading ? <Skeleton h={14} w={48} ml="auto" /> : '—'}
    </Table.Td>
  );

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <div>
          <Title order={2}>Projects</Title>
          <Text c="dimmed" size="sm">
            {option.label}: traces, spans, latency and tokens per project
          </Text>
        </div>
        <RangeControls onRefresh={() => void projects.refetch()} refreshing={projects.isFetching} />
      </Group>
      {projects.error ? <Alert color="red">{projects.error.message}</Alert> : null}
      {projects.data && projects.data.length === 0 ? (
        <Alert color="indigo" variant="light" icon={<IconInfoCircle size={18} />} title="No traces yet">
          <Text size="sm">
            Point an OpenTelemetry exporter at <Code>{collectorUrl}</Code> (OTLP/HTTP) or the gRPC port, with an API key from{' '}
            <Anchor component={Link} to="/settings?tab=api-keys">
              Settings
            </Anchor>{' '}
            when sign-in is on. Projects appear here with their first span.
          </Text>
        </Alert>
      ) : null}
      <Paper withBorder radius="md">
        <Table.ScrollContainer minWidth={900}>
          <Table highlightOnHover verticalSpacing="sm" aria-label="Projects">
            <Table.Thead>
              <Table.Tr>
                {header('name', 'Project', 'left')}
                {header('traces', 'Traces')}
                {header('spans', 'Spans')}
                {header('errors', 'Error rate')}
                {header('p50', 'Latency p50')}
                {header('p99', 'Latency p99')}
                {header('tokens', 'Tokens')}
                {header('created', 'Created')}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {projects.isPending
                ? [0, 1, 2].map((index) => (
                    <Table.Tr key={index}>
                      <Table.Td colSpan={8}>
                        <Skeleton h={18} />
                      </Table.Td>
                    </Table.Tr>
                  ))
                : sorted.map((project) => {
                    const summary = byId.get(project.id);
                    const index = projects.data?.indexOf(project) ?? -1;
                    const loading = summaries[index]?.isPending ?? true;
                    const open = () => navigate(projectPath(project.id, 'traces', search));
                    return (
                      <Table.Tr key={project.id} onClick={open} style={{ cursor: 'pointer' }} data-testid={`project-row-${project.name}`}>
                        <Table.Td>
                          <Anchor
                            component={Link}
                            to={projectPath(project.id, 'traces', search)}
                            fw={600}
                            onClick={(event) => event.stopPropagation()}
                          >
                            {project.name}
                          </Anchor>
                          {project.description ? (
                            <Text size="xs" c="dimmed" lineClamp={1}>
                              {project.description}
                            </Text>
                          ) : null}
                        </Table.Td>
                        {cell(summary, loading, (s) => formatInt(s.trace_count))}
                        {cell(summary, loading, (s) => formatInt(s.span_count))}
                        {cell(summary, loading, (s) => (
                          <Text span size="sm" c={s.error_rate > 0 ? 'red' : undefined}>
                            {formatPercent(s.error_rate)}
                          </Text>
                        ))}
                        {cell(summary, loading, (s) => formatDuration(s.latency_ms_p50))}
                        {cell(summary, loading, (s) => formatDuration(s.latency_ms_p99))}
                        {cell(summary, loading, (s) => (
                          <Tooltip label={`${formatInt(s.token_count_prompt)} prompt · ${formatInt(s.token_count_completion)} completion`}>
                            <span>{formatCompact(s.token_count_total)}</span>
                          </Tooltip>
                        ))}
                        <Table.Td ta="right">
                          <Text size="sm" c="dimmed">
                            {formatRelative(project.created_at)}
                          </Text>
                        </Table.Td>
                      </Table.Tr>
                    );
                  })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Paper>
    </Stack>
  );
}
