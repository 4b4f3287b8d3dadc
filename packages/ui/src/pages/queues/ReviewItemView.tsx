/**
 * What a reviewer reads of a queue item, with the explorer's own views: a span's readable sections
 * (messages, input and output, retrieved documents), a trace's root span with its other spans a
 * click away, a session's turns as a conversation.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { Accordion, Alert, Anchor, Center, Group, Loader, Paper, Stack, Text } from '@mantine/core';
import type { AnnotationQueueReviewItem } from '@sightline/client/browser';
import { KindBadge, StatusBadge } from '../../components/Badges';
import { formatDuration } from '../../lib/format';
import { SessionConversation } from '../projects/SessionPage';
import { useSession } from '../projects/sessionQueries';
import { SpanInfo } from '../projects/SpanDetails';
import { SpanTree } from '../projects/SpanTree';
import { useTrace } from '../projects/traceQueries';
import { targetLink } from './QueuePage';

function Loading({ what }: { what: string }) {
  return (
    <Center py="xl">
      <Loader aria-label={`Loading ${what}`} />
    </Center>
  );
}

function TelemetryItem({ item }: { item: AnnotationQueueReviewItem }) {
  const trace = useTrace(item.project_id, item.trace_id ?? '');
  const [selected, setSelected] = useState<string | null>(null);
  if (trace.error) return <Alert color="red">{trace.error.message}</Alert>;
  if (!trace.data) return <Loading what="the trace" />;
  const spans = trace.data.spans;
  const root = spans.find((span) => span.parent_id === null) ?? spans[0];
  const focus = item.kind === 'span' ? spans.find((span) => span.context.span_id === item.span_id) : root;
  const other = selected ? spans.find((span) => span.context.span_id === selected) : undefined;
  if (!focus) return <Text c="dimmed">This {item.kind} has no spans left.</Text>;
  return (
    <Stack gap="sm" data-testid="review-content" data-ready="true">
      <Group gap="xs" wrap="wrap">
        <KindBadge kind={focus.span_kind} />
        <Text fw={600} style={{ wordBreak: 'break-word' }}>
          {focus.name}
        </Text>
        <StatusBadge status={focus.status_code} />
        <Text size="sm" c="dimmed">
          {formatDuration(focus.latency_ms)}
        </Text>
      </Group>
      <SpanInfo span={focus} />
      {spans.length > 1 ? (
        <Accordion variant="contained" radius="md">
          <Accordion.Item value="spans">
            <Accordion.Control>
              <Text size="sm" fw={600}>
                All {spans.length} spans of the trace
              </Text>
            </Accordion.Control>
            <Accordion.Panel>
              <Stack gap="sm">
                <SpanTree spans={spans} selectedId={selected} onSelect={setSelected} />
                {other ? (
                  <Paper withBorder p="sm" radius="md">
                    <Text fw={600} size="sm" mb="xs">
                      {other.name}
                    </Text>
                    <SpanInfo span={other} />
                  </Paper>
                ) : null}
              </Stack>
            </Accordion.Panel>
          </Accordion.Item>
        </Accordion>
      ) : null}
    </Stack>
  );
}

function SessionItem({ item }: { item: AnnotationQueueReviewItem }) {
  const session = useSession(item.session_id ?? '');
  if (session.error) return <Alert color="red">{session.error.message}</Alert>;
  if (!session.data) return <Loading what="the session" />;
  return (
    <Stack gap="sm" data-testid="review-content" data-ready="true">
      <Text fw={600}>
        Session {session.data.session_id} · {session.data.trace_count} turns
      </Text>
      <SessionConversation projectId={item.project_id} session={session.data} />
    </Stack>
  );
}

export function ReviewItemView({ item }: { item: AnnotationQueueReviewItem }) {
  const link = targetLink(item);
  const gone = item.kind === 'session' ? item.session_id === null : item.trace_id === null;
  return (
    <Stack gap="xs">
      {link ? (
        <Anchor component={Link} to={link} size="xs">
          Open this {item.kind} in the explorer
        </Anchor>
      ) : null}
      {gone ? (
        <Alert color="yellow">This {item.kind} was deleted (retention?); skip it.</Alert>
      ) : item.kind === 'session' ? (
        <SessionItem key={item.id} item={item} />
      ) : (
        <TelemetryItem key={item.id} item={item} />
      )}
    </Stack>
  );
}
