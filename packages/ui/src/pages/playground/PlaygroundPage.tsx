/**
 * `/playground`: edit a chat prompt (messages, template variables, tools, response format), run
 * it on up to four models side by side with each answer streamed token by token, save it as a
 * prompt version, or run it over a dataset as an experiment (docs/playground.md). "Open in
 * playground" on a prompt version and "Replay in playground" on an LLM span arrive here with the
 * draft as router state.
 */
import { useRef, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { Alert, Anchor, Button, Grid, Group, Paper, SimpleGrid, Stack, Text, Textarea, Title } from '@mantine/core';
import { IconAlertTriangle, IconPlayerPlay, IconPlayerStop, IconPlus } from '@tabler/icons-react';
import { streamChat } from './chat';
import { MessagesEditor } from './MessagesEditor';
import { ToolsEditor } from './ToolsEditor';
import { ResponseFormatEditor } from './ResponseFormatEditor';
import type { RunState } from './RunOutput';
import { ModelColumn } from './ModelColumn';
import { SavePromptButton } from './SavePrompt';
import { RunOverDatasetButton } from './RunOverDataset';
import { promptPath } from '../prompts/PromptsPage';
import {
  MAX_MODELS,
  chatRequest,
  draftProblems,
  emptyDraft,
  missingVariables,
  modelOf,
  newMessage,
  templateVariables,
  type DraftToolCall,
  type ModelSettings,
  type PlaygroundDraft,
} from '../../lib/playground';
import { usePageTitle } from '../../lib/pageTitle';

/** What router state "Open in playground" passes. */
export interface PlaygroundLocationState {
  draft: PlaygroundDraft;
}

/** A model column after the first (the first is the draft's own model). */
interface OtherColumn {
  id: string;
  settings: ModelSettings;
}

const FIRST = 'first';
let nextColumn = 0;

/** What keeps a column other than the first from running (the first's problems are the draft's). */
const columnProblems = (settings: ModelSettings, index: number) =>
  settings.model.trim() ? [] : [`Choose a model for model ${index + 1}.`];

/** The page: reads the router state once per navigation (a new "Open in playground" remounts it). */
export function PlaygroundPage() {
  usePageTitle('Playground');
  const location = useLocation();
  const state = location.state as PlaygroundLocationState | null;
  return <Playground key={location.key} initial={state?.draft ?? emptyDraft()} />;
}

function Playground({ initial }: { initial: PlaygroundDraft }) {
  const [draft, setDraft] = useState(initial);
  const [others, setOthers] = useState<OtherColumn[]>([]);
  const [runs, setRuns] = useState<Record<string, RunState>>({});
  const [tried, setTried] = useState(false);
  const controllers = useRef(new Map<string, AbortController>());

  const variables = templateVariables(draft.messages, draft.templateFormat);
  const missing = missingVariables(variables, draft.variables);
  const columns = [{ id: FIRST, settings: modelOf(draft) }, ...others];
  const problems = [...draftProblems(draft), ...others.flatMap((column, index) => columnProblems(column.settings, index + 1))];
  const running = columns.some((column) => runs[column.id]?.status === 'running');
  const update = (change: Partial<PlaygroundDraft>) => setDraft((current) => ({ ...current, ...change }));
  const setRun = (id: string, run: RunState) => setRuns((current) => ({ ...current, [id]: run }));

  /** Runs one column's model on `current`, streaming into the column. */
  const runColumn = async (id: string, current: PlaygroundDraft) => {
    const controller = new AbortController();
    controllers.current.set(id, controller);
    setRun(id, { status: 'running', text: '', toolCalls: [] });
    let progress = { content: '', toolCalls: [] as DraftToolCall[] };
    try {
      const result = await streamChat(
        chatRequest(current, current.variables, true),
        (next) => {
          progress = next;
          setRun(id, { status: 'running', text: next.content, toolCalls: next.toolCalls });
        },
        controller.signal,
      );
      setRun(id, { status: 'done', text: result.content, toolCalls: result.toolCalls, result });
    } catch (error) {
      const failure = controller.signal.aborted ? new Error('Stopped.') : error instanceof Error ? error : new Error(String(error));
      setRun(id, { status: 'failed', text: progress.content, toolCalls: progress.toolCalls, error: failure });
    } finally {
      controllers.current.delete(id);
    }
  };

  /** Runs every column on `current` (the draft, or the draft just extended with tool results), all at once. */
  const start = (current: PlaygroundDraft) => {
    setTried(true);
    const unfilled = missingVariables(templateVariables(current.messages, current.templateFormat), current.variables);
    const otherProblems = others.flatMap((column, index) => columnProblems(column.settings, index + 1));
    if (unfilled.length > 0 || draftProblems(current).length > 0 || otherProblems.length > 0) return;
    // Each column is its own call of the route, so each run is its own traced span.
    for (const column of [{ id: FIRST, settings: modelOf(current) }, ...others]) {
      void runColumn(column.id, { ...current, ...column.settings });
    }
  };

  /** The answer's calls and their results join the messages, and the conversation goes on (docs/playground.md, "Tools"). */
  const sendResults = (text: string, calls: DraftToolCall[], results: string[]) => {
    const assistant = { ...newMessage('assistant', text), toolCalls: calls };
    const answers = calls.map((call, index) => ({ ...newMessage('tool', results[index] ?? ''), toolCallId: call.id }));
    const next = { ...draft, messages: [...draft.messages, assistant, ...answers] };
    setDraft(next);
    start(next);
  };

  const addModel = () => {
    nextColumn += 1;
    // A copy of the first model, to change the provider or model of.
    setOthers((current) => [...current, { id: `column-${nextColumn}`, settings: modelOf(draft) }]);
  };

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={2}>Playground</Title>
          <Text size="sm" c="dimmed">
            Runs go through <code>POST /v1/chat/completions</code> and are traced in the <b>playground</b> project.
            {draft.source ? ` Opened from ${draft.source}.` : ''}
          </Text>
        </div>
        <Group gap="xs">
          {draft.promptName ? (
            <Anchor component={Link} to={promptPath(draft.promptName)} size="sm" data-testid="playground-prompt">
              prompt {draft.promptName}
            </Anchor>
          ) : null}
          <SavePromptButton draft={draft} onSaved={(name) => update({ promptName: name })} />
          <RunOverDatasetButton draft={draft} />
        </Group>
      </Group>

      {draft.warnings && draft.warnings.length > 0 ? (
        <Alert color="yellow" icon={<IconAlertTriangle size={18} />} title="Not everything could be carried over" withCloseButton={false}>
          <Stack gap={2}>
            {draft.warnings.map((warning) => (
              <Text key={warning} size="sm">
                {warning}
              </Text>
            ))}
          </Stack>
        </Alert>
      ) : null}

      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Stack gap="md">
            <MessagesEditor draft={draft} update={update} />
            <ToolsEditor draft={draft} update={update} />
          </Stack>
        </Grid.Col>

        <Grid.Col span={{ base: 12, md: 5 }}>
          <Stack gap="md">
            <Paper withBorder p="md" radius="md">
              <Stack gap="sm">
                <Text fw={600}>Variables</Text>
                {variables.length === 0 ? (
                  <Text size="sm" c="dimmed">
                    {draft.templateFormat === 'NONE'
                      ? 'Variables are off: the messages are sent as written.'
                      : `No variables. Write ${draft.templateFormat === 'MUSTACHE' ? '{{name}}' : '{name}'} in a message to add one.`}
                  </Text>
                ) : (
                  variables.map((name) => (
                    <Textarea
                      key={name}
                      label={name}
                      autosize
                      minRows={1}
                      maxRows={8}
                      value={draft.variables[name] ?? ''}
                      error={tried && missing.includes(name) ? `Fill in ${name}` : undefined}
                      onChange={(event) => update({ variables: { ...draft.variables, [name]: event.currentTarget.value } })}
                    />
                  ))
                )}
              </Stack>
            </Paper>
            <ResponseFormatEditor draft={draft} providers={columns.map((column) => column.settings.provider)} update={update} />
          </Stack>
        </Grid.Col>
      </Grid>

      <Group justify="space-between" align="center">
        <Group gap="xs">
          {running ? (
            <Button
              color="red"
              variant="light"
              leftSection={<IconPlayerStop size={16} />}
              onClick={() => {
                for (const controller of controllers.current.values()) controller.abort();
              }}
            >
              Stop
            </Button>
          ) : (
            <Button leftSection={<IconPlayerPlay size={16} />} onClick={() => start(draft)}>
              Run
            </Button>
          )}
          <Button
            variant="default"
            leftSection={<IconPlus size={16} />}
            disabled={columns.length >= MAX_MODELS || running}
            onClick={addModel}
          >
            Add model
          </Button>
        </Group>
        <Text size="xs" c="dimmed">
          {columns.length === 1
            ? `Add up to ${MAX_MODELS - 1} more models to run the same messages side by side.`
            : `${columns.length} models run the same messages at once, each traced as its own run.`}
        </Text>
      </Group>
      {tried && (missing.length > 0 || problems.length > 0) ? (
        <Alert color="red" icon={<IconAlertTriangle size={18} />} title="Cannot run yet" data-testid="playground-problems">
          {[...problems, ...(missing.length > 0 ? [`Fill in the variables: ${missing.join(', ')}.`] : [])].join(' ')}
        </Alert>
      ) : null}

      <SimpleGrid cols={{ base: 1, sm: Math.min(columns.length, 2), lg: columns.length }} spacing="md" data-testid="playground-columns">
        {columns.map((column, index) => (
          <ModelColumn
            key={column.id}
            index={index}
            settings={column.settings}
            run={runs[column.id] ?? { status: 'idle' }}
            onChange={(change) => {
              if (column.id === FIRST) update(change);
              else
                setOthers((current) =>
                  current.map((other) => (other.id === column.id ? { ...other, settings: { ...other.settings, ...change } } : other)),
                );
            }}
            onRemove={column.id === FIRST ? undefined : () => setOthers((current) => current.filter((other) => other.id !== column.id))}
            onSendResults={sendResults}
          />
        ))}
      </SimpleGrid>
    </Stack>
  );
}
