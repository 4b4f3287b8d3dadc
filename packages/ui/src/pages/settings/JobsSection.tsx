/** Settings → Jobs (admins): every background job of the replica that answers, with its last and next run, lag and last error. */
import { Alert, Badge, Paper, Skeleton, Table, Text, Tooltip } from '@mantine/core';
import type { BackgroundJob } from '@sightline/client/browser';
import { formatDuration, formatRelative } from '../../lib/format';
import { useJobs } from './queries';

const STATE_COLOURS: Record<BackgroundJob['state'], string> = {
  scheduled: 'gray',
  running: 'blue',
  'backing-off': 'red',
  finished: 'green',
  stopped: 'gray',
};

/** An interval as people say it: 1 s, 1 min, 1 h (else the precise duration). */
function formatEvery(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000} s`;
  return formatDuration(ms);
}

/** "3 seconds ago", with the exact time on hover. */
function When({ at }: { at: string | null }) {
  if (at === null) return <Text size="sm">—</Text>;
  return (
    <Tooltip label={new Date(at).toLocaleString()}>
      <Text size="sm">{formatRelative(at)}</Text>
    </Tooltip>
  );
}

export function JobsSection() {
  const jobs = useJobs(true);
  if (jobs.isError) return <Alert color="red">{jobs.error.message}</Alert>;
  if (jobs.isPending) return <Skeleton height={200} />;
  return (
    <Paper withBorder radius="md" style={{ overflow: 'auto' }}>
      <Table aria-label="Background jobs" highlightOnHover style={{ minWidth: 860 }}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Job</Table.Th>
            <Table.Th>State</Table.Th>
            <Table.Th>Every</Table.Th>
            <Table.Th>Last run</Table.Th>
            <Table.Th>Next run</Table.Th>
            <Table.Th ta="right">Lag</Table.Th>
            <Table.Th>Last error</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {jobs.data.map((job) => (
            <Table.Tr key={job.name} data-testid="job-row">
              <Table.Td>
                <Text size="sm" fw={500}>
                  {job.name}
                </Text>
                <Text size="xs" c="dimmed" maw={320}>
                  {job.description}
                </Text>
              </Table.Td>
              <Table.Td>
                <Badge variant="light" color={STATE_COLOURS[job.state]}>
                  {job.state}
                </Badge>
                {job.leased_elsewhere ? (
                  <Text size="xs" c="dimmed">
                    another replica ran the last one
                  </Text>
                ) : null}
              </Table.Td>
              <Table.Td>
                <Text size="sm">{formatEvery(job.interval_ms)}</Text>
              </Table.Td>
              <Table.Td>
                <When at={job.last_run_finished_at} />
              </Table.Td>
              <Table.Td>
                <When at={job.next_run_at} />
              </Table.Td>
              <Table.Td ta="right">
                <Text size="sm">{job.lag_ms > 0 ? formatDuration(job.lag_ms) : 'on time'}</Text>
              </Table.Td>
              <Table.Td>
                {job.last_error === null ? (
                  <Text size="sm" c="dimmed">
                    none
                  </Text>
                ) : (
                  <Text size="sm" c="red" maw={280} lineClamp={2} title={job.last_error}>
                    {job.last_error}
                    {job.consecutive_failures > 0 ? ` (${job.consecutive_failures} in a row)` : ''}
                  </Text>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}
