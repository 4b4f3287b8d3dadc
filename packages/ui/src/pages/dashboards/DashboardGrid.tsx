/**
 * A dashboard's widgets over the page's range (docs/dashboards.md): time series, bar by group,
 * single number or table, each from POST /v1/dashboards/query; with `onChange`, an "Add widget"
 * form and a delete button on each widget.
 */
import '@mantine/charts/styles.css';
import { useState } from 'react';
import { BarChart, LineChart } from '@mantine/charts';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Group,
  Loader,
  Modal,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import type { DashboardQueryResult, DashboardWidget } from '@sightline/client/browser';
import { formatCompact, formatCost, formatDuration, formatPercent } from '../../lib/format';
import type { RangeOption } from '../../lib/timeRange';
import { useWidgetData } from './dashboardQueries';

const METRICS: { value: DashboardWidget['metric']; label: string }[] = [
  { value: 'span_count', label: 'Span count' },
  { value: 'error_rate', label: 'Error rate' },
  { value: 'latency_p50', label: 'Latency p50' },
  { value: 'latency_p95', label: 'Latency p95' },
  { value: 'latency_p99', label: 'Latency p99' },
  { value: 'tokens', label: 'Tokens' },
  { value: 'cost', label: 'Cost' },
  { value: 'annotation_score_mean', label: 'Annotation mean score' },
  { value: 'annotation_label_share', label: 'Annotation label share' },
];
const TYPES: { value: DashboardWidget['type']; label: string }[] = [
  { value: 'timeseries', label: 'Time series' },
  { value: 'bar', label: 'Bar by group' },
  { value: 'number', label: 'Single number' },
  { value: 'table', label: 'Table' },
];
const GROUPS: { value: string; label: string }[] = [
  { value: '', label: 'No grouping' },
  { value: 'span_kind', label: 'Span kind' },
  { value: 'name', label: 'Span name' },
  { value: 'model', label: 'Model' },
  { value: 'status', label: 'Status' },
  { value: 'user', label: 'User' },
  { value: 'session', label: 'Session' },
  { value: 'attribute', label: 'Attribute' },
  { value: 'annotation_label', label: 'Annotation label' },
];
const COLORS = ['indigo.5', 'teal.5', 'orange.6', 'grape.5', 'red.6', 'cyan.6', 'lime.6', 'pink.5', 'yellow.6', 'blue.7'];
const CHART_HEIGHT = 220;

/** A metric's value for people. */
export function formatMetric(metric: DashboardWidget['metric'], value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (metric.startsWith('latency')) return formatDuration(value);
  if (metric === 'error_rate' || metric === 'annotation_label_share') return formatPercent(value);
  if (metric === 'cost') return formatCost(value);
  if (metric === 'annotation_score_mean') return value.toFixed(2);
  return formatCompact(value);
}

const groupName = (group: string | null, widget: DashboardWidget) =>
  group ?? (widget.group_by ? '(none)' : (METRICS.find((metric) => metric.value === widget.metric)?.label ?? widget.metric));

function pointLabel(time: string, bucket: DashboardQueryResult['bucket']): string {
  const date = new Date(time);
  if (bucket === 'day') return date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  const clock = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return bucket === 'hour' ? `${date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${clock}` : clock;
}

function WidgetBody({ widget, data }: { widget: DashboardWidget; data: DashboardQueryResult }) {
  const format = (value: number | null | undefined) => formatMetric(widget.metric, value);
  const names = data.series.map((series) => groupName(series.group, widget));
  if (data.series.length === 0 && widget.type !== 'number') {
    return (
      <Text c="dimmed" size="sm">
        No data in this range.
      </Text>
    );
  }
  if (widget.type === 'number') {
    return (
      <Text fz={32} fw={700} data-testid="widget-number">
        {format(
          data.series[0]?.total ?? (widget.metric === 'span_count' || widget.metric === 'tokens' || widget.metric === 'cost' ? 0 : null),
        )}
      </Text>
    );
  }
  if (widget.type === 'timeseries') {
    const rows = (data.series[0]?.points ?? []).map((point, index) => {
      const row: Record<string, string | number | null> = { time: pointLabel(point.time, data.bucket) };
      data.series.forEach((series, seriesIndex) => {
        row[names[seriesIndex]!] = series.points[index]?.value ?? null;
      });
      return row;
    });
    return (
      <LineChart
        h={CHART_HEIGHT}
        data={rows}
        dataKey="time"
        series={names.map((name, index) => ({ name, color: COLORS[index % COLORS.length]! }))}
        curveType="monotone"
        connectNulls
        withLegend={data.series.length > 1}
        valueFormatter={(value) => format(value)}
        yAxisProps={{ width: 70 }}
        withDots={false}
        tickLine="none"
      />
    );
  }
  const table = (
    <Table fz="sm" verticalSpacing={4} aria-label={widget.title}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{GROUPS.find((group) => group.value === (widget.group_by ?? ''))?.label ?? 'Group'}</Table.Th>
          <Table.Th ta="right">{METRICS.find((metric) => metric.value === widget.metric)?.label}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {data.series.map((series, index) => (
          <Table.Tr key={series.group ?? '\u0000'}>
            <Table.Td style={{ wordBreak: 'break-all' }}>{names[index]}</Table.Td>
            <Table.Td ta="right">{format(series.total)}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
  if (widget.type === 'table') return table;
  const bars = data.series.map((series, index) => ({ group: names[index]!, value: series.total ?? 0 }));
  return (
    <>
      <BarChart
        h={Math.max(120, bars.length * 36 + 40)}
        data={bars}
        dataKey="group"
        orientation="vertical"
        series={[{ name: 'value', label: METRICS.find((metric) => metric.value === widget.metric)?.label ?? '', color: 'indigo.5' }]}
        valueFormatter={(value) => format(value)}
        yAxisProps={{ width: 130 }}
        tickLine="none"
      />
      {table}
    </>
  );
}

function WidgetCard({
  widget,
  projects,
  option,
  refetchInterval,
  onDelete,
}: {
  widget: DashboardWidget;
  projects: string[];
  option: RangeOption;
  refetchInterval: number | false;
  onDelete?: (() => void) | undefined;
}) {
  const data = useWidgetData(widget, projects, option, refetchInterval);
  return (
    <Paper withBorder p="md" radius="md" data-testid={`widget-${widget.id}`} miw={0}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <div style={{ minWidth: 0 }}>
            <Title order={4} size="h5">
              {widget.title}
            </Title>
            {widget.filter ? (
              <Text size="xs" c="dimmed" truncate="end">
                {widget.filter}
              </Text>
            ) : null}
          </div>
          <Group gap={4} wrap="nowrap">
            {data.data && data.data.source !== 'rollups' ? (
              <Tooltip label="Read from the stored rows of the range, not the per-minute rollups">
                <Badge size="xs" variant="light" color="gray">
                  {data.data.source}
                </Badge>
              </Tooltip>
            ) : null}
            {onDelete ? (
              <ActionIcon variant="subtle" color="gray" aria-label={`Delete widget ${widget.title}`} onClick={onDelete}>
                <IconTrash size={16} />
              </ActionIcon>
            ) : null}
          </Group>
        </Group>
        {data.error ? (
          <Alert color="red" p="xs">
            {data.error.message}
          </Alert>
        ) : !data.data ? (
          <Loader size="sm" aria-label={`Loading ${widget.title}`} />
        ) : (
          <WidgetBody widget={widget} data={data.data} />
        )}
      </Stack>
    </Paper>
  );
}

function AddWidgetForm({ onAdd, onClose }: { onAdd: (widget: DashboardWidget) => Promise<void>; onClose: () => void }) {
  const [title, setTitle] = useState('');
  const [metric, setMetric] = useState<DashboardWidget['metric']>('span_count');
  const [type, setType] = useState<DashboardWidget['type']>('timeseries');
  const [groupBy, setGroupBy] = useState('');
  const [attribute, setAttribute] = useState('');
  const [annotationName, setAnnotationName] = useState('');
  const [annotationLabel, setAnnotationLabel] = useState('');
  const [filter, setFilter] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const annotation = metric === 'annotation_score_mean' || metric === 'annotation_label_share';

  const submit = async () => {
    setSaving(true);
    setError(null);
    try {
      await onAdd({
        id: `w${Date.now().toString(36)}`,
        title: title.trim() || (METRICS.find((item) => item.value === metric)?.label ?? metric),
        type,
        metric,
        ...(groupBy ? { group_by: groupBy as NonNullable<DashboardWidget['group_by']> } : {}),
        ...(groupBy === 'attribute' ? { attribute } : {}),
        ...(annotation ? { annotation_name: annotationName } : {}),
        ...(metric === 'annotation_label_share' && annotationLabel ? { annotation_label: annotationLabel } : {}),
        ...(filter.trim() ? { filter: filter.trim() } : {}),
      });
      onClose();
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack gap="sm">
      <TextInput label="Title" placeholder="e.g. Slow retrievals" value={title} onChange={(event) => setTitle(event.currentTarget.value)} />
      <Select
        label="Metric"
        data={METRICS}
        value={metric}
        onChange={(value) => value && setMetric(value as DashboardWidget['metric'])}
        allowDeselect={false}
      />
      {annotation ? (
        <TextInput label="Annotation name" value={annotationName} onChange={(event) => setAnnotationName(event.currentTarget.value)} />
      ) : null}
      {metric === 'annotation_label_share' ? (
        <TextInput
          label="Label"
          description="Or group by annotation label"
          value={annotationLabel}
          onChange={(event) => setAnnotationLabel(event.currentTarget.value)}
        />
      ) : null}
      <Select
        label="Chart"
        data={TYPES}
        value={type}
        onChange={(value) => value && setType(value as DashboardWidget['type'])}
        allowDeselect={false}
      />
      <Select label="Group by" data={GROUPS} value={groupBy} onChange={(value) => setGroupBy(value ?? '')} allowDeselect={false} />
      {groupBy === 'attribute' ? (
        <TextInput
          label="Attribute key"
          placeholder="metadata.tenant"
          value={attribute}
          onChange={(event) => setAttribute(event.currentTarget.value)}
        />
      ) : null}
      <TextInput
        label="Filter"
        description="A span condition, e.g. span_kind == 'LLM' (reads the spans: 7 days at most)"
        value={filter}
        onChange={(event) => setFilter(event.currentTarget.value)}
      />
      {error ? <Alert color="red">{error}</Alert> : null}
      <Group justify="flex-end">
        <Button variant="default" onClick={onClose}>
          Cancel
        </Button>
        <Button onClick={() => void submit()} loading={saving}>
          Add widget
        </Button>
      </Group>
    </Stack>
  );
}

export function DashboardGrid({
  widgets,
  projects,
  option,
  refetchInterval,
  onChange,
}: {
  widgets: DashboardWidget[];
  /** The projects a widget without its own `projects` covers. */
  projects: string[];
  option: RangeOption;
  refetchInterval: number | false;
  /** Saves new widgets; rejects with the server's sentence. Without it the dashboard is read-only. */
  onChange?: ((widgets: DashboardWidget[]) => Promise<void>) | undefined;
}) {
  const [adding, setAdding] = useState(false);
  return (
    <Stack gap="md" data-testid="dashboard">
      {onChange ? (
        <Group justify="flex-end">
          <Button size="xs" variant="light" leftSection={<IconPlus size={14} />} onClick={() => setAdding(true)}>
            Add widget
          </Button>
        </Group>
      ) : null}
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        {widgets.map((widget) => (
          <WidgetCard
            key={widget.id ?? widget.title}
            widget={widget}
            projects={widget.projects ?? projects}
            option={option}
            refetchInterval={refetchInterval}
            onDelete={onChange ? () => void onChange(widgets.filter((other) => other !== widget)) : undefined}
          />
        ))}
      </SimpleGrid>
      <Modal opened={adding} onClose={() => setAdding(false)} title="Add widget">
        {adding && onChange ? <AddWidgetForm onAdd={(widget) => onChange([...widgets, widget])} onClose={() => setAdding(false)} /> : null}
      </Modal>
    </Stack>
  );
}
