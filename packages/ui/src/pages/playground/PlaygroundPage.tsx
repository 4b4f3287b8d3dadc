/**
 * `/playground`: edit a chat prompt (provider:model, messages, template variables, parameters),
 * run it with the answer streamed token by token, save it as a prompt version, or run it over a
 * dataset as an experiment (docs/playground.md). "Open in playground" on a prompt version and
 * "Replay in playground" on an LLM span arrive here with the draft as router state.
 */
import { useRef, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { Alert, Anchor, Button, Grid, Group, NumberInput, Paper, Select, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { IconAlertTriangle, IconPlayerPlay, IconPlayerStop } from '@tabler/icons-react';
import { streamChat } from './chat';
import { MessagesEditor } from './MessagesEditor';
import { ToolsEditor } from './ToolsEditor';
import { ResponseFormatEditor } from './ResponseFormatEditor';
import { RunOutput, type RunState } from './RunOutput';
import { SavePromptButton } from './SavePrompt';
import { RunOverDatasetButton } from './RunOverDataset';
import { promptPath } from '../prompts/PromptsPage';
import {
  PROVIDERS,
  chatRequest,
  draftProblems,
  emptyDraft,
  missingVariables,
  newMessage,
  templateVariables,
  type DraftToolCall,
  type PlaygroundDraft,
  type Provider,
} from '../../lib/playground';
import { usePageTitle } from '../../lib/pageTitle';

/** What router state "Open in playground" passes. */
export interface PlaygroundLocationState {
  draft: PlaygroundDraft;
}

/** A number input's value as a number or null when blank. */
const numberOrNull = (value: number | string): number | null => (value === '' || value === null ? null : Number(value));

/** The page: reads the router state once per navigation (a new "Open in playground" remounts it). */
export function PlaygroundPage() {
  usePageTitle('Playground');
  const location = useLocation();
  const state = location.state as PlaygroundLocationState | null;
  return <Playground key={location.key} initial={state?.draft ?? emptyDraft()} />;
}

function Playground({ initial }: { initial: PlaygroundDraft }) {
  const [draft, setDraft] = useState(initial);
  const [run, setRun] = useState<RunState>({ status: 'idle' });
  const [tried, setTried] = useState(false);
  const abort = useRef<AbortController | null>(null);

  const variables = templateVariables(draft.messages, draft.templateFormat);
  const missing = missingVariables(variables, draft.variables);
  const problems = draftProblems(draft);
  const update = (change: Partial<PlaygroundDraft>) => setDraft((current) => ({ ...current, ...change }));
  const provider = PROVIDERS.find((candidate) => candidate.value === draft.provider) ?? PROVIDERS[0];

  /** Runs `current` (the draft, or the draft just extended with tool results). */
  const start = async (current: PlaygroundDraft) => {
    setTried(true);
    const unfilled = missingVariables(templateVariables(current.messages, current.templateFormat), current.variables);
    if (unfilled.length > 0 || draftProblems(current).length > 0) return;
    const controller = new AbortController();
    abort.current = controller;
    setRun({ status: 'running', text: '', toolCalls: [] });
    let progress = { content: '', toolCalls: [] as DraftToolCall[] };
    try {
      const result = await streamChat(
        chatRequest(current, current.variables, true),
        (next) => {
          progress = next;
          setRun({ status: 'running', text: next.content, toolCalls: next.toolCalls });
        },
        controller.signal,
      );
      setRun({ status: 'done', text: result.content, toolCalls: result.toolCalls, result });
    } catch (error) {
      const failure = controller.signal.aborted ? new Error('Stopped.') : error instanceof Error ? error : new Error(String(error));
      setRun({ status: 'failed', text: progress.content, toolCalls: progress.toolCalls, error: failure });
    } finally {
      abort.current = null;
    }
  };

  /** The answer's calls and their results join the messages, and the conversation goes on (docs/playground.md, "Tools"). */
  const sendResults = (text: string, calls: DraftToolCall[], results: string[]) => {
    const assistant = { ...newMessage('assistant', text), toolCalls: calls };
    const answers = calls.map((call, index) => ({ ...newMessage('tool', results[index] ?? ''), toolCallId: call.id }));
    const next = { ...draft, messages: [...draft.messages, assistant, ...answers] };
    setDraft(next);
    void start(next);
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
            <Paper withBorder p="md" radius="md">
              <Stack gap="sm">
                <Group grow align="flex-start">
                  <Select
                    label="Provider"
                    data={PROVIDERS.map((candidate) => ({ value: candidate.value, label: candidate.label }))}
                    value={draft.provider}
                    onChange={(value) => value && update({ provider: value as Provider })}
                    allowDeselect={false}
                    comboboxProps={{ withinPortal: true }}
                  />
                  <TextInput
                    label="Model"
                    placeholder={provider.example}
                    value={draft.model}
                    onChange={(event) => update({ model: event.currentTarget.value })}
                    description={`Sent as ${draft.provider}:${draft.model.trim() || '…'}`}
                  />
                </Group>
                <Group grow align="flex-start">
                  <NumberInput
                    label="Temperature"
                    placeholder="provider default"
                    min={0}
                    max={2}
                    step={0.1}
                    decimalScale={2}
                    value={draft.temperature ?? ''}
                    onChange={(value) => update({ temperature: numberOrNull(value) })}
                  />
                  <NumberInput
                    label="Max tokens"
                    placeholder={draft.provider === 'anthropic' ? '1024' : 'provider default'}
                    min={1}
                    allowDecimal={false}
                    value={draft.maxTokens ?? ''}
                    onChange={(value) => update({ maxTokens: numberOrNull(value) })}
                  />
                  <NumberInput
                    label="Top p"
                    placeholder="provider default"
                    min={0}
                    max={1}
                    step={0.05}
                    decimalScale={2}
                    value={draft.topP ?? ''}
                    onChange={(value) => update({ topP: numberOrNull(value) })}
                  />
                </Group>
              </Stack>
            </Paper>

            <MessagesEditor draft={draft} update={update} />
            <ToolsEditor draft={draft} update={update} />
            <ResponseFormatEditor draft={draft} providers={[draft.provider]} update={update} />
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

            <Group>
              {run.status === 'running' ? (
                <Button color="red" variant="light" leftSection={<IconPlayerStop size={16} />} onClick={() => abort.current?.abort()}>
                  Stop
                </Button>
              ) : (
                <Button leftSection={<IconPlayerPlay size={16} />} onClick={() => void start(draft)}>
                  Run
                </Button>
              )}
            </Group>
            {tried && (missing.length > 0 || problems.length > 0) ? (
              <Alert color="red" icon={<IconAlertTriangle size={18} />} title="Cannot run yet" data-testid="playground-problems">
                {[...problems, ...(missing.length > 0 ? [`Fill in the variables: ${missing.join(', ')}.`] : [])].join(' ')}
              </Alert>
            ) : null}

            <Paper withBorder p="md" radius="md">
              <RunOutput run={run} onSendResults={sendResults} />
            </Paper>
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
