/**
 * `/queues`: the annotation queues (docs/annotation-queues.md), each with its progress; a new one
 * is created with its instructions, configs and reviewers. A queue's page lists its items; its
 * review page shows them one at a time.
 */
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Alert, Anchor, Button, Group, Paper, Progress, ScrollArea, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { IconInfoCircle, IconPlus } from '@tabler/icons-react';
import type { AnnotationQueue } from '@sightline/client/browser';
import { formatInt, formatRelative } from '../../lib/format';
import { usePageTitle } from '../../lib/pageTitle';
import { QueueEditor } from './QueueEditor';
import { useQueues } from './queries';

export const queuePath = (queueId: string, rest = '') => `/queues/${encodeURIComponent(queueId)}${rest}`;

/** Done and skipped items as a share of all, for the progress bar. */
export function reviewedShare(progress: AnnotationQueue['progress']): number {
  return progress.total === 0 ? 0 : ((progress.done + progress.skipped) / progress.total) * 100;
}

export function QueuesPage() {
  usePageTitle('Annotation queues');
  const queues = useQueues();
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Title order={2}>Annotation queues</Title>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
          New queue
        </Button>
      </Group>
      <Text size="sm" c="dimmed">
        Spans, traces and sessions waiting for a human judgement: reviewers take them one at a time and fill in the queue’s annotations.
      </Text>
      {queues.isError ? (
        <Alert color="red" title="Could not load the queues">
          {queues.error.message}
        </Alert>
      ) : queues.isPending ? (
        <Skeleton height={160} />
      ) : queues.data.length === 0 ? (
        <Alert icon={<IconInfoCircle />} title="No annotation queues yet">
          Create one, then add spans or traces from a project’s tables (select them, then “Add to queue”) or a trace’s page.
        </Alert>
      ) : (
        <Paper withBorder radius="md">
          <ScrollArea type="auto">
            <Table highlightOnHover aria-label="Annotation queues" miw={520}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th>
                  <Table.Th>Progress</Table.Th>
                  <Table.Th>Updated</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {queues.data.map((queue) => (
                  <Table.Tr key={queue.id} data-testid="queue-row">
                    <Table.Td>
                      <Anchor component={Link} to={queuePath(queue.id)} fw={500} size="sm">
                        {queue.name}
                      </Anchor>
                      {queue.description ? (
                        <Text size="xs" c="dimmed" lineClamp={1}>
                          {queue.description}
                        </Text>
                      ) : null}
                    </Table.Td>
                    <Table.Td miw={160}>
                      <Progress value={reviewedShare(queue.progress)} size="sm" aria-label={`${queue.name} progress`} />
                      <Text size="xs" c="dimmed" mt={4}>
                        {formatInt(queue.progress.done + queue.progress.skipped)} of {formatInt(queue.progress.total)} reviewed
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">{formatRelative(queue.updated_at)}</Text>
                    </Table.Td>
                    <Table.Td>
                      <Group justify="flex-end" wrap="nowrap">
                        <Button size="xs" onClick={() => navigate(queuePath(queue.id, '/review'))} disabled={queue.progress.pending === 0}>
                          Review
                        </Button>
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </ScrollArea>
        </Paper>
      )}
      {creating ? <QueueEditor queue={null} onClose={() => setCreating(false)} onSaved={(saved) => navigate(queuePath(saved.id))} /> : null}
    </Stack>
  );
}
