/**
 * `/projects/:projectId/exports`: the project's scheduled exports (docs/export.md): each writes
 * the spans or traces that arrived since its last run into a file under the server's export
 * directory. Everyone sees them and their runs; admins (everyone with auth off) create, pause,
 * run and delete them.
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Code,
  Group,
  NumberInput,
  Paper,
  SegmentedControl,
  Select,
  Skeleton,
  Stack,
  Switch,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { CreateForm } from '../../components/CreateForm';
import { IconChevronDown, IconChevronRight, IconInfoCircle, IconPlayerPlay, IconPlus, IconTrash } from '@tabler/icons-react';
import type { ScheduledExport } from '@sightline/client/browser';
import { useProjectContext } from '../projects/ProjectLayout';
import { useCurrentViewer } from '../../components/AuthGate';
import { ConfirmModal } from '../../components/ConfirmModal';
import { formatBytes, formatCount, formatDateTime, formatRelative } from '../../lib/format';
import {
  createScheduledExport,
  deleteScheduledExport,
  type ExportForm,
  exportRunsKey,
  runScheduledExport,
  scheduledExportsKey,
  updateScheduledExport,
  useExportRuns,
  useScheduledExports,
  useScheduledExportsStatus,
} from './queries';

const TARGETS: { value: ScheduledExport['target']; label: string; hint: string }[] = [
  { value: 'span', label: 'Spans', hint: 'A row per span the filter matches.' },
  { value: 'trace', label: 'Traces', hint: 'A row per trace with a span the filter matches, written once its root span arrives.' },
];

const FORMATS: { value: ScheduledExport['format']; label: string }[] = [
  { value: 'parquet', label: 'Parquet' },
  { value: 'csv', label: 'CSV' },
  { value: 'jsonl', label: 'JSONL' },
];

const EMPTY: ExportForm = { name: '', target: 'span', format: 'parquet', filter: '', interval_minutes: 60 };

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

function NewExportForm({ projectId, onDone }: { projectId: string; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<ExportForm>(EMPTY);
  const set = <K extends keyof ExportForm>(key: K, value: ExportForm[K]) => setForm((current) => ({ ...current, [key]: value }));

  const save = async () => {
    await createScheduledExport(projectId, form);
    await queryClient.invalidateQueries({ queryKey: scheduledExportsKey(projectId) });
    onDone();
  };

  return (
    <CreateForm
      title="New scheduled export"
      submitLabel="Create export"
      canSubmit={form.name.trim() !== ''}
      onSubmit={save}
      onCancel={onDone}
    >
      <TextInput
        label="Name"
        description="Its folder under the project's folder"
        required
        value={form.name}
        onChange={(event) => set('name', event.currentTarget.value)}
        maxLength={128}
      />
      <Group align="flex-start" wrap="wrap" gap="md">
        <div>
          <Text size="sm" fw={500} mb={4}>
            Rows
          </Text>
          <SegmentedControl
            aria-label="What the export writes"
            value={form.target}
            onChange={(value) => set('target', value as ExportForm['target'])}
            data={TARGETS.map(({ value, label }) => ({ value, label }))}
          />
        </div>
        <Select
          label="Format"
          data={FORMATS}
          value={form.format}
          onChange={(value) => value && set('format', value as ExportForm['format'])}
          allowDeselect={false}
          w={140}
        />
        <NumberInput
          label="Every (minutes)"
          min={1}
          max={10080}
          value={form.interval_minutes}
          onChange={(value) => set('interval_minutes', Number(value) || 1)}
          w={140}
        />
      </Group>
      <Text size="xs" c="dimmed">
        {TARGETS.find((target) => target.value === form.target)?.hint}
      </Text>
      <TextInput
        label="Filter"
        description="A span condition, e.g. span_kind == 'LLM' and latency_ms > 1000; empty for every span."
        placeholder="span_kind == 'LLM'"
        value={form.filter}
        onChange={(event) => set('filter', event.currentTarget.value)}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
      />
    </CreateForm>
  );
}

function Runs({ exportId }: { exportId: string }) {
  const runs = useExportRuns(exportId);
  if (runs.isPending) return <Skeleton height={40} />;
  if (runs.isError) return <Alert color="red">{runs.error.message}</Alert>;
  if (runs.data.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No run yet.
      </Text>
    );
  return (
    <Stack gap={6} mt="xs" aria-label="Runs">
      {runs.data.map((run) => (
        <Group key={run.id} gap="xs" wrap="wrap" align="baseline" data-testid="export-run">
          <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
            {formatDateTime(run.started_at)}
          </Text>
          <Text size="sm" fw={500} data-testid="export-run-rows" style={{ whiteSpace: 'nowrap' }}>
            {formatCount(run.row_count, 'row')}
          </Text>
          {run.error ? (
            <Text size="sm" c="red" style={{ wordBreak: 'break-word' }}>
              {run.error}
            </Text>
          ) : run.file ? (
            <>
              <Code style={{ wordBreak: 'break-all' }}>{run.file}</Code>
              <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
                {formatBytes(run.byte_count)}
              </Text>
            </>
          ) : (
            <Text size="sm" c="dimmed">
              nothing new
            </Text>
          )}
        </Group>
      ))}
    </Stack>
  );
}

function ExportRow({ projectId, item, canEdit }: { projectId: string; item: ScheduledExport; canEdit: boolean }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState<'run' | 'toggle' | 'delete' | null>(null);
  const [deleting, setDeleting] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: scheduledExportsKey(projectId) }),
      queryClient.invalidateQueries({ queryKey: exportRunsKey(item.id) }),
    ]);
  const act = async (what: 'run' | 'toggle' | 'delete', work: () => Promise<unknown>) => {
    setFailure(null);
    setBusy(what);
    try {
      await work();
      if (what === 'run') setOpen(true);
      await refresh();
      if (what === 'delete') setDeleting(false);
    } catch (error) {
      setFailure(message(error));
    } finally {
      setBusy(null);
    }
  };

  return (
    <Paper withBorder radius="md" p="sm" data-testid="scheduled-export">
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <div style={{ minWidth: 0, flex: '1 1 240px' }}>
          <Text fw={500} style={{ wordBreak: 'break-word' }}>
            {item.name}
          </Text>
          <Text size="xs" c="dimmed" ff="monospace" style={{ wordBreak: 'break-all' }}>
            {item.directory}/
          </Text>
          {item.filter ? (
            <Text size="xs" c="dimmed" ff="monospace" lineClamp={2} style={{ wordBreak: 'break-word' }}>
              {item.filter}
            </Text>
          ) : null}
        </div>
        <Group gap="sm" wrap="wrap" align="center">
          <Group gap={4} wrap="nowrap">
            <Badge variant="light">{item.target === 'span' ? 'Spans' : 'Traces'}</Badge>
            <Badge variant="outline" color="gray">
              {item.format}
            </Badge>
          </Group>
          <div>
            <Text size="sm">every {formatCount(item.interval_minutes, 'minute')}</Text>
            <Text size="xs" c="dimmed" title={formatDateTime(item.next_run_at)}>
              {item.enabled ? `next ${formatRelative(item.next_run_at)}` : 'paused'}
            </Text>
          </div>
          <Group gap="xs" wrap="nowrap">
            <Switch
              aria-label={`${item.enabled ? 'Pause' : 'Resume'} ${item.name}`}
              checked={item.enabled}
              disabled={!canEdit || busy !== null}
              onChange={(event) => {
                const enabled = event.currentTarget.checked;
                void act('toggle', () => updateScheduledExport(item.id, { enabled }));
              }}
            />
            <Tooltip label="Write what arrived since the last run now">
              <ActionIcon
                variant="default"
                aria-label={`Run ${item.name} now`}
                disabled={!canEdit || !item.enabled}
                loading={busy === 'run'}
                onClick={() => void act('run', () => runScheduledExport(item.id))}
              >
                <IconPlayerPlay size={16} />
              </ActionIcon>
            </Tooltip>
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`Delete ${item.name}`}
              disabled={!canEdit}
              onClick={() => setDeleting(true)}
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        </Group>
      </Group>
      {failure && !deleting ? (
        <Alert color="red" role="alert" py={6} mt="xs">
          {failure}
        </Alert>
      ) : null}
      <Button
        variant="subtle"
        size="compact-sm"
        mt="xs"
        leftSection={open ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
        onClick={() => setOpen(!open)}
      >
        {open ? 'Hide runs' : 'Runs'}
      </Button>
      {open ? <Runs exportId={item.id} /> : null}
      <ConfirmModal
        opened={deleting}
        title={`Delete ${item.name}?`}
        confirmLabel="Delete"
        loading={busy === 'delete'}
        error={failure}
        onClose={() => setDeleting(false)}
        onConfirm={() => void act('delete', () => deleteScheduledExport(item.id))}
      >
        <Text size="sm">The export and its run history go; the files it wrote stay in the export directory.</Text>
      </ConfirmModal>
    </Paper>
  );
}

export function ExportsTab() {
  const { projectId } = useProjectContext();
  const viewer = useCurrentViewer();
  const canEdit = viewer.kind === 'anonymous' || (viewer.kind === 'user' && viewer.role === 'admin');
  const status = useScheduledExportsStatus();
  const exports = useScheduledExports(projectId);
  const [creating, setCreating] = useState(false);
  const off = status.data?.enabled === false;

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap" align="flex-start">
        <Text size="sm" c="dimmed" maw={680}>
          Scheduled exports write the spans or traces that arrived since their last run into files in the server's export directory, as
          Parquet, CSV or JSONL. For a one-off file of what a list shows, use Export on the Traces or Spans tab.
        </Text>
        {creating || !canEdit || off ? null : (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
            New scheduled export
          </Button>
        )}
      </Group>
      {off ? (
        <Alert icon={<IconInfoCircle />} title="Scheduled exports are off" color="gray">
          The server has no export directory. Set <Code>SERVICE_EXPORT_DIR</Code> to the directory the files go to and restart it.
        </Alert>
      ) : null}
      {creating ? <NewExportForm projectId={projectId} onDone={() => setCreating(false)} /> : null}
      {exports.isError ? (
        <Alert color="red" title="Could not load the scheduled exports">
          {exports.error.message}
        </Alert>
      ) : exports.isPending ? (
        <Skeleton height={80} />
      ) : exports.data.length === 0 ? (
        off ? null : (
          <Alert icon={<IconInfoCircle />} title="No scheduled export yet">
            {canEdit ? 'Create one to write this project’s new spans or traces to files as they arrive.' : 'An admin can create one.'}
          </Alert>
        )
      ) : (
        <Stack gap="sm" aria-label="Scheduled exports">
          {exports.data.map((item) => (
            <ExportRow key={item.id} projectId={projectId} item={item} canEdit={canEdit && !off} />
          ))}
        </Stack>
      )}
    </Stack>
  );
}
