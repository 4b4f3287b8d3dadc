/**
 * `/queues/:queueId`: one annotation queue — its progress, instructions, configs and reviewers, its
 * items (removable), adding items by id or from an experiment, and the export links.
 */
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Checkbox,
  Group,
  Paper,
  Progress,
  ScrollArea,
  SegmentedControl,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { IconDownload, IconPencil, IconPlayerPlay, IconTrash } from '@tabler/icons-react';
import type { AnnotationQueueItem } from '@sightline/client/browser';
import { apiUrl } from '../../api/http';
import { useCurrentViewer } from '../../components/AuthGate';
import { ConfirmModal } from '../../components/ConfirmModal';
import { formatDateTime, formatInt, shortId } from '../../lib/format';
import { usePageTitle } from '../../lib/pageTitle';
import { useProjects } from '../projects/queries';
import { sessionPath } from '../projects/SessionsTab';
import { QueueEditor } from './QueueEditor';
import { queuePath, reviewedShare } from './QueuesPage';
import {
  addItems,
  deleteQueue,
  queueItemsKey,
  queueKey,
  queueProgressKey,
  queuesKey,
  removeItems,
  useQueue,
  useQueueItems,
  useQueueProgress,
} from './queries';

const STATUS_COLORS: Record<AnnotationQueueItem['status'], string> = { pending: 'gray', done: 'teal', skipped: 'yellow' };

/** Where an item's target is shown in the explorer (null once it is gone). */
export function targetLink(item: Pick<AnnotationQueueItem, 'project_id' | 'kind' | 'trace_id' | 'span_id' | 'session_id'>): string | null {
  const project = encodeURIComponent(item.project_id);
  if (item.kind === 'session') return item.session_id ? sessionPath(item.project_id, item.session_id) : null;
  if (!item.trace_id) return null;
  return `/projects/${project}/traces/${item.trace_id}${item.kind === 'span' && item.span_id ? `?span=${item.span_id}` : ''}`;
}

function targetLabel(item: AnnotationQueueItem): string {
  if (item.kind === 'session') return item.session_id ?? '(session deleted)';
  if (item.kind === 'span') return item.span_id ? `${item.name ?? 'span'} · ${shortId(item.span_id)}` : '(span deleted)';
  return item.trace_id ? shortId(item.trace_id, 12) : '(trace deleted)';
}

/** Ids typed one per line, or separated by commas or spaces. */
const idsOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((id) => id.trim())
    .filter((id) => id !== '');

function AddItemsForm({ queueId }: { queueId: string }) {
  const projects = useProjects();
  const queryClient = useQueryClient();
  const [source, setSource] = useState<'ids' | 'experiment'>('ids');
  const [projectId, setProjectId] = useState<string | null>(null);
  const [kind, setKind] = useState<'trace' | 'span' | 'session'>('trace');
  const [ids, setIds] = useState('');
  const [experimentId, setExperimentId] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);

  const add = async () => {
    setBusy(true);
    setResult(null);
    try {
      const list = idsOf(ids);
      const added =
        source === 'experiment'
          ? await addItems(queueId, { experiment_id: experimentId.trim() })
          : await addItems(queueId, { project_id: projectId!, [`${kind}_ids`]: list });
      setResult({
        ok: true,
        text: `Added ${formatInt(added.added)}${added.existing ? `; ${formatInt(added.existing)} already in the queue` : ''}${
          added.missing ? `; ${formatInt(added.missing)} runs without a trace` : ''
        }.`,
      });
      setIds('');
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queueItemsKey(queueId) }),
        queryClient.invalidateQueries({ queryKey: queueProgressKey(queueId) }),
        queryClient.invalidateQueries({ queryKey: queuesKey }),
      ]);
    } catch (error) {
      setResult({ ok: false, text: error instanceof Error ? error.message : String(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Paper withBorder p="md" radius="md">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Text fw={600} size="sm">
            Add items
          </Text>
          <SegmentedControl
            size="xs"
            value={source}
            onChange={(value) => setSource(value as 'ids' | 'experiment')}
            data={[
              { value: 'ids', label: 'By id' },
              { value: 'experiment', label: 'From an experiment' },
            ]}
          />
        </Group>
        {source === 'ids' ? (
          <>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <Select
                label="Project"
                placeholder="Pick a project"
                data={(projects.data ?? []).map((project) => ({ value: project.id, label: project.name }))}
                value={projectId}
                onChange={setProjectId}
                searchable
              />
              <div>
                <Text size="sm" fw={500} mb={4}>
                  Kind
                </Text>
                <SegmentedControl
                  fullWidth
                  value={kind}
                  onChange={(value) => setKind(value as 'trace' | 'span' | 'session')}
                  data={[
                    { value: 'trace', label: 'Traces' },
                    { value: 'span', label: 'Spans' },
                    { value: 'session', label: 'Sessions' },
                  ]}
                />
              </div>
            </SimpleGrid>
            <Textarea
              label={kind === 'session' ? 'Session ids' : `OpenTelemetry ${kind} ids`}
              description="One per line, or separated by commas (at most 1000)."
              autosize
              minRows={2}
              maxRows={8}
              value={ids}
              onChange={(event) => setIds(event.currentTarget.value)}
            />
          </>
        ) : (
          <TextInput
            label="Experiment id"
            description="The traces of the experiment’s runs are added."
            value={experimentId}
            onChange={(event) => setExperimentId(event.currentTarget.value)}
          />
        )}
        {result ? (
          <Text size="sm" c={result.ok ? 'teal' : 'red'} role={result.ok ? 'status' : 'alert'}>
            {result.text}
          </Text>
        ) : null}
        <Group justify="flex-end">
          <Button
            onClick={() => void add()}
            loading={busy}
            disabled={source === 'ids' ? projectId === null || idsOf(ids).length === 0 : experimentId.trim() === ''}
          >
            Add to queue
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

export function QueuePage() {
  const { queueId = '' } = useParams();
  const viewer = useCurrentViewer();
  const queue = useQueue(queueId);
  const progress = useQueueProgress(queueId);
  const items = useQueueItems(queueId);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [removing, setRemoving] = useState(false);
  const rows = useMemo(() => items.data?.pages.flatMap((page) => page.data) ?? [], [items.data]);
  usePageTitle(queue.data?.name ?? 'Annotation queue');

  const q = queue.data;
  const counts = progress.data ?? q?.progress;
  const download = (format: 'jsonl' | 'csv') =>
    apiUrl('/v1/annotation_queues/{queue_id}/export', { path: { queue_id: queueId }, query: { format } });

  const removeSelected = async () => {
    setRemoving(true);
    try {
      await removeItems(queueId, [...selected]);
      setSelected(new Set());
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queueItemsKey(queueId) }),
        queryClient.invalidateQueries({ queryKey: queueProgressKey(queueId) }),
      ]);
    } finally {
      setRemoving(false);
    }
  };

  return (
    <Stack gap="md">
      <div>
        <Breadcrumbs separator="/" mb={4}>
          <Anchor component={Link} to="/queues" size="sm">
            Queues
          </Anchor>
          <Text size="sm">{q?.name ?? '…'}</Text>
        </Breadcrumbs>
        <Group justify="space-between" wrap="wrap" gap="sm">
          <Title order={2} style={{ wordBreak: 'break-word' }}>
            {q?.name ?? 'Annotation queue'}
          </Title>
          <Group gap="xs" wrap="wrap">
            <Button leftSection={<IconPlayerPlay size={16} />} onClick={() => navigate(queuePath(queueId, '/review'))}>
              Start reviewing
            </Button>
            <Button variant="default" leftSection={<IconPencil size={16} />} onClick={() => setEditing(true)} disabled={!q}>
              Edit
            </Button>
            <Button component="a" href={download('jsonl')} variant="default" leftSection={<IconDownload size={16} />}>
              JSONL
            </Button>
            <Button component="a" href={download('csv')} variant="default" leftSection={<IconDownload size={16} />}>
              CSV
            </Button>
            <Button variant="subtle" color="red" leftSection={<IconTrash size={16} />} onClick={() => setDeleting(true)}>
              Delete
            </Button>
          </Group>
        </Group>
      </div>
      {queue.error ? <Alert color="red">{queue.error.message}</Alert> : null}
      {q && counts ? (
        <Paper withBorder p="md" radius="md">
          <Stack gap="xs">
            <Progress value={reviewedShare(counts)} size="md" aria-label="Progress" />
            <Group gap="lg" wrap="wrap" data-testid="queue-progress">
              <Text size="sm">
                <b>{formatInt(counts.total)}</b> items
              </Text>
              <Text size="sm">
                <b>{formatInt(counts.pending)}</b> pending
              </Text>
              <Text size="sm">
                <b>{formatInt(counts.done)}</b> done
              </Text>
              <Text size="sm">
                <b>{formatInt(counts.skipped)}</b> skipped
              </Text>
            </Group>
            {q.instructions ? (
              <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                {q.instructions}
              </Text>
            ) : null}
            <Group gap={6} wrap="wrap">
              <Text size="xs" c="dimmed">
                Configs
              </Text>
              {q.annotation_configs.length === 0 ? (
                <Text size="xs" c="dimmed">
                  none (reviewers can only leave notes)
                </Text>
              ) : (
                q.annotation_configs.map((config) => (
                  <Badge key={config.id} variant="light" size="sm">
                    {config.name}
                  </Badge>
                ))
              )}
            </Group>
            <Group gap={6} wrap="wrap">
              <Text size="xs" c="dimmed">
                Reviewers
              </Text>
              <Text size="xs">
                {viewer.kind === 'anonymous'
                  ? 'everyone (authentication is off)'
                  : q.reviewers.length === 0
                    ? 'admins only'
                    : q.reviewers.map((reviewer) => reviewer.username).join(', ')}
              </Text>
            </Group>
          </Stack>
        </Paper>
      ) : queue.isPending ? (
        <Skeleton height={120} />
      ) : null}
      <AddItemsForm queueId={queueId} />
      <Group justify="space-between" wrap="wrap">
        <Text fw={600}>Items</Text>
        {selected.size > 0 ? (
          <Button size="xs" variant="light" color="red" onClick={() => void removeSelected()} loading={removing}>
            Remove {formatInt(selected.size)} from the queue
          </Button>
        ) : null}
      </Group>
      {items.error ? <Alert color="red">{items.error.message}</Alert> : null}
      {rows.length === 0 && !items.isPending ? (
        <Text size="sm" c="dimmed">
          No items yet. Add some above, or select spans or traces in a project and use “Add to queue”.
        </Text>
      ) : (
        <Paper withBorder radius="md">
          <ScrollArea type="auto">
            <Table aria-label="Queue items" miw={560}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th w={36} />
                  <Table.Th>Kind</Table.Th>
                  <Table.Th>Item</Table.Th>
                  <Table.Th>Status</Table.Th>
                  <Table.Th>Reviewed</Table.Th>
                  <Table.Th>Note</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((item) => {
                  const link = targetLink(item);
                  return (
                    <Table.Tr key={item.id} data-testid="queue-item-row">
                      <Table.Td>
                        <Checkbox
                          size="xs"
                          aria-label={`Select item ${targetLabel(item)}`}
                          checked={selected.has(item.id)}
                          onChange={(event) => {
                            const on = event.currentTarget.checked;
                            setSelected((current) => {
                              const next = new Set(current);
                              if (on) next.add(item.id);
                              else next.delete(item.id);
                              return next;
                            });
                          }}
                        />
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{item.kind}</Text>
                      </Table.Td>
                      <Table.Td>
                        {link ? (
                          <Anchor component={Link} to={link} size="sm" ff="monospace">
                            {targetLabel(item)}
                          </Anchor>
                        ) : (
                          <Text size="sm" c="dimmed">
                            {targetLabel(item)}
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td>
                        <Badge size="sm" variant="light" color={STATUS_COLORS[item.status]}>
                          {item.status}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{item.completed_at ? formatDateTime(item.completed_at) : '—'}</Text>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm" lineClamp={1}>
                          {item.note ?? ''}
                        </Text>
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </ScrollArea>
        </Paper>
      )}
      {items.hasNextPage ? (
        <Group justify="center">
          <Button variant="default" onClick={() => void items.fetchNextPage()} loading={items.isFetchingNextPage}>
            Load more
          </Button>
        </Group>
      ) : null}
      {editing && q ? (
        <QueueEditor
          queue={q}
          onClose={() => setEditing(false)}
          onSaved={() => void queryClient.invalidateQueries({ queryKey: queueKey(queueId) })}
        />
      ) : null}
      <ConfirmModal
        opened={deleting}
        title={`Delete ${q?.name ?? 'this queue'}?`}
        confirmLabel="Delete queue"
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await deleteQueue(queueId);
          await queryClient.invalidateQueries({ queryKey: queuesKey });
          navigate('/queues');
        }}
      >
        <Text size="sm">Its items go; the annotations its reviewers wrote stay on the spans, traces and sessions.</Text>
      </ConfirmModal>
    </Stack>
  );
}
