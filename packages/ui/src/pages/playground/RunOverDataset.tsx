/**
 * "Run over dataset": the playground's prompt run once per example of a dataset, the example's
 * input filling the template variables by name, recorded as an experiment (docs/experiments.md)
 * whose runs carry the answer and the run's trace in the playground project; then a link to the
 * comparison page.
 */
import { useRef, useState } from 'react';
import { Link } from 'react-router';
import { Alert, Anchor, Button, Group, Modal, Progress, Select, Stack, Text, TextInput } from '@mantine/core';
import { IconDatabase, IconExternalLink } from '@tabler/icons-react';
import { call, client } from '../../api/http';
import { completeChat } from './chat';
import { useDatasets } from '../datasets/queries';
import {
  chatRequest,
  draftProblems,
  missingVariables,
  templateVariables,
  valuesFromInput,
  type PlaygroundDraft,
} from '../../lib/playground';

/** Calls in flight at once: enough to be quick, few enough not to trip a provider's rate limit. */
const CONCURRENCY = 4;

type Progressing =
  | { status: 'idle' }
  | { status: 'running'; total: number; done: number; failed: number }
  | { status: 'done'; total: number; done: number; failed: number; datasetId: string; experimentId: string }
  | { status: 'failed'; message: string };

/** The comparison page of one experiment. */
export function comparePath(datasetId: string, experimentId: string): string {
  return `/datasets/${encodeURIComponent(datasetId)}/compare?experimentId=${encodeURIComponent(experimentId)}`;
}

/** Runs `work` over `items`, at most `limit` at once, stopping early when `signal` aborts. */
async function pool<T>(items: readonly T[], limit: number, signal: AbortSignal, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal.aborted) {
      const item = items[next] as T;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function RunForm({ draft }: { draft: PlaygroundDraft }) {
  const datasets = useDatasets();
  const [datasetId, setDatasetId] = useState<string | null>(null);
  const [name, setName] = useState(`playground ${draft.provider}:${draft.model}`);
  const [progress, setProgress] = useState<Progressing>({ status: 'idle' });
  const abort = useRef<AbortController | null>(null);
  const problems = draftProblems(draft);
  const variables = templateVariables(draft.messages, draft.templateFormat);

  const start = async (dataset: string) => {
    const controller = new AbortController();
    abort.current = controller;
    try {
      const { version_id, examples } = (
        await call(client.GET('/v1/datasets/{id}/examples', { params: { path: { id: dataset } }, signal: controller.signal }))
      ).data;
      if (examples.length === 0) throw new Error('The dataset has no examples.');
      const experiment = (
        await call(
          client.POST('/v1/datasets/{dataset_id}/experiments', {
            params: { path: { dataset_id: dataset } },
            body: {
              name: name.trim() || null,
              version_id,
              // The runs' traces are written to the playground project by the server (docs/playground.md).
              project_name: 'playground',
              metadata: { source: 'playground', model: `${draft.provider}:${draft.model}` },
            },
          }),
        )
      ).data;
      const counts = { total: examples.length, done: 0, failed: 0 };
      setProgress({ status: 'running', ...counts });
      await pool(examples, CONCURRENCY, controller.signal, async (example) => {
        const values = { ...draft.variables, ...valuesFromInput(example.input) };
        const missing = missingVariables(variables, values);
        const startTime = new Date().toISOString();
        let output: string | null = null;
        let error: string | null = null;
        let traceId: string | null = null;
        if (missing.length > 0) {
          error = `The example's input has no ${missing.join(', ')}.`;
        } else {
          try {
            const result = await completeChat(chatRequest(draft, values, false), controller.signal);
            output = result.content;
            traceId = result.traceId;
          } catch (failure) {
            error = failure instanceof Error ? failure.message : String(failure);
            traceId = (failure as { traceId?: string | null }).traceId ?? null;
          }
        }
        if (controller.signal.aborted) return;
        await call(
          client.POST('/v1/experiments/{experiment_id}/runs', {
            params: { path: { experiment_id: experiment.id } },
            body: {
              dataset_example_id: example.node_id,
              output,
              repetition_number: 1,
              start_time: startTime,
              end_time: new Date().toISOString(),
              trace_id: traceId,
              error,
            },
          }),
        );
        counts.done += 1;
        if (error) counts.failed += 1;
        setProgress({ status: 'running', ...counts });
      });
      if (controller.signal.aborted) throw new Error('Stopped; the runs recorded so far stay in the experiment.');
      setProgress({ status: 'done', ...counts, datasetId: dataset, experimentId: experiment.id });
    } catch (failure) {
      setProgress({ status: 'failed', message: failure instanceof Error ? failure.message : String(failure) });
    } finally {
      abort.current = null;
    }
  };

  const running = progress.status === 'running';
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        Each example's input fills the variables of the same name ({variables.length > 0 ? variables.join(', ') : 'none'}); the values typed
        in the playground fill the rest. {CONCURRENCY} calls run at once.
      </Text>
      <Select
        label="Dataset"
        placeholder={datasets.isPending ? 'Loading…' : 'Choose a dataset'}
        data={(datasets.data ?? []).map((dataset) => ({ value: dataset.id, label: `${dataset.name} (${dataset.example_count})` }))}
        value={datasetId}
        onChange={setDatasetId}
        searchable
        disabled={running}
        comboboxProps={{ withinPortal: true }}
      />
      <TextInput label="Experiment name" value={name} onChange={(event) => setName(event.currentTarget.value)} disabled={running} />
      {problems.length > 0 ? <Alert color="yellow">{problems.join(' ')}</Alert> : null}
      {progress.status === 'running' || progress.status === 'done' ? (
        <Stack gap={4} data-testid="dataset-run-progress">
          <Progress value={(progress.done / progress.total) * 100} animated={running} />
          <Text size="sm">
            {progress.done} of {progress.total} examples run{progress.failed > 0 ? `, ${progress.failed} failed` : ''}
          </Text>
        </Stack>
      ) : null}
      {progress.status === 'failed' ? (
        <Alert color="red" title="The run over the dataset stopped">
          {progress.message}
        </Alert>
      ) : null}
      {progress.status === 'done' ? (
        <Anchor component={Link} to={comparePath(progress.datasetId, progress.experimentId)}>
          <Group gap={4}>
            <IconExternalLink size={14} />
            Open the experiment
          </Group>
        </Anchor>
      ) : null}
      <Group justify="flex-end">
        {running ? (
          <Button color="red" variant="light" onClick={() => abort.current?.abort()}>
            Stop
          </Button>
        ) : (
          <Button onClick={() => datasetId && void start(datasetId)} disabled={!datasetId || problems.length > 0}>
            {progress.status === 'done' ? 'Run again' : 'Run'}
          </Button>
        )}
      </Group>
    </Stack>
  );
}

/** The button and its dialog (closing the dialog while it runs keeps the run going). */
export function RunOverDatasetButton({ draft }: { draft: PlaygroundDraft }) {
  const [opened, setOpened] = useState(false);
  return (
    <>
      <Button variant="default" leftSection={<IconDatabase size={16} />} onClick={() => setOpened(true)}>
        Run over dataset
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title="Run the prompt over a dataset" size="lg" keepMounted>
        <RunForm draft={draft} />
      </Modal>
    </>
  );
}
