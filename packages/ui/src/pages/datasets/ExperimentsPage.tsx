/**
 * `/datasets/:datasetId/experiments` (in DatasetLayout): the dataset's experiments, newest first,
 * with their run counts, mean score per evaluator and mean latency; pick two or more to compare.
 */
import { DeleteButton } from '../../components/DeleteButton';
import { call, client } from '../../api/http';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { Alert, Anchor, Badge, Button, Checkbox, Code, Group, Paper, Skeleton, Stack, Table, Text, Tooltip } from '@mantine/core';
import { IconArrowsLeftRight, IconInfoCircle } from '@tabler/icons-react';
import { useExperiments } from './queries';
import { formatDuration, formatInt, formatRelative } from '../../lib/format';
import { comparePath, evaluatorNames, formatScore, meanScore } from './experiments';

export function ExperimentsPage() {
  const { datasetId = '' } = useParams();
  const experiments = useExperiments(datasetId);
  const [selected, setSelected] = useState<string[]>([]);
  const queryClient = useQueryClient();

  if (experiments.isError) {
    return (
      <Alert color="red" title="Could not load the experiments">
        {experiments.error.message}
      </Alert>
    );
  }
  if (experiments.isPending) return <Skeleton height={160} />;
  if (experiments.data.length === 0) {
    return (
      <Alert icon={<IconInfoCircle />} title="No experiments yet">
        Run one from a script with <Code>runExperiment</Code> of @sightline/client or @arizeai/phoenix-client: its runs and evaluations
        appear here.
      </Alert>
    );
  }
  const names = evaluatorNames(experiments.data);
  const toggle = (id: string, on: boolean) => setSelected((current) => (on ? [...current, id] : current.filter((item) => item !== id)));
  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          {selected.length === 0
            ? 'Select experiments to compare them side by side.'
            : `${selected.length} selected (the first is the base)`}
        </Text>
        <Button
          component={Link}
          to={comparePath(datasetId, selected)}
          leftSection={<IconArrowsLeftRight size={16} />}
          disabled={selected.length === 0}
          onClick={(event: React.MouseEvent) => selected.length === 0 && event.preventDefault()}
        >
          Compare
        </Button>
      </Group>
      <Paper withBorder radius="md" style={{ overflow: 'auto' }}>
        <Table highlightOnHover aria-label="Experiments" style={{ minWidth: 720 }}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={40} />
              <Table.Th>Name</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th ta="right">Examples</Table.Th>
              <Table.Th>Runs</Table.Th>
              {names.map((name) => (
                <Table.Th key={name} ta="right">
                  {name}
                </Table.Th>
              ))}
              <Table.Th ta="right">Mean latency</Table.Th>
              <Table.Th w={90} />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {experiments.data.map((experiment) => (
              <Table.Tr key={experiment.id} data-testid="experiment-row">
                <Table.Td>
                  <Checkbox
                    aria-label={`Select ${experiment.name}`}
                    checked={selected.includes(experiment.id)}
                    onChange={(event) => toggle(experiment.id, event.currentTarget.checked)}
                  />
                </Table.Td>
                <Table.Td>
                  <Anchor component={Link} to={comparePath(datasetId, [experiment.id])} fw={500}>
                    {experiment.name}
                  </Anchor>{' '}
                  <Text span size="xs" c="dimmed" data-testid="experiment-number">
                    #{experimentNumber(experiment.id)}
                  </Text>
                  {experiment.description ? (
                    <Text size="xs" c="dimmed" lineClamp={1}>
                      {experiment.description}
                    </Text>
                  ) : null}
                </Table.Td>
                <Table.Td>
                  <Text size="sm" c="dimmed" title={experiment.created_at}>
                    {formatRelative(experiment.created_at)}
                  </Text>
                </Table.Td>
                <Table.Td ta="right">
                  {formatInt(experiment.example_count)}
                  {experiment.repetitions > 1 ? ` × ${experiment.repetitions}` : ''}
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    <Tooltip label="Successful runs">
                      <Badge color="green" variant="light">
                        {formatInt(experiment.successful_run_count)}
                      </Badge>
                    </Tooltip>
                    {experiment.failed_run_count > 0 ? (
                      <Tooltip label="Failed runs">
                        <Badge color="red" variant="light">
                          {formatInt(experiment.failed_run_count)} failed
                        </Badge>
                      </Tooltip>
                    ) : null}
                    {notRun(experiment) > 0 ? (
                      <Tooltip label="Runs not recorded yet">
                        <Badge color="gray" variant="light">
                          {formatInt(notRun(experiment))} not run
                        </Badge>
                      </Tooltip>
                    ) : null}
                  </Group>
                </Table.Td>
                {names.map((name) => (
                  <Table.Td key={name} ta="right" data-testid={`mean-${name}`} style={{ fontVariantNumeric: 'tabular-nums' }}>
                    {formatScore(meanScore(experiment, name))}
                  </Table.Td>
                ))}
                <Table.Td ta="right">{formatDuration(experiment.average_run_latency_ms)}</Table.Td>
                <Table.Td>
                  <DeleteButton
                    what={`experiment "${experiment.name}"`}
                    consequence="Its runs and their evaluations go with it; the dataset stays."
                    onDelete={() =>
                      call(client.DELETE('/v1/experiments/{experiment_id}', { params: { path: { experiment_id: experiment.id } } }))
                    }
                    onDeleted={() => void queryClient.invalidateQueries()}
                  />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Paper>
    </Stack>
  );
}

/**
 * Runs neither successful nor failed: the API's missing_run_count counts every run without a
 * success, failed ones too (as Phoenix), so an experiment with one failure read "1 failed · 1 missing".
 */
function notRun(experiment: { missing_run_count: number; failed_run_count: number }): number {
  return Math.max(0, experiment.missing_run_count - experiment.failed_run_count);
}

/** The experiment's number (its row id, from its opaque id): tells apart experiments with the same name. */
function experimentNumber(id: string): string {
  try {
    return atob(id).split(':')[1] ?? id;
  } catch {
    return id;
  }
}
