/**
 * Data retention of a project (docs/retention.md): everyone sees the policy and what the
 * retention job last deleted; admins (and everyone when auth is off) change the bounds.
 */
import { useEffect, useState } from 'react';
import { Button, Group, NumberInput, Paper, Skeleton, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RetentionPolicy } from '@sightline/client/browser';
import { call, client } from '../../api/http';
import { retentionKey, useRetention } from './queries';
import { useCurrentViewer } from '../../components/AuthGate';
import { formatDateTime, formatInt } from '../../lib/format';

/** The policy in words. */
function describe(policy: RetentionPolicy): string {
  const bounds = [
    policy.max_days === null ? null : `traces older than ${formatInt(policy.max_days)} day${policy.max_days === 1 ? '' : 's'}`,
    policy.max_traces === null ? null : `all but the newest ${formatInt(policy.max_traces)} traces`,
  ].filter((bound): bound is string => bound !== null);
  return bounds.length === 0 ? 'Keeps all traces.' : `Deletes ${bounds.join(' and ')}.`;
}

export function RetentionSection({ projectId }: { projectId: string }) {
  const viewer = useCurrentViewer();
  const canEdit = viewer.kind === 'anonymous' || (viewer.kind === 'user' && viewer.role === 'admin');
  const retention = useRetention(projectId);
  const queryClient = useQueryClient();
  const [maxDays, setMaxDays] = useState<number | string>('');
  const [maxTraces, setMaxTraces] = useState<number | string>('');
  const policy = retention.data;
  useEffect(() => {
    if (!policy) return;
    setMaxDays(policy.max_days ?? '');
    setMaxTraces(policy.max_traces ?? '');
  }, [policy]);

  const save = useMutation({
    mutationFn: async () =>
      call(
        client.PUT('/v1/projects/{project_identifier}/retention', {
          params: { path: { project_identifier: projectId } },
          // Blank removes a bound; the server checks the numbers.
          body: { max_days: maxDays === '' ? null : Number(maxDays), max_traces: maxTraces === '' ? null : Number(maxTraces) },
        }),
      ),
    onSuccess: (result) => {
      queryClient.setQueryData(retentionKey(projectId), result.data);
      notifications.show({ color: 'teal', title: 'Retention saved', message: describe(result.data) });
    },
  });

  return (
    <Paper withBorder p="md" radius="md" data-testid="retention-section">
      <Stack gap="sm">
        <div>
          <Title order={4} size="h5">
            Data retention
          </Title>
          <Text size="xs" c="dimmed">
            The retention job deletes whole traces, oldest first, with their spans, costs and annotations.
          </Text>
        </div>
        {!policy ? (
          <Skeleton h={60} />
        ) : (
          <>
            <Text size="sm">{describe(policy)}</Text>
            {canEdit ? (
              <Group align="flex-end">
                <NumberInput
                  label="Maximum age, days"
                  placeholder="no limit"
                  min={1}
                  allowDecimal={false}
                  value={maxDays}
                  onChange={setMaxDays}
                  w={180}
                />
                <NumberInput
                  label="Maximum traces"
                  placeholder="no limit"
                  min={1}
                  allowDecimal={false}
                  thousandSeparator=","
                  value={maxTraces}
                  onChange={setMaxTraces}
                  w={180}
                />
                <Button onClick={() => save.mutate()} loading={save.isPending}>
                  Save
                </Button>
              </Group>
            ) : null}
            {save.error ? (
              <Text c="red" size="sm" role="alert">
                {save.error.message}
              </Text>
            ) : null}
            <Text size="sm" c="dimmed" data-testid="retention-last-run">
              {policy.last_run
                ? `Last run ${formatDateTime(policy.last_run.at)}: ${formatInt(policy.last_run.deleted_traces)} traces, ${formatInt(policy.last_run.deleted_spans)} spans deleted (${formatInt(policy.total_deleted_traces)} traces, ${formatInt(policy.total_deleted_spans)} spans in all).`
                : policy.job_last_run_at
                  ? `Not applied yet; the job last ran ${formatDateTime(policy.job_last_run_at)}.`
                  : 'The retention job has not run yet.'}
            </Text>
          </>
        )}
      </Stack>
    </Paper>
  );
}
