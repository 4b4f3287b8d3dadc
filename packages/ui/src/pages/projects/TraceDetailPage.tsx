/** `/projects/:projectId/traces/:traceId`: the trace's span tree and timeline beside the selected span. */
import { DeleteButton } from '../../components/DeleteButton';
import { call, client } from '../../api/http';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import {
  Accordion,
  Alert,
  Anchor,
  Breadcrumbs,
  Center,
  Grid,
  Group,
  Loader,
  Paper,
  Stack,
  Switch,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { TraceAnnotationPanel } from './AnnotationPanel';
import { useProject } from './queries';
import { useTrace } from './traceQueries';
import { StatusBadge } from '../../components/Badges';
import { CopyableId } from '../../components/Copy';
import { formatDateTime, formatDuration, formatCost, formatInt } from '../../lib/format';
import { useLiveRefresh } from '../../lib/timeRange';
import { useUpdateSearch } from '../../lib/search';
import { explorerSearch } from './ProjectsPage';
import { SpanDetails } from './SpanDetails';
import { SpanTree } from './SpanTree';
import { traceStatus } from './TracesTab';
import { AddToQueueButton } from '../queues/AddToQueue';
import { usePageTitle } from '../../lib/pageTitle';

export function TraceDetailPage() {
  const { projectId = '', traceId = '' } = useParams();
  const [params] = useSearchParams();
  const update = useUpdateSearch();
  const { live, setLive, interval } = useLiveRefresh();
  const project = useProject(projectId);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const trace = useTrace(projectId, traceId, interval);
  const search = explorerSearch(params);
  const spans = trace.data?.spans ?? [];
  const requested = params.get('span');
  const selected = spans.find((span) => span.context.span_id === requested) ?? spans.find((span) => span.parent_id === null) ?? spans[0];

  const select = (spanId: string) => update((next) => next.set('span', spanId));

  usePageTitle(trace.data?.root_span ? trace.data.root_span.name : 'Trace');

  const projectLink = `/projects/${encodeURIComponent(projectId)}/traces${search}`;

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <div style={{ minWidth: 0 }}>
          <Breadcrumbs separator="/" mb={4}>
            <Anchor component={Link} to={`/projects${search}`} size="sm">
              Projects
            </Anchor>
            <Anchor component={Link} to={projectLink} size="sm">
              {project.data?.name ?? '…'}
            </Anchor>
            <Text size="sm">Trace</Text>
          </Breadcrumbs>
          <Title order={2} style={{ wordBreak: 'break-word' }}>
            {trace.data?.root_span?.name ?? 'Trace'}
          </Title>
          <Group gap={6}>
            <Text size="xs" c="dimmed">
              Trace id
            </Text>
            <CopyableId value={traceId} label="Copy trace id" />
          </Group>
        </div>
        <Group gap="sm" wrap="wrap">
          <AddToQueueButton targets={{ projectId, traceIds: [traceId] }} />
          <DeleteButton
            what="this trace"
            consequence="Its spans and their annotations go with it."
            adminOnly
            onDelete={() => call(client.DELETE('/v1/traces/{trace_identifier}', { params: { path: { trace_identifier: traceId } } }))}
            onDeleted={() => {
              void queryClient.invalidateQueries({ queryKey: ['traces', projectId] });
              navigate(projectLink);
            }}
          />
          <Tooltip label="Refetch every 5 seconds, for traces still being written">
            <Switch label="Live" checked={live} onChange={(event) => setLive(event.currentTarget.checked)} />
          </Tooltip>
        </Group>
      </Group>
      {trace.error ? (
        <Alert color="red" title="Trace not found">
          {trace.error.message}{' '}
          <Anchor component={Link} to={projectLink}>
            Back to traces
          </Anchor>
        </Alert>
      ) : null}
      {trace.isPending ? (
        <Center py="xl">
          <Loader aria-label="Loading trace" />
        </Center>
      ) : null}
      {trace.data ? (
        <>
          <Paper withBorder p="sm" radius="md">
            <Group gap="xl" wrap="wrap">
              <StatusBadge status={traceStatus(trace.data)} />
              <Text size="sm">
                <Text span c="dimmed">
                  Started{' '}
                </Text>
                {formatDateTime(trace.data.start_time)}
              </Text>
              <Text size="sm">
                <Text span c="dimmed">
                  Latency{' '}
                </Text>
                <b>{formatDuration(trace.data.latency_ms)}</b>
              </Text>
              <Text size="sm">
                <Text span c="dimmed">
                  Spans{' '}
                </Text>
                <b>{formatInt(trace.data.span_count)}</b>
                {trace.data.error_count > 0 ? (
                  <Text span c="red">
                    {' '}
                    ({trace.data.error_count} with errors)
                  </Text>
                ) : null}
              </Text>
              <Text size="sm">
                <Text span c="dimmed">
                  Tokens{' '}
                </Text>
                <b>{formatInt(trace.data.token_count_total)}</b>
                <Text span c="dimmed" size="xs">
                  {' '}
                  ({formatInt(trace.data.token_count_prompt)} prompt · {formatInt(trace.data.token_count_completion)} completion)
                </Text>
              </Text>
              {trace.data.cost_total !== null ? (
                <Text size="sm">
                  <Text span c="dimmed">
                    Cost{' '}
                  </Text>
                  <b data-testid="trace-cost">{formatCost(trace.data.cost_total)}</b>
                  <Text span c="dimmed" size="xs">
                    {' '}
                    ({formatCost(trace.data.cost_prompt)} prompt · {formatCost(trace.data.cost_completion)} completion)
                  </Text>
                </Text>
              ) : null}
            </Group>
          </Paper>
          <Accordion variant="contained" radius="md" defaultValue={params.get('annotate') === 'trace' ? 'annotations' : null}>
            <Accordion.Item value="annotations">
              <Accordion.Control>
                <Text size="sm" fw={600}>
                  Trace annotations
                </Text>
              </Accordion.Control>
              <Accordion.Panel>
                <TraceAnnotationPanel projectId={projectId} traceId={traceId} />
              </Accordion.Panel>
            </Accordion.Item>
          </Accordion>
          {trace.data?.spans_truncated ? (
            <Alert color="yellow" title="A very large trace">
              This trace has {formatInt(trace.data.span_count)} spans; the tree shows the first {formatInt(spans.length)} by start time. The
              counts, tokens and cost above include every span; the span list of the project shows the rest.
            </Alert>
          ) : null}
          <Grid gap="md">
            <Grid.Col span={{ base: 12, lg: 7 }}>
              <SpanTree spans={spans} selectedId={selected?.context.span_id ?? null} onSelect={select} />
            </Grid.Col>
            <Grid.Col span={{ base: 12, lg: 5 }}>
              <Paper withBorder p="md" radius="md">
                {selected ? <SpanDetails span={selected} /> : <Text c="dimmed">This trace has no spans.</Text>}
              </Paper>
            </Grid.Col>
          </Grid>
        </>
      ) : null}
    </Stack>
  );
}
