/**
 * `/projects/:projectId/alerts/:ruleId`: one alert rule, its state, last value and last delivery,
 * its history of firings, and its actions: mute, pause, send a test notification, delete
 * (docs/alerts.md).
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, Anchor, Badge, Breadcrumbs, Button, Code, Group, List, Paper, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { Link, useNavigate, useParams } from 'react-router';
import type { AlertChannelTestResult } from '@sightline/client/browser';
import { StatStrip } from '../../components/StatStrip';
import { ConfirmModal } from '../../components/ConfirmModal';
import { useProject } from '../projects/queries';
import { formatDateTime, formatRelative } from '../../lib/format';
import { usePageTitle } from '../../lib/pageTitle';
import { StateBadge } from './AlertsTab';
import {
  alertRuleKey,
  alertRulesKey,
  conditionText,
  deleteAlertRule,
  formatValue,
  testAlertRule,
  updateAlertRule,
  useAlertHistory,
  useAlertRule,
} from './queries';

const HOUR = 3_600_000;

function History({ ruleId }: { ruleId: string }) {
  const history = useAlertHistory(ruleId);
  if (history.isError) return <Alert color="red">{history.error.message}</Alert>;
  if (history.isPending) return <Skeleton height={60} />;
  if (history.data.data.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        It has not fired yet.
      </Text>
    );
  }
  return (
    <Paper withBorder radius="md" style={{ overflowX: 'auto' }}>
      <Table aria-label="Alert history" miw={520}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Fired</Table.Th>
            <Table.Th>Value</Table.Th>
            <Table.Th>Resolved</Table.Th>
            <Table.Th>Value</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {history.data.data.map((event) => (
            <Table.Tr key={event.id} data-testid="alert-event">
              <Table.Td>
                <Text size="sm">{formatDateTime(event.fired_at)}</Text>
                {event.muted ? (
                  <Badge size="xs" color="gray" variant="outline">
                    muted: not sent
                  </Badge>
                ) : null}
              </Table.Td>
              <Table.Td>{formatValue(event.fired_value)}</Table.Td>
              <Table.Td>
                {event.resolved_at ? (
                  <Text size="sm">{formatDateTime(event.resolved_at)}</Text>
                ) : (
                  <Badge color="red" variant="light">
                    firing
                  </Badge>
                )}
              </Table.Td>
              <Table.Td>{event.resolved_at ? formatValue(event.resolved_value) : '—'}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {history.data.next_cursor ? (
        <Text size="xs" c="dimmed" p="xs">
          The newest 100 are shown; GET /v1/alert_rules/{ruleId}/history pages through them all.
        </Text>
      ) : null}
    </Paper>
  );
}

/** A channel for people; a webhook by its origin only (a Slack webhook's path is its secret). */
const channelText = (channel: AlertChannelTestResult['channel']) => {
  if (channel.type === 'email') return `Email to ${channel.to.join(', ')}`;
  let origin = channel.url;
  try {
    origin = new URL(channel.url).origin;
  } catch {
    // Stored URLs were checked when saved; show it as it is otherwise.
  }
  return `${channel.format === 'slack' ? 'Slack webhook' : 'JSON webhook'} to ${origin}`;
};

export function AlertRulePage() {
  const { projectId = '', ruleId = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const rule = useAlertRule(ruleId);
  const project = useProject(projectId);
  usePageTitle(rule.data ? `${rule.data.name} · alerts` : 'Alert rule');
  const [failure, setFailure] = useState<string | null>(null);
  const [tested, setTested] = useState<AlertChannelTestResult[] | null>(null);
  const [testing, setTesting] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const tabPath = `/projects/${encodeURIComponent(projectId)}/alerts`;

  const act = async (work: () => Promise<void>) => {
    setFailure(null);
    try {
      await work();
      await queryClient.invalidateQueries({ queryKey: alertRuleKey(ruleId) });
      await queryClient.invalidateQueries({ queryKey: alertRulesKey(projectId) });
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    }
  };
  const mute = (ms: number | null) =>
    act(async () => {
      await updateAlertRule(ruleId, { muted_until: ms === null ? null : new Date(Date.now() + ms).toISOString() });
    });

  if (rule.isError) {
    return (
      <Alert color="red" title="Alert rule not found">
        {rule.error.message}{' '}
        <Anchor component={Link} to={tabPath}>
          All alert rules
        </Anchor>
      </Alert>
    );
  }
  const r = rule.data;

  return (
    <Stack gap="md">
      <div>
        <Breadcrumbs separator="/" mb={4}>
          <Anchor component={Link} to="/projects" size="sm">
            Projects
          </Anchor>
          <Anchor component={Link} to={`/projects/${encodeURIComponent(projectId)}`} size="sm">
            {project.data?.name ?? 'Project'}
          </Anchor>
          <Anchor component={Link} to={tabPath} size="sm">
            Alerts
          </Anchor>
        </Breadcrumbs>
        <Group gap="sm" wrap="wrap">
          <Title order={2}>{r?.name ?? ' '}</Title>
          {r ? <StateBadge rule={r} /> : null}
        </Group>
        {r ? (
          <Text size="sm" c="dimmed">
            {conditionText(r)}
            {r.filter ? ' · spans matching ' : ''}
            {r.filter ? <Code>{r.filter}</Code> : null}
            {r.muted && r.muted_until ? ` · muted until ${formatDateTime(r.muted_until)}` : ''}
          </Text>
        ) : null}
      </div>
      <StatStrip
        loading={rule.isPending}
        stats={[
          {
            label: 'State',
            value: r ? (r.enabled ? r.state : 'paused') : '—',
            color: r?.state === 'firing' && r.enabled ? 'red' : undefined,
          },
          {
            label: 'Last value',
            value: formatValue(r?.last_value),
            hint: r?.last_checked_at ? `checked ${formatRelative(r.last_checked_at)}` : 'not checked yet',
          },
          {
            label: 'Last delivery',
            value: r?.last_delivery_at ? formatRelative(r.last_delivery_at) : '—',
            color: r?.last_delivery_error ? 'red' : undefined,
            hint: r?.last_delivery_error ? 'failed: see below' : undefined,
          },
          { label: 'Channels', value: String(r?.channels.length ?? '—') },
        ]}
      />
      {r?.last_delivery_error ? (
        <Alert color="red" title="The last notification did not reach every channel" role="alert">
          {r.last_delivery_error}
        </Alert>
      ) : null}
      {r ? (
        <Group wrap="wrap">
          {r.muted ? (
            <Button variant="default" onClick={() => mute(null)}>
              Unmute
            </Button>
          ) : (
            <>
              <Button variant="default" onClick={() => mute(HOUR)}>
                Mute 1h
              </Button>
              <Button variant="default" onClick={() => mute(24 * HOUR)}>
                Mute 24h
              </Button>
            </>
          )}
          <Button variant="default" onClick={() => act(async () => void (await updateAlertRule(ruleId, { enabled: !r.enabled })))}>
            {r.enabled ? 'Pause' : 'Resume'}
          </Button>
          <Button
            variant="default"
            loading={testing}
            disabled={r.channels.length === 0}
            onClick={async () => {
              setTesting(true);
              setTested(null);
              await act(async () => setTested(await testAlertRule(ruleId)));
              setTesting(false);
            }}
          >
            Send test notification
          </Button>
          <Button color="red" variant="subtle" onClick={() => setConfirmDelete(true)}>
            Delete
          </Button>
        </Group>
      ) : null}
      {failure ? (
        <Alert color="red" role="alert" title="Not done">
          {failure}
        </Alert>
      ) : null}
      {tested ? (
        <Alert color={tested.every((result) => result.ok) ? 'green' : 'orange'} role="status" title="Test notification">
          <List size="sm">
            {tested.map((result) => (
              <List.Item key={JSON.stringify(result.channel)} data-testid="test-result">
                {channelText(result.channel)}: {result.ok ? 'sent' : result.error}
              </List.Item>
            ))}
          </List>
        </Alert>
      ) : null}
      {r ? (
        <div>
          <Title order={4} mb={4}>
            Channels
          </Title>
          {r.channels.length === 0 ? (
            <Text size="sm" c="dimmed">
              None: the rule records its history and sends nothing.
            </Text>
          ) : (
            <List size="sm">
              {r.channels.map((channel) => (
                <List.Item key={JSON.stringify(channel)}>{channelText(channel)}</List.Item>
              ))}
            </List>
          )}
        </div>
      ) : null}
      <Title order={4}>History</Title>
      <History ruleId={ruleId} />
      <ConfirmModal
        opened={confirmDelete}
        title="Delete this alert rule?"
        confirmLabel="Delete rule"
        onClose={() => setConfirmDelete(false)}
        onConfirm={() =>
          act(async () => {
            await deleteAlertRule(ruleId);
            navigate(tabPath);
          })
        }
      >
        <Text size="sm">Its history goes with it.</Text>
      </ConfirmModal>
    </Stack>
  );
}
