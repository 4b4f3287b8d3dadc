/**
 * `/projects/:projectId/alerts`: the project's alert rules with their state and last value, and a
 * form for a new one (docs/alerts.md).
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  NumberInput,
  Paper,
  Select,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { CreateForm } from '../../components/CreateForm';
import { IconInfoCircle, IconMail, IconPlus, IconTrash, IconWebhook } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { AlertRule } from '@sightline/client/browser';
import { useProjectContext } from '../projects/ProjectLayout';
import { formatRelative } from '../../lib/format';
import { METRICS, alertRulesKey, conditionText, createAlertRule, formatValue, useAlertRules } from './queries';

type Channel = AlertRule['channels'][number];
type Unit = 'minutes' | 'hours';

interface Form {
  name: string;
  metric: AlertRule['metric'];
  annotationName: string;
  annotationLabel: string;
  filter: string;
  comparator: AlertRule['comparator'];
  threshold: number | string;
  window: number | string;
  unit: Unit;
  /** Each with a key of its own while edited: channels have no id until saved. */
  channels: { key: number; channel: Channel }[];
}

let nextChannelKey = 1;

const EMPTY: Form = {
  name: '',
  metric: 'error_rate',
  annotationName: '',
  annotationLabel: '',
  filter: '',
  comparator: '>',
  threshold: 0.05,
  window: 10,
  unit: 'minutes',
  channels: [],
};

/** The state badge of a rule: firing, ok, paused, muted. */
export function StateBadge({ rule }: { rule: AlertRule }) {
  if (!rule.enabled) {
    return (
      <Badge color="gray" variant="light" data-testid="alert-state">
        paused
      </Badge>
    );
  }
  return (
    <Group gap={4} wrap="nowrap">
      <Badge color={rule.state === 'firing' ? 'red' : 'green'} variant="filled" data-testid="alert-state">
        {rule.state}
      </Badge>
      {rule.muted ? (
        <Badge color="gray" variant="outline">
          muted
        </Badge>
      ) : null}
    </Group>
  );
}

function ChannelEditor({ channel, onChange, onRemove }: { channel: Channel; onChange: (next: Channel) => void; onRemove: () => void }) {
  return (
    <Group align="flex-end" wrap="wrap" gap="xs">
      {channel.type === 'webhook' ? (
        <>
          <TextInput
            label="Webhook URL"
            placeholder="https://hooks.slack.com/services/…"
            value={channel.url}
            onChange={(event) => onChange({ ...channel, url: event.currentTarget.value })}
            style={{ flex: 1 }}
            miw={240}
          />
          <Select
            label="Body"
            aria-label="Webhook body"
            data={[
              { value: 'json', label: 'Plain JSON' },
              { value: 'slack', label: 'Slack' },
            ]}
            value={channel.format}
            onChange={(value) => onChange({ ...channel, format: value === 'slack' ? 'slack' : 'json' })}
            allowDeselect={false}
            w={130}
          />
        </>
      ) : (
        <TextInput
          label="Email recipients"
          description="Comma-separated"
          placeholder="oncall@example.com"
          value={channel.to.join(', ')}
          onChange={(event) => onChange({ type: 'email', to: event.currentTarget.value.split(',').map((item) => item.trim()) })}
          style={{ flex: 1 }}
          miw={240}
        />
      )}
      <ActionIcon variant="subtle" color="red" aria-label="Remove channel" onClick={onRemove} mb={4}>
        <IconTrash size={16} />
      </ActionIcon>
    </Group>
  );
}

function NewAlertForm({ projectId, onDone }: { projectId: string; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<Form>(EMPTY);
  const set = <K extends keyof Form>(key: K, value: Form[K]) => setForm((current) => ({ ...current, [key]: value }));
  const annotation = form.metric === 'annotation_score_mean' || form.metric === 'annotation_label_share';
  const unit = METRICS.find((metric) => metric.value === form.metric)?.unit;

  const save = async () => {
    await createAlertRule(projectId, {
      name: form.name,
      metric: form.metric,
      ...(annotation ? { annotation_name: form.annotationName } : {}),
      ...(form.metric === 'annotation_label_share' ? { annotation_label: form.annotationLabel } : {}),
      filter: form.filter,
      comparator: form.comparator,
      threshold: Number(form.threshold),
      window_seconds: Math.round(Number(form.window) * (form.unit === 'hours' ? 3600 : 60)),
      channels: form.channels.map(({ channel }) =>
        channel.type === 'email' ? { type: 'email', to: channel.to.filter((address) => address !== '') } : channel,
      ),
    });
    await queryClient.invalidateQueries({ queryKey: alertRulesKey(projectId) });
    onDone();
  };

  return (
    <CreateForm
      title="New alert rule"
      submitLabel="Create rule"
      canSubmit={form.name.trim() !== '' && form.threshold !== '' && form.window !== ''}
      onSubmit={save}
      onCancel={onDone}
    >
      <TextInput label="Name" required value={form.name} onChange={(event) => set('name', event.currentTarget.value)} maxLength={128} />
      <Group grow align="flex-start" wrap="wrap">
        <Select
          label="Metric"
          data={METRICS.map(({ value, label }) => ({ value, label }))}
          value={form.metric}
          onChange={(value) => value && set('metric', value as Form['metric'])}
          allowDeselect={false}
          description={unit}
          miw={200}
        />
        <Select
          label="Fires when"
          aria-label="Comparator"
          data={[
            { value: '>', label: 'above (>)' },
            { value: '>=', label: 'at or above (≥)' },
            { value: '<', label: 'below (<)' },
            { value: '<=', label: 'at or below (≤)' },
          ]}
          value={form.comparator}
          onChange={(value) => value && set('comparator', value as Form['comparator'])}
          allowDeselect={false}
          miw={150}
        />
        <NumberInput
          label="Threshold"
          required
          decimalScale={6}
          value={form.threshold}
          onChange={(value) => set('threshold', value)}
          miw={120}
        />
        <Group gap="xs" align="flex-end" wrap="nowrap" miw={220}>
          <NumberInput label="Over the last" min={1} value={form.window} onChange={(value) => set('window', value)} w={110} />
          <Select
            aria-label="Window unit"
            data={[
              { value: 'minutes', label: 'minutes' },
              { value: 'hours', label: 'hours' },
            ]}
            value={form.unit}
            onChange={(value) => value && set('unit', value as Unit)}
            allowDeselect={false}
            w={110}
          />
        </Group>
      </Group>
      {annotation ? (
        <Group grow align="flex-start" wrap="wrap">
          <TextInput
            label="Annotation name"
            description="e.g. an online evaluator's name"
            required
            value={form.annotationName}
            onChange={(event) => set('annotationName', event.currentTarget.value)}
          />
          {form.metric === 'annotation_label_share' ? (
            <TextInput
              label="Label"
              required
              value={form.annotationLabel}
              onChange={(event) => set('annotationLabel', event.currentTarget.value)}
            />
          ) : null}
        </Group>
      ) : null}
      <TextInput
        label="Filter"
        description="A span condition, e.g. span_kind == 'LLM'; empty for every span of the project."
        placeholder="span_kind == 'LLM'"
        value={form.filter}
        onChange={(event) => set('filter', event.currentTarget.value)}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
      />
      <div>
        <Text size="sm" fw={500}>
          Notify
        </Text>
        <Text size="xs" c="dimmed" mb={4}>
          Without a channel the rule only records its history.
        </Text>
        <Stack gap="xs">
          {form.channels.map(({ key, channel }) => (
            <ChannelEditor
              key={key}
              channel={channel}
              onChange={(next) =>
                set(
                  'channels',
                  form.channels.map((item) => (item.key === key ? { key, channel: next } : item)),
                )
              }
              onRemove={() =>
                set(
                  'channels',
                  form.channels.filter((item) => item.key !== key),
                )
              }
            />
          ))}
        </Stack>
        <Group gap="xs" mt="xs">
          <Button
            size="xs"
            variant="default"
            leftSection={<IconWebhook size={14} />}
            onClick={() =>
              set('channels', [...form.channels, { key: nextChannelKey++, channel: { type: 'webhook', url: '', format: 'json' } }])
            }
          >
            Add webhook
          </Button>
          <Button
            size="xs"
            variant="default"
            leftSection={<IconMail size={14} />}
            onClick={() => set('channels', [...form.channels, { key: nextChannelKey++, channel: { type: 'email', to: [] } }])}
          >
            Add email
          </Button>
        </Group>
      </div>
    </CreateForm>
  );
}

export function AlertsTab() {
  const { projectId } = useProjectContext();
  const rules = useAlertRules(projectId);
  const [creating, setCreating] = useState(false);

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Text size="sm" c="dimmed" maw={640}>
          Alert rules watch a metric of this project's spans over a moving window and notify by webhook or email when it crosses its
          threshold, and again when it comes back.
        </Text>
        {creating ? null : (
          <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
            New alert rule
          </Button>
        )}
      </Group>
      {creating ? <NewAlertForm projectId={projectId} onDone={() => setCreating(false)} /> : null}
      {rules.isError ? (
        <Alert color="red" title="Could not load the alert rules">
          {rules.error.message}
        </Alert>
      ) : rules.isPending ? (
        <Skeleton height={80} />
      ) : rules.data.length === 0 ? (
        <Alert icon={<IconInfoCircle />} title="No alert rule yet">
          Create one to be told when this project's error rate, latency, cost or evaluation scores cross a line.
        </Alert>
      ) : (
        <Paper withBorder radius="md" style={{ overflowX: 'auto' }}>
          <Table aria-label="Alert rules" miw={560}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Rule</Table.Th>
                <Table.Th>Condition</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Last value</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rules.data.map((rule) => (
                <Table.Tr key={rule.id} data-testid="alert-rule">
                  <Table.Td>
                    <Anchor
                      component={Link}
                      to={`/projects/${encodeURIComponent(projectId)}/alerts/${encodeURIComponent(rule.id)}`}
                      fw={500}
                    >
                      {rule.name}
                    </Anchor>
                    {rule.filter ? (
                      <Text size="xs" c="dimmed" ff="monospace" lineClamp={1} maw={280}>
                        {rule.filter}
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{conditionText(rule)}</Text>
                  </Table.Td>
                  <Table.Td>
                    <StateBadge rule={rule} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{formatValue(rule.last_value)}</Text>
                    <Text size="xs" c="dimmed">
                      {rule.last_checked_at ? formatRelative(rule.last_checked_at) : 'not checked yet'}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Paper>
      )}
    </Stack>
  );
}
