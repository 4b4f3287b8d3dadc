/**
 * `/projects/:projectId/sessions/:sessionId`: a session as the conversation it was (docs/sessions.md):
 * each turn's input (the root span's input.value) and output (its output.value) as chat bubbles in
 * time order, each linking to its trace.
 */
import { DeleteButton } from '../../components/DeleteButton';
import { call, client } from '../../api/http';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { Alert, Anchor, Box, Breadcrumbs, Center, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { IconRobot, IconUser } from '@tabler/icons-react';
import type { Session, Span } from '@sightline/client/browser';
import { useProject } from './queries';
import { useRootSpans, useSession } from './sessionQueries';
import { CopyIcon } from '../../components/Copy';
import { SessionAnnotationPanel } from './AnnotationPanel';
import { StatusBadge } from '../../components/Badges';
import { formatCost, formatDateTime, formatDuration, formatInt, formatTime } from '../../lib/format';
import { prettyJson } from '../../lib/openinference';
import { useLiveRefresh } from '../../lib/timeRange';
import { explorerSearch } from './ProjectsPage';
import { INPUT_VALUE, OUTPUT_VALUE } from '../../lib/attributes';
import { usePageTitle } from '../../lib/pageTitle';

/** One message of the conversation: the user's on the right, the application's on the left. */
function Bubble({ side, value, time, traceLink }: { side: 'input' | 'output'; value: unknown; time: string; traceLink: string }) {
  const user = side === 'input';
  const { text, json } = prettyJson(value);
  return (
    <Group justify={user ? 'flex-end' : 'flex-start'} align="flex-start" wrap="nowrap" gap="xs">
      {user ? null : <IconRobot size={20} aria-hidden style={{ flexShrink: 0, marginTop: 8 }} />}
      <Paper
        withBorder
        radius="lg"
        p="sm"
        maw="75%"
        bg={user ? 'var(--mantine-color-blue-light)' : 'var(--sl-muted-bg)'}
        data-testid={user ? 'turn-input' : 'turn-output'}
      >
        {json ? (
          <pre className="sl-pre" style={{ margin: 0 }}>
            {text}
          </pre>
        ) : (
          <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
            {text}
          </Text>
        )}
        <Group gap="xs" justify="flex-end" mt={4}>
          <Text size="xs" c="dimmed" title={formatDateTime(time)}>
            {formatTime(time)}
          </Text>
          <Anchor component={Link} to={traceLink} size="xs">
            Open trace
          </Anchor>
        </Group>
      </Paper>
      {user ? <IconUser size={20} aria-hidden style={{ flexShrink: 0, marginTop: 8 }} /> : null}
    </Group>
  );
}

/** A session's turns as the conversation it was (each root span's input and output); also the reviewer page's view of a session. */
export function SessionConversation({ projectId, session, search = '' }: { projectId: string; session: Session; search?: string }) {
  const roots = useRootSpans(
    projectId,
    session.traces.map((trace) => trace.trace_id),
  );
  const projectPath = `/projects/${encodeURIComponent(projectId)}`;
  const rootOf = new Map<string, Span>();
  for (const span of roots.data ?? []) if (!rootOf.has(span.context.trace_id)) rootOf.set(span.context.trace_id, span);
  const s = session;
  return (
    <>
      {roots.error ? <Alert color="red">{roots.error.message}</Alert> : null}
      <Paper withBorder p="md" radius="md" aria-label="Conversation" role="log">
        <Stack gap="md">
          {s.traces.map((trace, index) => {
            const root = rootOf.get(trace.trace_id);
            const traceLink = `${projectPath}/traces/${trace.trace_id}${search}`;
            const input = root?.attributes[INPUT_VALUE];
            const output = root?.attributes[OUTPUT_VALUE];
            return (
              <Box key={trace.id} data-testid="session-turn">
                <Group gap="xs" mb={6}>
                  <Text size="xs" fw={700} c="dimmed" tt="uppercase">
                    Turn {index + 1}
                  </Text>
                  {root && root.status_code === 'ERROR' ? <StatusBadge status="ERROR" /> : null}
                  {roots.isPending ? <Loader size="xs" /> : null}
                </Group>
                <Stack gap={6}>
                  {input !== undefined ? <Bubble side="input" value={input} time={trace.start_time} traceLink={traceLink} /> : null}
                  {output !== undefined ? <Bubble side="output" value={output} time={trace.end_time} traceLink={traceLink} /> : null}
                  {!roots.isPending && input === undefined && output === undefined ? (
                    <Text size="sm" c="dimmed">
                      {root ? 'This turn recorded no input or output.' : 'The root span of this turn was not received.'}{' '}
                      <Anchor component={Link} to={traceLink} size="sm">
                        Open trace
                      </Anchor>
                    </Text>
                  ) : null}
                </Stack>
              </Box>
            );
          })}
        </Stack>
      </Paper>
    </>
  );
}

export function SessionPage() {
  const { projectId = '', sessionId = '' } = useParams();
  const [params] = useSearchParams();
  const { interval } = useLiveRefresh();
  const project = useProject(projectId);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const session = useSession(sessionId, interval);
  const search = explorerSearch(params);
  const projectPath = `/projects/${encodeURIComponent(projectId)}`;

  usePageTitle(session.data ? `Session ${session.data.session_id}` : 'Session');

  const s = session.data;

  return (
    <Stack gap="md">
      <div>
        <Breadcrumbs separator="/" mb={4}>
          <Anchor component={Link} to={`/projects${search}`} size="sm">
            Projects
          </Anchor>
          <Anchor component={Link} to={`${projectPath}/traces${search}`} size="sm">
            {project.data?.name ?? '…'}
          </Anchor>
          <Anchor component={Link} to={`${projectPath}/sessions${search}`} size="sm">
            Sessions
          </Anchor>
          <Text size="sm">{s?.session_id ?? '…'}</Text>
        </Breadcrumbs>
        <Group gap={6}>
          <Title order={2} style={{ wordBreak: 'break-word' }}>
            Session {s?.session_id ?? ''}
          </Title>
          {s ? <CopyIcon value={s.session_id} label="Copy session id" /> : null}
          {s ? (
            <DeleteButton
              what={`session "${s.session_id}"`}
              consequence="Its traces, their spans and annotations go with it."
              adminOnly
              onDelete={() => call(client.DELETE('/v1/sessions/{session_identifier}', { params: { path: { session_identifier: s.id } } }))}
              onDeleted={() => {
                void queryClient.invalidateQueries({ queryKey: ['sessions', projectId] });
                navigate(`${projectPath}/sessions${search}`);
              }}
            />
          ) : null}
        </Group>
      </div>
      {session.error ? (
        <Alert color="red" title="Session not found">
          {session.error.message}{' '}
          <Anchor component={Link} to={`${projectPath}/sessions${search}`}>
            Back to sessions
          </Anchor>
        </Alert>
      ) : null}
      {session.isPending ? (
        <Center py="xl">
          <Loader aria-label="Loading session" />
        </Center>
      ) : null}
      {s ? (
        <>
          <Paper withBorder p="sm" radius="md">
            <Group gap="xl" wrap="wrap">
              <Text size="sm">
                <Text span c="dimmed">
                  Started{' '}
                </Text>
                {formatDateTime(s.start_time)}
              </Text>
              <Text size="sm">
                <Text span c="dimmed">
                  Turns{' '}
                </Text>
                <b>{formatInt(s.trace_count)}</b>
              </Text>
              <Text size="sm">
                <Text span c="dimmed">
                  Duration{' '}
                </Text>
                <b>{formatDuration(s.duration_ms)}</b>
              </Text>
              <Text size="sm">
                <Text span c="dimmed">
                  Tokens{' '}
                </Text>
                <b>{formatInt(s.token_count_total)}</b>
                <Text span c="dimmed" size="xs">
                  {' '}
                  ({formatInt(s.token_count_prompt)} prompt · {formatInt(s.token_count_completion)} completion)
                </Text>
              </Text>
              <Text size="sm" data-testid="session-cost">
                <Text span c="dimmed">
                  Cost{' '}
                </Text>
                <b>{s.cost_total === null ? 'not priced' : formatCost(s.cost_total)}</b>
              </Text>
            </Group>
          </Paper>
          <Paper withBorder p="md" radius="md">
            <Text fw={600} size="sm" mb="sm">
              Session annotations
            </Text>
            <SessionAnnotationPanel projectId={projectId} sessionId={s.session_id} />
          </Paper>
          <SessionConversation projectId={projectId} session={s} search={search} />
        </>
      ) : null}
    </Stack>
  );
}
