/** A project's sessions (docs/sessions.md), newest first, virtualised with infinite scroll; a row opens the conversation. */
import { useCallback, useMemo } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { Alert, Group, Text, Tooltip } from '@mantine/core';
import type { Session } from '@sightline/client/browser';
import { useSessions, type SessionSortKey } from './sessionQueries';
import { VirtualTable, type Column, type SortState } from '../../components/VirtualTable';
import { ColumnChooser, useChosenColumns } from '../../components/ColumnChooser';
import { UserLookup } from '../../components/QueryBar';
import { useUpdateSearch } from '../../lib/search';
import {
  formatCount,
  displayValue,
  formatCompact,
  formatCost,
  formatDateTime,
  formatDuration,
  formatInt,
  formatTime,
} from '../../lib/format';
import { useLiveRefresh } from '../../lib/timeRange';
import { useProjectContext } from './ProjectLayout';
import { explorerSearch } from './ProjectsPage';

/** One line of a message, for a table cell. */
export const oneLine = (value: unknown) => {
  const text = displayValue(value).replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

const ORDER_TEXT = {
  start_time: { desc: 'newest first', asc: 'oldest first' },
  end_time: { desc: 'most recently active first', asc: 'least recently active first' },
} as const;

/** The address of a session's page. */
export const sessionPath = (projectId: string, sessionId: string) =>
  `/projects/${encodeURIComponent(projectId)}/sessions/${encodeURIComponent(sessionId)}`;

export function SessionsTab() {
  const { projectId } = useProjectContext();
  const { interval } = useLiveRefresh();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const update = useUpdateSearch();
  const sortKey: SessionSortKey = params.get('sort') === 'end_time' ? 'end_time' : 'start_time';
  const order = params.get('order') === 'asc' ? 'asc' : 'desc';
  const userId = params.get('user') ?? '';
  const sessions = useSessions(projectId, interval, sortKey, order, userId);
  const rows = useMemo(() => sessions.data?.pages.flatMap((page) => page.data) ?? [], [sessions.data]);
  const search = explorerSearch(params);
  const open = useCallback((session: Session) => navigate(`${sessionPath(projectId, session.id)}${search}`), [navigate, projectId, search]);

  const columns: Column<Session>[] = [
    {
      key: 'session_id',
      title: 'Session',
      width: 'minmax(160px, 1.2fr)',
      render: (session) => (
        <Text size="sm" fw={500} ff="monospace" truncate>
          {session.session_id}
        </Text>
      ),
    },
    { key: 'turns', title: 'Turns', width: '70px', align: 'right', render: (session) => formatInt(session.trace_count) },
    {
      key: 'errors',
      title: 'Errors',
      width: '70px',
      align: 'right',
      render: (session) =>
        session.error_count > 0 ? (
          <Text span c="red" size="sm">
            {formatInt(session.error_count)}
          </Text>
        ) : (
          <Text span c="dimmed" size="sm">
            0
          </Text>
        ),
    },
    {
      key: 'first_input',
      title: 'First input',
      width: 'minmax(200px, 2fr)',
      render: (session) => (
        <Text size="sm" truncate title={session.first_input ?? undefined}>
          {session.first_input !== null ? (
            oneLine(session.first_input)
          ) : (
            <Text span c="dimmed">
              —
            </Text>
          )}
        </Text>
      ),
    },
    {
      key: 'last_output',
      title: 'Last output',
      width: 'minmax(200px, 2fr)',
      render: (session) => (
        <Text size="sm" truncate title={session.last_output ?? undefined}>
          {session.last_output !== null ? (
            oneLine(session.last_output)
          ) : (
            <Text span c="dimmed">
              —
            </Text>
          )}
        </Text>
      ),
    },
    {
      key: 'tokens',
      title: 'Tokens',
      width: '90px',
      align: 'right',
      render: (session) =>
        session.token_count_total > 0 ? (
          <Tooltip label={`${formatInt(session.token_count_prompt)} prompt · ${formatInt(session.token_count_completion)} completion`}>
            <span>{formatCompact(session.token_count_total)}</span>
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
      width: '110px',
      align: 'right',
      render: (session) =>
        session.cost_total !== null ? (
          <span>{formatCost(session.cost_total)}</span>
        ) : (
          <Text span c="dimmed" size="sm">
            —
          </Text>
        ),
    },
    { key: 'duration', title: 'Duration', width: '100px', align: 'right', render: (session) => formatDuration(session.duration_ms) },
    {
      key: 'start_time',
      title: 'Started',
      width: '190px',
      sortable: true,
      render: (session) => (
        <Text size="sm" title={formatDateTime(session.start_time)}>
          {formatTime(session.start_time)}
        </Text>
      ),
    },
    {
      key: 'end_time',
      title: 'Last activity',
      width: '190px',
      sortable: true,
      render: (session) => (
        <Text size="sm" title={formatDateTime(session.end_time)}>
          {formatTime(session.end_time)}
        </Text>
      ),
    },
  ];
  const chosen = useChosenColumns('sessions', columns);

  return (
    <>
      <UserLookup />
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" c="dimmed">
          {rows.length > 0
            ? `${sessions.hasNextPage ? `${formatInt(rows.length)}+ sessions` : formatCount(rows.length, 'session')}, ${ORDER_TEXT[sortKey][order]} · `
            : ''}
          traces grouped by their session.id attribute; Enter opens the conversation
        </Text>
        <ColumnChooser table="sessions" columns={columns} chosen={chosen} />
      </Group>
      {sessions.error ? <Alert color="red">{sessions.error.message}</Alert> : null}
      <VirtualTable
        label="Sessions"
        rows={rows}
        columns={chosen.visible}
        rowKey={(session) => session.id}
        onOpen={open}
        sort={{ key: sortKey, direction: order }}
        onSortChange={(sort: SortState) =>
          update((next) => {
            next.set('sort', sort.key);
            next.set('order', sort.direction);
          })
        }
        hasMore={sessions.hasNextPage}
        loadingMore={sessions.isFetchingNextPage}
        onLoadMore={() => void sessions.fetchNextPage()}
        loading={sessions.isPending}
        stale={sessions.isPlaceholderData}
        empty={
          <Text c="dimmed">
            No sessions in this project. Spans that carry a <code>session.id</code> attribute group their traces into sessions.
          </Text>
        }
      />
    </>
  );
}
