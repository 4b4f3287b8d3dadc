/** A project's traces, newest first (or by latency), virtualised with infinite scroll. */
import { useCallback, useMemo, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { Alert, Anchor, Button, Checkbox, Group, Text, Tooltip } from '@mantine/core';
import { IconFilter } from '@tabler/icons-react';
import { useAnnotationConfigs, useTraceRowAnnotations, type RowAnnotation } from './annotationQueries';
import { traceExportUrl, useTraces, type TraceSortKey } from './traceQueries';
import { ExportMenu } from '../exports/ExportMenu';
import { AnnotationFilterInput, annotationFiltersOf } from '../../components/AnnotationFilterInput';
import type { Trace } from '@sightline/client/browser';
import { KindBadge, StatusIcon } from '../../components/Badges';
import { CopyableId } from '../../components/Copy';
import { VirtualTable, type Column, type SortState } from '../../components/VirtualTable';
import { formatCount, formatCompact, formatDateTime, formatDuration, formatCost, formatInt, formatTime, shortId } from '../../lib/format';
import { useLiveRefresh, useTimeRange } from '../../lib/timeRange';
import { useUpdateSearch } from '../../lib/search';
import { useProjectContext } from './ProjectLayout';
import { explorerSearch } from './ProjectsPage';
import { AddToQueueButton } from '../queues/AddToQueue';
import { highlightWords, Preview, QueryBar, UserLookup, useTextFilters } from '../../components/QueryBar';
import { ColumnChooser, useChosenColumns } from '../../components/ColumnChooser';

export function traceStatus(trace: Pick<Trace, 'error_count' | 'root_span'>) {
  return trace.error_count > 0 ? 'ERROR' : (trace.root_span?.status_code ?? 'UNSET');
}

/** A trace's newest label and score of one annotation name, or a dash. */
function AnnotationCell({ value }: { value: RowAnnotation | undefined }) {
  if (!value)
    return (
      <Text span c="dimmed" size="sm">
        —
      </Text>
    );
  const score = value.score === null ? null : Number(value.score.toFixed(2));
  return (
    <Text size="sm" truncate title={[value.label, score].filter((part) => part !== null).join(' · ')}>
      {value.label ?? ''}
      {value.label !== null && score !== null ? ' · ' : ''}
      {score !== null ? score : ''}
    </Text>
  );
}

export function TracesTab() {
  const { projectId } = useProjectContext();
  const { option } = useTimeRange();
  const { interval } = useLiveRefresh();
  const [params] = useSearchParams();
  const update = useUpdateSearch();
  const navigate = useNavigate();
  const sortKey: TraceSortKey = params.get('sort') === 'latency_ms' ? 'latency_ms' : 'start_time';
  const order = params.get('order') === 'asc' ? 'asc' : 'desc';
  const annotationTags = params.getAll('ann');
  // React Query hashes its key by value, so a fresh object each render refetches nothing.
  const annotationFilters = annotationFiltersOf(annotationTags);
  const configs = useAnnotationConfigs();
  const text = useTextFilters();
  const words = useMemo(() => highlightWords(text.search), [text.search]);
  const userId = params.get('user') ?? '';
  const traces = useTraces(projectId, option, sortKey, order, interval, annotationFilters, text, userId);
  const rows = useMemo(() => traces.data?.pages.flatMap((page) => page.data) ?? [], [traces.data]);
  const rowAnnotations = useTraceRowAnnotations(projectId, rows);
  // A column per annotation name seen on the loaded traces, in name order (at most eight).
  const annotationNames = useMemo(() => {
    const names = new Set<string>();
    for (const found of rowAnnotations.data?.values() ?? []) for (const name of found.keys()) names.add(name);
    return [...names].sort().slice(0, 8);
  }, [rowAnnotations.data]);
  const search = explorerSearch(params);
  // Traces picked for "Add to queue", by trace id, kept across pages and re-sorts.
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const toggle = (traceId: string, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(traceId);
      else next.delete(traceId);
      return next;
    });

  const open = useCallback(
    (trace: Trace) => navigate(`/projects/${encodeURIComponent(projectId)}/traces/${trace.trace_id}${search}`),
    [navigate, projectId, search],
  );

  const setSort = (sort: SortState) =>
    update((next) => {
      next.set('sort', sort.key);
      next.set('order', sort.direction);
    });

  const columns: Column<Trace>[] = [
    {
      key: 'select',
      title: '',
      width: '36px',
      render: (trace) => (
        // The row opens the trace on click: the checkbox keeps its clicks to itself.
        <Checkbox
          size="xs"
          aria-label={`Select trace ${trace.trace_id}`}
          checked={selected.has(trace.trace_id)}
          onClick={(event) => event.stopPropagation()}
          onChange={(event) => toggle(trace.trace_id, event.currentTarget.checked)}
        />
      ),
    },
    { key: 'status', title: '', width: '36px', render: (trace) => <StatusIcon status={traceStatus(trace)} /> },
    {
      key: 'name',
      title: 'Root span',
      width: 'minmax(160px, 1.5fr)',
      render: (trace) => (
        <Group gap={8} wrap="nowrap">
          {trace.root_span ? <KindBadge kind={trace.root_span.span_kind} size="xs" /> : null}
          <Text size="sm" fw={500} truncate>
            {trace.root_span?.name ?? (
              <Text span c="dimmed">
                (root span not received)
              </Text>
            )}
          </Text>
        </Group>
      ),
    },
    {
      key: 'input',
      title: 'Input',
      width: 'minmax(160px, 2fr)',
      render: (trace) => <Preview text={trace.input} words={words} />,
    },
    {
      key: 'output',
      title: 'Output',
      width: 'minmax(160px, 2fr)',
      render: (trace) => <Preview text={trace.output} words={words} />,
    },
    {
      key: 'start_time',
      title: 'Start time',
      width: '170px',
      sortable: true,
      render: (trace) => (
        <Text size="sm" title={formatDateTime(trace.start_time)}>
          {formatTime(trace.start_time)}
        </Text>
      ),
    },
    {
      key: 'latency_ms',
      title: 'Latency',
      width: '95px',
      sortable: true,
      align: 'right',
      render: (trace) => formatDuration(trace.latency_ms),
    },
    {
      key: 'spans',
      title: 'Spans',
      width: '90px',
      align: 'right',
      render: (trace) => (
        <Text size="sm" span>
          {formatInt(trace.span_count)}
          {trace.error_count > 0 ? (
            <Text span c="red" size="xs" ml={4}>
              ({trace.error_count} err)
            </Text>
          ) : null}
        </Text>
      ),
    },
    {
      key: 'tokens',
      title: 'Tokens',
      width: '100px',
      align: 'right',
      render: (trace) =>
        trace.token_count_total > 0 ? (
          <Tooltip label={`${formatInt(trace.token_count_prompt)} prompt · ${formatInt(trace.token_count_completion)} completion`}>
            <span>{formatCompact(trace.token_count_total)}</span>
          </Tooltip>
        ) : (
          <Text span c="dimmed" size="sm">
            —
          </Text>
        ),
    },
    {
      key: 'cost',
      title: 'Cost',
      // Wide enough for four significant digits of a cent's fraction ($0.0005253) with the cell's padding.
      width: '120px',
      align: 'right',
      render: (trace) =>
        trace.cost_total !== null ? (
          <Tooltip label={`${formatCost(trace.cost_prompt)} prompt · ${formatCost(trace.cost_completion)} completion`}>
            <span data-testid="trace-cost">{formatCost(trace.cost_total)}</span>
          </Tooltip>
        ) : (
          <Text span c="dimmed" size="sm">
            —
          </Text>
        ),
    },
    ...annotationNames.map(
      (name): Column<Trace> => ({
        key: `annotation:${name}`,
        title: name,
        width: '120px',
        render: (trace) => <AnnotationCell value={rowAnnotations.data?.get(trace.trace_id)?.get(name)} />,
      }),
    ),
    {
      key: 'trace_id',
      title: 'Trace id',
      width: '170px',
      render: (trace) => <CopyableId value={trace.trace_id} display={shortId(trace.trace_id, 12)} label="Copy trace id" />,
    },
  ];

  const chosen = useChosenColumns('traces', columns);

  return (
    <>
      <QueryBar
        projectId={projectId}
        page="traces"
        annotationNames={(configs.data ?? []).map((config) => config.name)}
        error={traces.error}
        extra={<UserLookup />}
      />
      <Group justify="space-between" align="flex-end">
        <AnnotationFilterInput
          value={annotationTags}
          onChange={(values) =>
            update((next) => {
              next.delete('ann');
              for (const value of values) next.append('ann', value);
            })
          }
          names={(configs.data ?? []).map((config) => config.name)}
          w={360}
        />
        <Text size="sm" c="dimmed">
          {/* The keys' hint only beside rows: with none, the table says why. */}
          {rows.length > 0
            ? `${traces.hasNextPage ? `${formatInt(rows.length)}+ traces` : formatCount(rows.length, 'trace')} · ${option.label.toLowerCase()} · ↑/↓ to move, Enter to open`
            : ' '}
        </Text>
        <ColumnChooser table="traces" columns={columns} chosen={chosen} />
        <Anchor component={Link} to={`/projects/${encodeURIComponent(projectId)}/spans${search}${search ? '&' : '?'}roots=1`} size="sm">
          <Group gap={4}>
            <IconFilter size={14} /> Filter traces by status, kind, name or attribute
          </Group>
        </Anchor>
        <ExportMenu
          what="traces"
          href={(format) => traceExportUrl(projectId, option, { annotations: annotationFilters, text, userId }, format)}
        />
      </Group>
      {selected.size > 0 ? (
        <Group gap="xs">
          <Text size="sm">{formatInt(selected.size)} selected</Text>
          <AddToQueueButton targets={{ projectId, traceIds: [...selected] }} />
          <Button size="xs" variant="subtle" color="gray" onClick={() => setSelected(new Set())}>
            Clear selection
          </Button>
        </Group>
      ) : null}
      {traces.error && !/search text|span query|condition/.test(traces.error.message) ? (
        <Alert color="red">{traces.error.message}</Alert>
      ) : null}
      <VirtualTable
        label="Traces"
        rows={rows}
        columns={chosen.visible}
        rowKey={(trace) => trace.id}
        onOpen={open}
        sort={{ key: sortKey, direction: order }}
        onSortChange={setSort}
        hasMore={traces.hasNextPage}
        loadingMore={traces.isFetchingNextPage}
        onLoadMore={() => void traces.fetchNextPage()}
        loading={traces.isPending}
        stale={traces.isPlaceholderData}
        empty={
          <Text c="dimmed">
            {text.search || text.filter || userId
              ? 'No traces match the search or filter in this time range.'
              : 'No traces in this time range. Try a longer range, such as “All time”.'}
          </Text>
        }
      />
    </>
  );
}
