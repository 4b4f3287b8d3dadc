/**
 * The project's annotations over the time range (docs/annotations.md, "Summaries"): per name,
 * how many, the share of each label, the mean score; a label opens the traces filtered by it.
 */
import { Alert, Anchor, Group, Paper, Progress, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { useAnnotationSummaries } from './annotationQueries';
import { formatInt } from '../../lib/format';
import { useLiveRefresh, useTimeRange } from '../../lib/timeRange';
import { useProjectContext } from './ProjectLayout';
import { explorerSearch } from './ProjectsPage';

const COLORS = ['indigo', 'teal', 'orange', 'grape', 'cyan', 'pink', 'lime', 'yellow'];

export function AnnotationSummaries() {
  const { projectId } = useProjectContext();
  const { option } = useTimeRange();
  const { interval } = useLiveRefresh();
  const [params] = useSearchParams();
  const summaries = useAnnotationSummaries(projectId, option, interval);
  const search = explorerSearch(params);
  const filtered = (filter: string) =>
    `/projects/${encodeURIComponent(projectId)}/traces${search}${search ? '&' : '?'}ann=${encodeURIComponent(filter)}`;

  return (
    <Paper withBorder p="md" radius="md" data-testid="annotation-summaries">
      <Stack gap="xs">
        <div>
          <Title order={4} size="h5">
            Annotations
          </Title>
          <Text size="xs" c="dimmed">
            Span and trace annotations of {option.label.toLowerCase()}, by name · a label shows its traces
          </Text>
        </div>
        {summaries.error ? <Alert color="red">{summaries.error.message}</Alert> : null}
        {summaries.data && summaries.data.length === 0 ? (
          <Text c="dimmed" size="sm">
            No annotations in this range.
          </Text>
        ) : null}
        {summaries.data && summaries.data.length > 0 ? (
          <Table verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th ta="right">Count</Table.Th>
                <Table.Th ta="right">Mean score</Table.Th>
                <Table.Th w="50%">Labels</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {summaries.data.map((summary) => {
                const labelled = summary.labels.reduce((sum, label) => sum + label.count, 0);
                return (
                  <Table.Tr key={summary.name} data-testid="annotation-summary">
                    <Table.Td>
                      <Anchor component={Link} to={filtered(summary.name)} size="sm" fw={600}>
                        {summary.name}
                      </Anchor>
                    </Table.Td>
                    <Table.Td ta="right">
                      <Tooltip label={`${formatInt(summary.span_count)} on spans · ${formatInt(summary.trace_count)} on traces`}>
                        <span data-testid="annotation-summary-count">{formatInt(summary.count)}</span>
                      </Tooltip>
                    </Table.Td>
                    <Table.Td ta="right" ff="monospace">
                      {summary.mean_score !== null ? Number(summary.mean_score.toFixed(3)) : '—'}
                    </Table.Td>
                    <Table.Td>
                      {labelled > 0 ? (
                        <Stack gap={4}>
                          <Progress.Root size="md">
                            {summary.labels.map((label, index) => (
                              <Progress.Section
                                key={label.label}
                                value={(label.count / labelled) * 100}
                                color={COLORS[index % COLORS.length]}
                              />
                            ))}
                          </Progress.Root>
                          <Group gap="sm">
                            {summary.labels.map((label, index) => (
                              <Anchor
                                key={label.label}
                                component={Link}
                                to={filtered(`${summary.name}:${label.label}`)}
                                size="xs"
                                c={COLORS[index % COLORS.length]}
                                data-testid="annotation-summary-label"
                              >
                                {label.label}: {formatInt(label.count)} ({Math.round((label.count / labelled) * 100)}%)
                              </Anchor>
                            ))}
                          </Group>
                        </Stack>
                      ) : (
                        <Text size="xs" c="dimmed">
                          scores only
                        </Text>
                      )}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        ) : null}
      </Stack>
    </Paper>
  );
}
