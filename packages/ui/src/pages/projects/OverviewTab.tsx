/** Charts of a project over the chosen range: annotations, volume, errors, latency, tokens over time and by model. */
import '@mantine/charts/styles.css';
import type { ReactNode } from 'react';
import { AreaChart, BarChart, LineChart } from '@mantine/charts';
import { Alert, Center, Group, Loader, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useSummary, useTimeseries } from './queries';
import type { TimeseriesBucket } from '@sightline/client/browser';
import { spanKindColor } from '../../lib/spanKinds';
import { formatCompact, formatDuration, formatInt, formatPercent } from '../../lib/format';
import { useLiveRefresh, useTimeRange } from '../../lib/timeRange';
import { useProjectContext } from './ProjectLayout';
import { AnnotationSummaries } from './AnnotationSummaries';
import { RetentionSection } from './RetentionSection';

function ChartCard({ title, subtitle, children, testId }: { title: string; subtitle?: string; children: ReactNode; testId?: string }) {
  return (
    <Paper withBorder p="md" radius="md" data-testid={testId}>
      <Stack gap="xs">
        <div>
          <Title order={4} size="h5">
            {title}
          </Title>
          {subtitle ? (
            <Text size="xs" c="dimmed">
              {subtitle}
            </Text>
          ) : null}
        </div>
        {children}
      </Stack>
    </Paper>
  );
}

function bucketLabel(bucket: TimeseriesBucket, intervalSeconds: number, spanMs: number): string {
  const date = new Date(bucket.start_time);
  if (intervalSeconds >= 86_400) return date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  const time = date.toLocaleTimeString(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    ...(intervalSeconds < 60 ? { second: '2-digit' } : {}),
  });
  if (spanMs <= 86_400_000) return time;
  return `${date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${time}`;
}

function intervalLabel(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} day${seconds === 86_400 ? '' : 's'}`;
  if (seconds % 3600 === 0) return `${seconds / 3600} hour${seconds === 3600 ? '' : 's'}`;
  if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
  return `${seconds} seconds`;
}

const CHART_HEIGHT = 240;

export function OverviewTab() {
  const { projectId } = useProjectContext();
  const { option } = useTimeRange();
  const { interval } = useLiveRefresh();
  const series = useTimeseries(projectId, option, interval);
  const summary = useSummary(projectId, option, interval);

  if (series.error || summary.error) return <Alert color="red">{(series.error ?? summary.error)?.message}</Alert>;
  if (!series.data || !summary.data) {
    return (
      <Center py="xl">
        <Loader aria-label="Loading charts" />
      </Center>
    );
  }

  const ts = series.data;
  const spanMs = Date.parse(ts.end_time) - Date.parse(ts.start_time);
  const data = ts.buckets.map((bucket) => ({
    time: bucketLabel(bucket, ts.interval_seconds, spanMs),
    Spans: bucket.span_count,
    Traces: bucket.trace_count,
    Errors: bucket.error_count,
    'Error rate': bucket.span_count > 0 ? (bucket.error_count / bucket.span_count) * 100 : 0,
    p50: bucket.latency_ms_p50,
    p99: bucket.latency_ms_p99,
    Prompt: bucket.token_count_prompt,
    Completion: bucket.token_count_completion,
  }));
  const models = summary.data.models.filter((model) => model.token_count_total > 0 || model.model_name !== null);
  const modelData = models.map((model) => ({
    model: model.model_name ?? '(no model name)',
    Prompt: model.token_count_prompt,
    Completion: model.token_count_completion,
  }));
  const kinds = summary.data.span_kinds.map((kind) => ({
    kind: kind.span_kind,
    Spans: kind.span_count - kind.error_count,
    Errors: kind.error_count,
  }));
  const per = `per ${intervalLabel(ts.interval_seconds)}`;

  return (
    <Stack gap="md" data-testid="overview-charts">
      <AnnotationSummaries />
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <ChartCard title="Traces and spans" subtitle={`Started ${per}`} testId="chart-volume">
          <AreaChart
            h={CHART_HEIGHT}
            data={data}
            dataKey="time"
            series={[
              { name: 'Spans', color: 'indigo.5' },
              { name: 'Traces', color: 'teal.5' },
            ]}
            curveType="monotone"
            withLegend
            valueFormatter={(value) => formatInt(value)}
            withDots={false}
            tickLine="none"
          />
        </ChartCard>
        <ChartCard
          title="Error rate"
          subtitle={`Spans with status ERROR, ${per} · ${formatPercent(summary.data.error_rate)} overall`}
          testId="chart-errors"
        >
          <AreaChart
            h={CHART_HEIGHT}
            data={data}
            dataKey="time"
            series={[{ name: 'Error rate', color: 'red.6' }]}
            curveType="monotone"
            unit="%"
            valueFormatter={(value) => `${value.toFixed(1)}`}
            withDots={false}
            tickLine="none"
          />
        </ChartCard>
        <ChartCard title="Latency" subtitle={`Root span duration p50 and p99, ${per}`} testId="chart-latency">
          <LineChart
            h={CHART_HEIGHT}
            data={data}
            dataKey="time"
            series={[
              { name: 'p50', color: 'indigo.5', label: 'p50' },
              { name: 'p99', color: 'orange.6', label: 'p99' },
            ]}
            curveType="monotone"
            connectNulls
            withLegend
            valueFormatter={(value) => formatDuration(value)}
            yAxisProps={{ width: 70 }}
            withDots={false}
            tickLine="none"
          />
        </ChartCard>
        <ChartCard title="Token usage" subtitle={`Prompt and completion tokens of LLM spans, ${per}`} testId="chart-tokens">
          <AreaChart
            h={CHART_HEIGHT}
            data={data}
            dataKey="time"
            type="stacked"
            series={[
              { name: 'Prompt', color: 'violet.5' },
              { name: 'Completion', color: 'grape.4' },
            ]}
            curveType="monotone"
            withLegend
            valueFormatter={(value) => formatCompact(value)}
            withDots={false}
            tickLine="none"
          />
        </ChartCard>
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <ChartCard
          title="Tokens by model"
          subtitle={`${option.label} · ${formatInt(summary.data.token_count_total)} tokens in all`}
          testId="chart-models"
        >
          {modelData.length === 0 ? (
            <Text c="dimmed" size="sm">
              No LLM spans with token counts in this range.
            </Text>
          ) : (
            <>
              <BarChart
                h={Math.max(120, modelData.length * 44 + 40)}
                data={modelData}
                dataKey="model"
                type="stacked"
                orientation="vertical"
                series={[
                  { name: 'Prompt', color: 'violet.5' },
                  { name: 'Completion', color: 'grape.4' },
                ]}
                withLegend
                valueFormatter={(value) => formatCompact(value)}
                yAxisProps={{ width: 140 }}
                tickLine="none"
              />
              <Table fz="sm" verticalSpacing={4} aria-label="Tokens by model">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Model</Table.Th>
                    <Table.Th ta="right">LLM spans</Table.Th>
                    <Table.Th ta="right">Prompt</Table.Th>
                    <Table.Th ta="right">Completion</Table.Th>
                    <Table.Th ta="right">Total</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {models.map((model) => (
                    <Table.Tr key={model.model_name ?? ''}>
                      <Table.Td>
                        {model.model_name ?? (
                          <Text span c="dimmed">
                            (no model name)
                          </Text>
                        )}
                      </Table.Td>
                      <Table.Td ta="right">{formatInt(model.span_count)}</Table.Td>
                      <Table.Td ta="right">{formatInt(model.token_count_prompt)}</Table.Td>
                      <Table.Td ta="right">{formatInt(model.token_count_completion)}</Table.Td>
                      <Table.Td ta="right" fw={600}>
                        {formatInt(model.token_count_total)}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </>
          )}
        </ChartCard>
        <ChartCard title="Spans by kind" subtitle={`${option.label} · errors in red`} testId="chart-kinds">
          {kinds.length === 0 ? (
            <Text c="dimmed" size="sm">
              No spans in this range.
            </Text>
          ) : (
            <BarChart
              h={Math.max(120, kinds.length * 36 + 40)}
              data={kinds}
              dataKey="kind"
              type="stacked"
              orientation="vertical"
              series={[
                { name: 'Spans', color: 'indigo.5' },
                { name: 'Errors', color: 'red.6' },
              ]}
              valueFormatter={(value) => formatInt(value)}
              yAxisProps={{ width: 100 }}
              tickLine="none"
              getBarColor={undefined}
            />
          )}
          <Group gap="xs">
            {summary.data.span_kinds.map((kind) => (
              <Text key={kind.span_kind} size="xs" c={spanKindColor(kind.span_kind)}>
                {kind.span_kind}: {formatInt(kind.span_count)}
              </Text>
            ))}
          </Group>
        </ChartCard>
      </SimpleGrid>
      <RetentionSection projectId={projectId} />
    </Stack>
  );
}
