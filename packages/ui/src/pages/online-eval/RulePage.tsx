/**
 * `/projects/:projectId/online-eval/:ruleId`: one online evaluation rule, how it is doing
 * (evaluated, waiting, failed, skipped, cost, lag) and what failed, with its actions
 * (docs/online-evaluation.md).
 */
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Code,
  Group,
  NumberInput,
  Paper,
  SegmentedControl,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { Link, useNavigate, useParams } from 'react-router';
import type { OnlineEvalItem } from '@sightline/client/browser';
import { StatStrip } from '../../components/StatStrip';
import { useProject } from '../projects/queries';
import { ConfirmModal } from '../../components/ConfirmModal';
import { formatCost, formatInt, formatPercent, formatRelative } from '../../lib/format';
import { usePageTitle } from '../../lib/pageTitle';
import { backfillRule, deleteRule, retryFailed, ruleKey, rulesKey, updateRule, useRule, useRuleItems, useRuleStats } from './queries';

const seconds = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : value < 60 ? `${value.toFixed(1)} s` : `${Math.round(value / 60)} min`;

function ItemsTable({ ruleId, status }: { ruleId: string; status: OnlineEvalItem['status'] }) {
  const items = useRuleItems(ruleId, status);
  if (items.isError) return <Alert color="red">{items.error.message}</Alert>;
  if (items.isPending) return <Skeleton height={60} />;
  if (items.data.data.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        None.
      </Text>
    );
  }
  return (
    <Paper withBorder radius="md" style={{ overflowX: 'auto' }}>
      <Table aria-label={`${status} items`} miw={520}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Item</Table.Th>
            <Table.Th>Why</Table.Th>
            <Table.Th>Attempts</Table.Th>
            <Table.Th>Sampled</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.data.data.map((item) => (
            <Table.Tr key={item.id} data-testid="rule-item">
              <Table.Td>
                <Text size="xs" c="dimmed">
                  {item.target_kind}
                </Text>
                <Code>{item.target_id}</Code>
              </Table.Td>
              <Table.Td>
                <Text size="sm" style={{ wordBreak: 'break-word' }}>
                  {item.error ?? '—'}
                </Text>
              </Table.Td>
              <Table.Td>{item.attempts}</Table.Td>
              <Table.Td>
                <Text size="sm">{formatRelative(item.created_at)}</Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {items.data.next_cursor ? (
        <Text size="xs" c="dimmed" p="xs">
          The newest 100 are shown; GET /v1/online_eval_rules/{ruleId}/items pages through them all.
        </Text>
      ) : null}
    </Paper>
  );
}

export function RulePage() {
  const { projectId = '', ruleId = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const rule = useRule(ruleId);
  const project = useProject(projectId);
  const stats = useRuleStats(ruleId);
  usePageTitle(rule.data ? `${rule.data.name} · online evaluation` : 'Online evaluation rule');
  const [hours, setHours] = useState<number | string>(24);
  const [list, setList] = useState<'failed' | 'skipped'>('failed');
  const [failure, setFailure] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const tabPath = `/projects/${encodeURIComponent(projectId)}/online-eval`;

  const act = async (work: () => Promise<string | null>) => {
    setFailure(null);
    setNotice(null);
    try {
      setNotice(await work());
      await queryClient.invalidateQueries({ queryKey: ruleKey(ruleId) });
      await queryClient.invalidateQueries({ queryKey: rulesKey(projectId) });
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    }
  };

  if (rule.isError) {
    return (
      <Alert color="red" title="Rule not found">
        {rule.error.message}{' '}
        <Anchor component={Link} to={tabPath}>
          All rules
        </Anchor>
      </Alert>
    );
  }
  const r = rule.data;
  const s = stats.data;

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
            Online evaluation
          </Anchor>
        </Breadcrumbs>
        <Group gap="sm" wrap="wrap">
          <Title order={2}>{r?.name ?? ' '}</Title>
          {r ? (
            <Badge color={r.enabled ? 'green' : 'gray'} variant="dot">
              {r.enabled ? (s?.backfilling ? 'backfilling' : 'on') : 'paused'}
            </Badge>
          ) : null}
        </Group>
        {r ? (
          <Text size="sm" c="dimmed">
            {r.target === 'session'
              ? `Sessions idle for ${r.session_idle_minutes} min`
              : r.target === 'trace'
                ? 'Traces by their root span'
                : 'Spans'}
            {r.filter ? ' matching ' : ''}
            {r.filter ? <Code>{r.filter}</Code> : null} · {formatPercent(r.sampling_rate)} sampled · with{' '}
            {r.evaluators.map((evaluator) => `${evaluator.name} v${evaluator.version}`).join(', ')}
            {r.rate_limit_per_minute ? ` · at most ${formatInt(r.rate_limit_per_minute)} a minute` : ''}
            {r.daily_cost_limit_usd ? ` · at most ${formatCost(r.daily_cost_limit_usd)} a day` : ''}
            {r.queue_id ? (
              <>
                {' · '}
                <Anchor component={Link} to={`/queues/${encodeURIComponent(r.queue_id)}`} size="sm">
                  {r.queue_when_score_below === null ? 'every item to review' : `scores below ${r.queue_when_score_below} to review`}
                </Anchor>
              </>
            ) : null}
          </Text>
        ) : null}
      </div>
      <StatStrip
        loading={stats.isPending}
        stats={[
          { label: 'Evaluated', value: formatInt(s?.evaluated) },
          { label: 'Waiting', value: formatInt(s?.pending), hint: s ? `the oldest for ${seconds(s.oldest_pending_seconds)}` : undefined },
          { label: 'Failed', value: formatInt(s?.failed), color: s && s.failed > 0 ? 'red' : undefined },
          { label: 'Skipped', value: formatInt(s?.skipped) },
          { label: 'Lag p50', value: seconds(s?.lag_p50_seconds), hint: 'From sampled to evaluated, latest 500' },
          { label: 'Lag p99', value: seconds(s?.lag_p99_seconds) },
          { label: 'Cost today', value: formatCost(s?.cost_today_usd), hint: s ? `${formatCost(s.cost_total_usd)} in all` : undefined },
        ]}
      />
      {r ? (
        <Group wrap="wrap" align="flex-end">
          <Button
            variant="default"
            onClick={() =>
              act(async () => {
                await updateRule(ruleId, { enabled: !r.enabled });
                return null;
              })
            }
          >
            {r.enabled ? 'Pause' : 'Resume'}
          </Button>
          <NumberInput aria-label="Backfill hours" min={1} w={100} value={hours} onChange={setHours} suffix=" h" />
          <Button
            variant="default"
            onClick={() =>
              act(async () => {
                await backfillRule(ruleId, Number(hours));
                return `Backfilling the last ${hours} hours.`;
              })
            }
          >
            Backfill
          </Button>
          <Button
            variant="default"
            disabled={!s || s.failed === 0}
            onClick={() => act(async () => `${formatInt(await retryFailed(ruleId))} failed items will be tried again.`)}
          >
            Retry failed
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
      {notice ? (
        <Alert color="blue" role="status">
          {notice}
        </Alert>
      ) : null}
      <Group justify="space-between">
        <Title order={4}>Not evaluated</Title>
        <SegmentedControl
          size="xs"
          value={list}
          onChange={(value) => setList(value as 'failed' | 'skipped')}
          data={[
            { value: 'failed', label: 'Failed' },
            { value: 'skipped', label: 'Skipped' },
          ]}
        />
      </Group>
      <ItemsTable ruleId={ruleId} status={list} />
      <ConfirmModal
        opened={confirmDelete}
        title="Delete this rule?"
        confirmLabel="Delete rule"
        onClose={() => setConfirmDelete(false)}
        onConfirm={() =>
          act(async () => {
            await deleteRule(ruleId);
            navigate(tabPath);
            return null;
          })
        }
      >
        <Text size="sm">The annotations it made stay; its list of evaluated and failed items goes.</Text>
      </ConfirmModal>
    </Stack>
  );
}
