/** A project's spans with server-side filters (name, kind, status, attribute, annotation, roots only), virtualised. */
import { AnnotationFilterInput, annotationFiltersOf } from '../../components/AnnotationFilterInput';
import { useCallback, useMemo, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { Alert, Button, Checkbox, Chip, Group, MultiSelect, Paper, Switch, TagsInput, Text, Tooltip } from '@mantine/core';
import { IconFilterOff } from '@tabler/icons-react';
import { useAnnotationConfigs } from './annotationQueries';
import { spanExportUrl, useSpans, type SpanFilters } from './traceQueries';
import { ExportMenu } from '../exports/ExportMenu';
import type { Span } from '@sightline/client/browser';
import { SPAN_KINDS } from '../../lib/spanKinds';
import { KindBadge, StatusIcon } from '../../components/Badges';
import { CopyableId } from '../../components/Copy';
import { VirtualTable, type Column, type SortState } from '../../components/VirtualTable';
import { formatCount, displayValue, formatCompact, formatDateTime, formatDuration, formatInt, formatTime, shortId } from '../../lib/format';
import { useLiveRefresh, useTimeRange } from '../../lib/timeRange';
import { useUpdateSearch } from '../../lib/search';
import { useProjectContext } from './ProjectLayout';
import { explorerSearch } from './ProjectsPage';
import { AddToDatasetButton } from './AddToDataset';
import { AddToQueueButton } from '../queues/AddToQueue';
import { INPUT_VALUE, OUTPUT_VALUE } from '../../lib/attributes';
import { highlightWords, Preview, QueryBar, useTextFilters } from '../../components/QueryBar';
import { ColumnChooser, useChosenColumns } from '../../components/ColumnChooser';

const preview = (value: unknown) => {
  const text = displayValue(value).replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

export function SpansTab() {
  const { projectId } = useProjectContext();
  const { option } = useTimeRange();
  const { interval } = useLiveRefresh();
  const [params] = useSearchParams();
  const update = useUpdateSearch();
  const navigate = useNavigate();
  const configs = useAnnotationConfigs();
  const text = useTextFilters();
  const words = useMemo(() => highlightWords(text.search), [text.search]);

  const filters: SpanFilters = useMemo(
    () => ({
      name: params.getAll('name'),
      span_kind: params.getAll('kind'),
      status_code: params.getAll('status'),
      attribute: params.getAll('attr'),
      rootsOnly: params.get('roots') === '1',
      ...annotationFiltersOf(params.getAll('ann')),
      search: params.get('q') ?? '',
      filter: params.get('filter') ?? '',
    }),
    [params],
  );
  const sortKey = params.get('sort') ?? 'start_time';
  const order = params.get('order') === 'asc' ? 'asc' : 'desc';
  // Only the start time is sorted by the server; other columns sort the spans loaded so far.
  const spans = useSpans(projectId, option, filters, sortKey === 'start_time' ? order : 'desc', interval);
  const loaded = useMemo(() => spans.data?.pages.flatMap((page) => page.data) ?? [], [spans.data]);
  const rows = useMemo(() => {
    if (sortKey === 'start_time') return loaded;
    const pick = (span: Span): number | string =>
      sortKey === 'name' ? span.name.toLowerCase() : sortKey === 'tokens' ? (span.token_count_total ?? -1) : span.latency_ms;
    const sorted = [...loaded].sort((a, b) => (pick(a) < pick(b) ? -1 : pick(a) > pick(b) ? 1 : 0));
    return order === 'desc' ? sorted.reverse() : sorted;
  }, [loaded, sortKey, order]);
  const search = explorerSearch(params);
  // Spans picked for "Add to dataset" or "Add to queue", by id, kept across pages and re-sorts.
  const [selected, setSelected] = useState<Map<string, Span>>(new Map());
  const toggle = (span: Span, on: boolean) =>
    setSelected((current) => {
      const next = new Map(current);
      if (on) next.set(span.id, span);
      else next.delete(span.id);
      return next;
    });

  const setList = (key: string, values: string[]) =>
    update((next) => {
      next.delete(key);
      for (const value of values) next.append(key, value);
    });
  const hasFilters =
    filters.name.length +
      filters.span_kind.length +
      filters.status_code.length +
      filters.attribute.length +
      filters.annotation.length +
      filters.annotation_score.length >
      0 || filters.rootsOnly;

  const open = useCallback(
    (span: Span) =>
      navigate(
        `/projects/${encodeURIComponent(projectId)}/traces/${span.context.trace_id}${search}${search ? '&' : '?'}span=${span.context.span_id}`,
      ),
    [navigate, projectId, search],
  );

  const columns: Column<Span>[] = [
    {
      key: 'select',
      title: '',
      width: '36px',
      render: (span) => (
        // The row opens the trace on click: the checkbox keeps its clicks to itself.
        <Checkbox
          size="xs"
          aria-label={`Select span ${span.name}`}
          checked={selected.has(span.id)}
          onClick={(event) => event.stopPropagation()}
          onChange={(event) => toggle(span, event.currentTarget.checked)}
        />
      ),
    },
    { key: 'status', title: '', width: '36px', render: (span) => <StatusIcon status={span.status_code} message={span.status_message} /> },
    { key: 'kind', title: 'Kind', width: '110px', render: (span) => <KindBadge kind={span.span_kind} size="xs" /> },
    {
      key: 'name',
      title: 'Name',
      width: 'minmax(200px, 2fr)',
      sortable: true,
      render: (span) => (
        <Text size="sm" fw={500} truncate>
          {span.name}
        </Text>
      ),
    },
    {
      key: 'input',
      title: 'Input',
      width: 'minmax(160px, 2fr)',
      render: (span) => <Preview text={preview(span.attributes[INPUT_VALUE])} words={words} />,
    },
    {
      key: 'output',
      title: 'Output',
      width: 'minmax(160px, 2fr)',
      render: (span) => <Preview text={preview(span.attributes[OUTPUT_VALUE])} words={words} />,
    },
    {
      key: 'start_time',
      title: 'Start time',
      width: '200px',
      sortable: true,
      render: (span) => (
        <Text size="sm" title={formatDateTime(span.start_time)}>
          {formatTime(span.start_time)}
        </Text>
      ),
    },
    {
      key: 'latency_ms',
      title: 'Latency',
      width: '100px',
      sortable: true,
      align: 'right',
      render: (span) => formatDuration(span.latency_ms),
    },
    {
      key: 'tokens',
      title: 'Tokens',
      width: '90px',
      sortable: true,
      align: 'right',
      render: (span) =>
        span.token_count_total !== null ? (
          <Tooltip label={`${formatInt(span.token_count_prompt)} prompt · ${formatInt(span.token_count_completion)} completion`}>
            <span>{formatCompact(span.token_count_total)}</span>
          </Tooltip>
        ) : (
          <Text span c="dimmed" size="sm">
            —
          </Text>
        ),
    },
    {
      key: 'trace_id',
      title: 'Trace id',
      width: '150px',
      render: (span) => <CopyableId value={span.context.trace_id} display={shortId(span.context.trace_id, 10)} label="Copy trace id" />,
    },
  ];

  const chosen = useChosenColumns('spans', columns);

  return (
    <>
      <QueryBar
        projectId={projectId}
        page="spans"
        annotationNames={(configs.data ?? []).map((config) => config.name)}
        error={spans.error}
      />
      <Paper withBorder p="sm" radius="md" role="search" aria-label="Span filters">
        <Group gap="sm" align="flex-end" wrap="wrap">
          <TagsInput
            label="Name"
            placeholder="Exact span name, Enter"
            value={filters.name}
            onChange={(values) => setList('name', values)}
            data={[...new Set(loaded.map((span) => span.name))].slice(0, 50)}
            w={240}
            clearable
          />
          <MultiSelect
            label="Span kind"
            placeholder="Any kind"
            data={SPAN_KINDS}
            value={filters.span_kind}
            onChange={(values) => setList('kind', values)}
            w={220}
            clearable
          />
          <TagsInput
            label="Attribute"
            placeholder="key:value, Enter"
            value={filters.attribute}
            onChange={(values) => setList('attr', values)}
            w={260}
            clearable
            description={undefined}
          />
          <AnnotationFilterInput
            value={params.getAll('ann')}
            onChange={(values) => setList('ann', values)}
            names={(configs.data ?? []).map((config) => config.name)}
          />
          <div>
            <Text size="sm" fw={500} mb={4}>
              Status
            </Text>
            <Chip.Group multiple value={filters.status_code} onChange={(values) => setList('status', values)}>
              <Group gap={6}>
                <Chip value="OK" size="sm" color="teal">
                  OK
                </Chip>
                <Chip value="ERROR" size="sm" color="red">
                  Error
                </Chip>
                <Chip value="UNSET" size="sm" color="gray">
                  Unset
                </Chip>
              </Group>
            </Chip.Group>
          </div>
          <Switch
            label="Root spans only (one per trace)"
            checked={filters.rootsOnly}
            onChange={(event) => {
              const checked = event.currentTarget.checked;
              update((next) => (checked ? next.set('roots', '1') : next.delete('roots')));
            }}
            mb={6}
          />
          {hasFilters ? (
            <Button
              variant="subtle"
              color="gray"
              leftSection={<IconFilterOff size={16} />}
              onClick={() =>
                update((next) => {
                  for (const key of ['name', 'kind', 'status', 'attr', 'ann', 'roots']) next.delete(key);
                })
              }
              mb={2}
            >
              Clear filters
            </Button>
          ) : null}
        </Group>
      </Paper>
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" c="dimmed">
          {/* The keys' hint only beside rows: with none, the table says why. */}
          {loaded.length > 0
            ? `${spans.hasNextPage ? `${formatInt(loaded.length)}+ spans` : formatCount(loaded.length, 'span')}${
                sortKey !== 'start_time' && spans.hasNextPage ? ' · sorted among the spans loaded so far' : ''
              } · ↑/↓ to move, Enter to open the trace`
            : ' '}
        </Text>
        <Group gap="xs" wrap="nowrap">
          <ColumnChooser table="spans" columns={columns} chosen={chosen} />
          <ExportMenu what="spans" href={(format) => spanExportUrl(projectId, option, filters, format)} />
        </Group>
      </Group>
      {selected.size > 0 ? (
        <Group gap="xs">
          <Text size="sm">{formatInt(selected.size)} selected</Text>
          <AddToDatasetButton spans={[...selected.values()]} onAdded={() => setSelected(new Map())} />
          <AddToQueueButton targets={{ projectId, spanIds: [...selected.values()].map((span) => span.context.span_id) }} />
          <Button size="xs" variant="subtle" color="gray" onClick={() => setSelected(new Map())}>
            Clear selection
          </Button>
        </Group>
      ) : null}
      {spans.error && !/search text|span query|condition/.test(spans.error.message) ? (
        <Alert color="red">{spans.error.message}</Alert>
      ) : null}
      <VirtualTable
        label="Spans"
        rows={rows}
        columns={chosen.visible}
        rowKey={(span) => span.id}
        onOpen={open}
        sort={{ key: sortKey, direction: order }}
        onSortChange={(sort: SortState) =>
          update((next) => {
            next.set('sort', sort.key);
            next.set('order', sort.direction);
          })
        }
        hasMore={spans.hasNextPage}
        loadingMore={spans.isFetchingNextPage}
        onLoadMore={() => void spans.fetchNextPage()}
        loading={spans.isPending}
        stale={spans.isPlaceholderData}
        empty={<Text c="dimmed">No spans match. Widen the time range or clear filters.</Text>}
        height="calc(100vh - 360px)"
      />
    </>
  );
}
