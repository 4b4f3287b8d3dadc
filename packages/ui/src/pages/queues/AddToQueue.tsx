/**
 * "Add to queue" (docs/annotation-queues.md): sends spans, traces or a session of a project to an
 * annotation queue for human review; used by the spans and traces tables (their selection) and a
 * trace's page.
 */
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Group, Modal, Select, Stack, Text } from '@mantine/core';
import { IconListCheck } from '@tabler/icons-react';
import { addItems, queueItemsKey, queueProgressKey, queuesKey, useQueues } from './queries';

export interface QueueTargets {
  projectId: string;
  spanIds?: string[];
  traceIds?: string[];
  sessionIds?: string[];
}

const countOf = (targets: QueueTargets) =>
  (targets.spanIds?.length ?? 0) + (targets.traceIds?.length ?? 0) + (targets.sessionIds?.length ?? 0);

function what(targets: QueueTargets): string {
  const count = countOf(targets);
  const kind = targets.spanIds?.length ? 'span' : targets.traceIds?.length ? 'trace' : 'session';
  return count === 1 ? `this ${kind}` : `${count} ${kind}s`;
}

export function AddToQueueButton({ targets, onAdded }: { targets: QueueTargets; onAdded?: () => void }) {
  const [opened, setOpened] = useState(false);
  const [queueId, setQueueId] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const queues = useQueues();
  const queryClient = useQueryClient();
  const add = useMutation({
    mutationFn: () =>
      addItems(queueId!, {
        project_id: targets.projectId,
        ...(targets.spanIds?.length ? { span_ids: targets.spanIds } : {}),
        ...(targets.traceIds?.length ? { trace_ids: targets.traceIds } : {}),
        ...(targets.sessionIds?.length ? { session_ids: targets.sessionIds } : {}),
      }),
    onSuccess: (added) => {
      void queryClient.invalidateQueries({ queryKey: queuesKey });
      void queryClient.invalidateQueries({ queryKey: queueItemsKey(queueId!) });
      void queryClient.invalidateQueries({ queryKey: queueProgressKey(queueId!) });
      setMessage(added.existing > 0 ? `Added ${added.added}; ${added.existing} already in the queue.` : `Added ${added.added}.`);
      onAdded?.();
    },
  });
  const count = countOf(targets);
  return (
    <>
      <Button
        size="xs"
        variant="default"
        leftSection={<IconListCheck size={14} />}
        disabled={count === 0}
        onClick={() => {
          setMessage(null);
          add.reset();
          setOpened(true);
        }}
      >
        {count > 1 ? `Add ${count} to queue` : 'Add to queue'}
      </Button>
      <Modal
        opened={opened}
        onClose={() => setOpened(false)}
        title={<Text fw={600}>Add {what(targets)} to an annotation queue</Text>}
        centered
      >
        <Stack>
          <Select
            label="Queue"
            placeholder={queues.data?.length === 0 ? 'No queues yet: create one on the Queues page' : 'Pick a queue'}
            data={(queues.data ?? []).map((queue) => ({ value: queue.id, label: queue.name }))}
            value={queueId}
            onChange={setQueueId}
            searchable
            data-autofocus
          />
          {add.error ? (
            <Text c="red" size="sm" role="alert">
              {add.error.message}
            </Text>
          ) : null}
          {message ? (
            <Text c="teal" size="sm" role="status">
              {message}
            </Text>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpened(false)}>
              {message ? 'Close' : 'Cancel'}
            </Button>
            <Button onClick={() => add.mutate()} loading={add.isPending} disabled={queueId === null}>
              Add
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
