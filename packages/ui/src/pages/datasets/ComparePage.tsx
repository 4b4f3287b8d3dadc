/**
 * `/datasets/:datasetId/compare?experimentId=…&experimentId=…`: experiments side by side per
 * example of the first (the base), 50 examples a page: each run's output, error, latency, tokens
 * and evaluations, with a link to its trace. The links phoenix-client's runExperiment prints
 * open this page.
 */
import { useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import {
  Alert,
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Code,
  Group,
  MultiSelect,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconChevronLeft, IconChevronRight, IconExternalLink } from '@tabler/icons-react';
import type { ComparedExperimentRun, Experiment } from '@sightline/client/browser';
import { useComparison, useDataset, useExperiments } from './queries';
import { formatDuration, formatInt } from '../../lib/format';
import { datasetPath } from './DatasetsPage';
import { evaluatorNames, formatScore, meanScore } from './experiments';
import { CopyableId } from '../../components/Copy';

/** Lines of a value shown before "Show all": rows stay a few lines high, so a screen holds many examples. */
const COLLAPSED_LINES = 4;

/** A value as text, its first lines only until expanded by a click. */
function Json({ value }: { value: unknown }) {
  const [expanded, setExpanded] = useState(false);
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  const lines = text.split('\n');
  // Long single lines wrap, so they count by length too (about 60 characters a line in a column).
  const long = lines.length > COLLAPSED_LINES || text.length > COLLAPSED_LINES * 60;
  return (
    <div>
      <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
        {expanded || !long
          ? text
          : `${lines
              .slice(0, COLLAPSED_LINES)
              .join('\n')
              .slice(0, COLLAPSED_LINES * 60)}…`}
      </Code>
      {long ? (
        <Anchor component="button" type="button" size="xs" onClick={() => setExpanded((open) => !open)} aria-expanded={expanded}>
          {expanded ? 'Show less' : `Show all (${lines.length} lines)`}
        </Anchor>
      ) : null}
    </div>
  );
}

/** The headline of one compared experiment: counts, mean scores, latency. */
function ExperimentCard({ experiment, base, names }: { experiment: Experiment; base: boolean; names: string[] }) {
  return (
    <Paper withBorder p="sm" radius="md" data-testid="compared-experiment">
      <Group gap={6} mb={4}>
        <Text fw={600}>{experiment.name}</Text>
        {base ? (
          <Badge size="xs" variant="light">
            base
          </Badge>
        ) : null}
      </Group>
      <Group gap={4} mb={6}>
        <Badge color="green" variant="light">
          {formatInt(experiment.successful_run_count)} ok
        </Badge>
        {experiment.failed_run_count > 0 ? (
          <Badge color="red" variant="light">
            {formatInt(experiment.failed_run_count)} failed
          </Badge>
        ) : null}
        {experiment.missing_run_count > 0 ? (
          <Badge color="gray" variant="light">
            {formatInt(experiment.missing_run_count)} missing
          </Badge>
        ) : null}
        <Badge color="gray" variant="outline">
          {formatDuration(experiment.average_run_latency_ms)} mean
        </Badge>
      </Group>
      <Group gap="md">
        {names.map((name) => (
          <Stack key={name} gap={0}>
            <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
              {name}
            </Text>
            <Text fw={650} style={{ fontVariantNumeric: 'tabular-nums' }} data-testid={`mean-${name}`}>
              {formatScore(meanScore(experiment, name))}
            </Text>
          </Stack>
        ))}
      </Group>
    </Paper>
  );
}

/** One run in a comparison cell: output or error, evaluations, latency, tokens, trace link. */
function RunCell({ run, projectName, repetitions }: { run: ComparedExperimentRun; projectName: string | null; repetitions: number }) {
  const tokens = run.token_counts;
  return (
    <Stack gap={4} data-testid="compared-run">
      {repetitions > 1 ? (
        <Text size="xs" c="dimmed">
          repetition {run.repetition_number}
        </Text>
      ) : null}
      {run.error ? (
        <Alert color="red" p={6} styles={{ message: { fontSize: 12 } }}>
          {run.error}
        </Alert>
      ) : (
        <Json value={run.output} />
      )}
      <Group gap={4}>
        {(run.annotations ?? []).map((annotation) => (
          <Tooltip key={annotation.name} label={annotation.error ?? annotation.explanation ?? annotation.name} multiline maw={360}>
            <Badge
              variant={annotation.error ? 'outline' : 'light'}
              color={scoreTone(annotation) === 'pass' ? 'teal' : scoreTone(annotation) === 'neutral' ? 'blue' : 'red'}
              tt="none"
              data-testid="run-score"
              data-tone={scoreTone(annotation)}
            >
              {annotation.name}: {annotation.error ? 'error' : formatScore(annotation.score)}
              {annotation.label ? ` (${annotation.label})` : ''}
            </Badge>
          </Tooltip>
        ))}
      </Group>
      <Group gap="xs">
        <Text size="xs" c="dimmed">
          {formatDuration(run.latency_ms)}
        </Text>
        {tokens && tokens.total > 0 ? (
          <Tooltip label={`${formatInt(tokens.prompt)} prompt · ${formatInt(tokens.completion)} completion`}>
            <Text size="xs" c="dimmed">
              {formatInt(tokens.total)} tokens
            </Text>
          </Tooltip>
        ) : null}
        {run.trace_id && projectName ? (
          <Anchor
            component={Link}
            to={`/projects/${encodeURIComponent(projectName)}/traces/${run.trace_id}`}
            size="xs"
            aria-label="Open the run's trace"
          >
            <Group gap={2}>
              trace <IconExternalLink size={12} />
            </Group>
          </Anchor>
        ) : null}
      </Group>
    </Stack>
  );
}

/**
 * How a run's score reads at a glance: passing (0.5 and above: a 1 of an exact-match check, a
 * good judge score) in green, failing (below 0.5, or an evaluator error) in red, and a label
 * without a score in neutral blue.
 */
function scoreTone(annotation: { score: number | null; error?: string | null }): 'pass' | 'fail' | 'neutral' {
  if (annotation.error) return 'fail';
  if (annotation.score === null) return 'neutral';
  return annotation.score >= 0.5 ? 'pass' : 'fail';
}

/** A run group's mean score against the base's, signed and coloured: green up, red down. */
function ScoreDelta({ base, value, name }: { base: number | null; value: number | null; name: string | undefined }) {
  if (base === null || value === null || name === undefined) return null;
  const delta = Number((value - base).toFixed(3));
  const tone = delta > 0 ? 'teal' : delta < 0 ? 'red' : 'gray';
  return (
    <Badge variant="light" color={tone} tt="none" data-testid="score-delta" w="fit-content">
      Δ {name} {delta > 0 ? '+' : ''}
      {delta}
    </Badge>
  );
}

export function ComparePage() {
  const { datasetId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const experimentIds = params.getAll('experimentId');
  // Cursors of the pages before the current one, so Previous needs no backwards query.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors.at(-1);
  const [jumpTo, setJumpTo] = useState('');
  const dataset = useDataset(datasetId);
  const all = useExperiments(datasetId);
  const names = evaluatorNames((all.data ?? []).filter((experiment) => experimentIds.includes(experiment.id)));
  const requestedFilter = params.get('filter');
  const filter =
    requestedFilter === 'regressed' || requestedFilter === 'improved' || requestedFilter === 'failed' ? requestedFilter : undefined;
  const scoreName = params.get('score') ?? names[0];
  // Largest drop first needs a score and a second experiment; otherwise the examples stay in order.
  const byDelta = params.get('sort') === 'score_delta' && scoreName !== undefined && experimentIds.length > 1;
  const comparison = useComparison(datasetId, experimentIds, cursor, 50, {
    filter: filter === 'failed' || (filter && scoreName) ? filter : undefined,
    scoreName: (filter && filter !== 'failed') || byDelta ? scoreName : undefined,
    sort: byDelta ? 'score_delta' : undefined,
  });
  const experiments = comparison.data?.experiments ?? [];
  const setView = (key: 'filter' | 'score' | 'sort', value: string | null) => {
    setCursors([undefined]);
    setParams((current) => {
      const next = new URLSearchParams(current);
      if (value) next.set(key, value);
      else next.delete(key);
      return next;
    });
  };

  const choose = (ids: string[]) => {
    setCursors([undefined]);
    setParams(new URLSearchParams(ids.map((id) => ['experimentId', id])));
  };
  // Each example's mean score per compared experiment, for the deltas against the base.
  const meanOf = (runs: ComparedExperimentRun[], name: string | undefined) => {
    const scores = runs.flatMap((run) => (run.annotations ?? []).filter((a) => a.name === name && a.score !== null).map((a) => a.score!));
    return scores.length === 0 ? null : scores.reduce((sum, score) => sum + score, 0) / scores.length;
  };

  return (
    <Stack gap="md">
      <div>
        <Breadcrumbs separator="/" mb={4}>
          <Anchor component={Link} to="/datasets" size="sm">
            Datasets
          </Anchor>
          <Anchor component={Link} to={datasetPath(datasetId, 'experiments')} size="sm">
            {dataset.data?.name ?? '…'}
          </Anchor>
          <Text size="sm">Compare</Text>
        </Breadcrumbs>
        <Title order={2}>Compare experiments</Title>
      </div>
      <MultiSelect
        label="Experiments"
        aria-label="Experiments to compare"
        placeholder="Pick experiments (the first is the base)"
        data={(all.data ?? []).map((experiment) => ({ value: experiment.id, label: experiment.name }))}
        value={experimentIds}
        onChange={choose}
        maxValues={10}
        searchable
      />
      {experimentIds.length === 0 ? (
        <Alert title="No experiment chosen">Pick one or more experiments of this dataset above.</Alert>
      ) : comparison.isError ? (
        <Alert color="red" title="Could not compare">
          {comparison.error.message}
          {cursors.length > 1 ? (
            <Button variant="default" size="xs" mt="xs" display="block" onClick={() => setCursors([undefined])}>
              Back to the first page
            </Button>
          ) : null}
        </Alert>
      ) : comparison.isPending ? (
        <Skeleton height={240} />
      ) : (
        <>
          <SimpleGrid cols={{ base: 1, sm: Math.min(3, experiments.length) }} spacing="sm">
            {experiments.map((experiment, index) => (
              <ExperimentCard key={experiment.id} experiment={experiment} base={index === 0} names={names} />
            ))}
          </SimpleGrid>
          {experiments.length > 1 ? (
            <Group gap="sm" align="flex-end" wrap="wrap">
              <SegmentedControl
                aria-label="Examples shown"
                value={filter ?? 'all'}
                onChange={(value) => setView('filter', value === 'all' ? null : value)}
                data={[
                  { value: 'all', label: 'All' },
                  { value: 'regressed', label: 'Regressed' },
                  { value: 'improved', label: 'Improved' },
                  { value: 'failed', label: 'Failed' },
                ]}
              />
              {names.length > 0 ? (
                <SegmentedControl
                  aria-label="Order of the examples"
                  value={byDelta ? 'score_delta' : 'example'}
                  onChange={(value) => setView('sort', value === 'example' ? null : value)}
                  data={[
                    { value: 'example', label: 'Example order' },
                    { value: 'score_delta', label: 'Largest drop first' },
                  ]}
                />
              ) : null}
              {names.length > 0 ? (
                <Select
                  aria-label="Score compared"
                  size="sm"
                  w={200}
                  data={names}
                  value={scoreName ?? null}
                  onChange={(value) => setView('score', value)}
                  allowDeselect={false}
                />
              ) : null}
              <Text size="xs" c="dimmed">
                {filter === 'failed'
                  ? 'Examples where a run or an evaluation failed.'
                  : filter
                    ? `Examples where another experiment's mean ${scoreName ?? ''} is ${filter === 'regressed' ? 'below' : 'above'} the base's.`
                    : 'Δ: each experiment’s mean score on the example against the base’s.'}
              </Text>
            </Group>
          ) : null}
          <form
            onSubmit={(event) => {
              event.preventDefault();
              const id = jumpTo.trim();
              if (!id) return;
              // Example order pages by example id, so the page that starts at an example is that id as the cursor.
              if (byDelta) setView('sort', null);
              setCursors([undefined, id]);
            }}
          >
            <Group gap="xs" align="flex-end">
              <TextInput
                label="Go to example"
                placeholder="An example's id"
                size="sm"
                w={260}
                value={jumpTo}
                onChange={(event) => setJumpTo(event.currentTarget.value)}
              />
              <Button type="submit" variant="default" size="sm">
                Go
              </Button>
            </Group>
          </form>
          <Paper withBorder radius="md" style={{ overflow: 'auto' }}>
            <Table aria-label="Comparison" verticalSpacing="sm" style={{ tableLayout: 'fixed', minWidth: 320 + 360 * experiments.length }}>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th w={320}>Example</Table.Th>
                  {experiments.map((experiment) => (
                    <Table.Th key={experiment.id}>{experiment.name}</Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {comparison.data.data.map((row) => (
                  <Table.Tr key={row.example.node_id} data-testid="comparison-row">
                    <Table.Td style={{ verticalAlign: 'top' }}>
                      <CopyableId value={row.example.id} label="Copy the example's id" />
                      <Text size="xs" c="dimmed">
                        Input
                      </Text>
                      <Json value={row.example.input} />
                      <Text size="xs" c="dimmed" mt={4}>
                        Expected
                      </Text>
                      <Json value={row.example.output} />
                    </Table.Td>
                    {row.runs.map((runs, index) => (
                      <Table.Td key={experiments[index]?.id ?? index} style={{ verticalAlign: 'top' }}>
                        {runs.length === 0 ? (
                          <Text size="sm" c="dimmed">
                            not run
                          </Text>
                        ) : (
                          <Stack gap="xs">
                            {index > 0 ? (
                              <ScoreDelta base={meanOf(row.runs[0] ?? [], scoreName)} value={meanOf(runs, scoreName)} name={scoreName} />
                            ) : null}
                            {runs.map((run) => (
                              <RunCell
                                key={run.id}
                                run={run}
                                projectName={experiments[index]?.project_name ?? null}
                                repetitions={experiments[index]?.repetitions ?? 1}
                              />
                            ))}
                          </Stack>
                        )}
                      </Table.Td>
                    ))}
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Paper>
          <Group justify="flex-end" gap="xs">
            <Text size="sm" c="dimmed">
              Page {cursors.length}
            </Text>
            <Button
              variant="default"
              leftSection={<IconChevronLeft size={16} />}
              disabled={cursors.length === 1}
              onClick={() => setCursors((current) => current.slice(0, -1))}
            >
              Previous
            </Button>
            <Button
              variant="default"
              rightSection={<IconChevronRight size={16} />}
              disabled={!comparison.data.next_cursor}
              onClick={() => setCursors((current) => [...current, comparison.data?.next_cursor ?? undefined])}
            >
              Next
            </Button>
          </Group>
        </>
      )}
    </Stack>
  );
}
