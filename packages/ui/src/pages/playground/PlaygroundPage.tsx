/**
 * `/playground`: edit a chat prompt (provider:model, messages, template variables, parameters),
 * run it with the answer streamed token by token, save it as a prompt version, or run it over a
 * dataset as an experiment (docs/playground.md). "Open in playground" on a prompt version and
 * "Replay in playground" on an LLM span arrive here with the draft as router state.
 */
import { useRef, useState } from 'react';
import { Link, useLocation } from 'react-router';
import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Grid,
  Group,
  NumberInput,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Textarea,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconAlertTriangle, IconExternalLink, IconPlayerPlay, IconPlayerStop, IconPlus, IconTrash } from '@tabler/icons-react';
import { ChatError, streamChat, type ChatResult } from './chat';
import { formatDuration, formatInt } from '../../lib/format';
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
  type PlaygroundDraft,
  type Provider,
  type Role,
  type TemplateFormat,
} from '../../lib/playground';
import { usePageTitle } from '../../lib/pageTitle';

/** The playground project's trace view of a run (docs/playground.md: runs are traced into `playground`). */
export function playgroundTracePath(traceId: string): string {
  return `/projects/playground/traces/${traceId}`;
}

/** What router state "Open in playground" passes. */
export interface PlaygroundLocationState {
  draft: PlaygroundDraft;
}

const ROLES: { value: Role; label: string }[] = [
  { value: 'system', label: 'system' },
  { value: 'user', label: 'user' },
  { value: 'assistant', label: 'assistant' },
];

/** A number input's value as a number or null when blank. */
const numberOrNull = (value: number | string): number | null => (value === '' || value === null ? null : Number(value));

type RunState =
  | { status: 'idle' }
  | { status: 'running'; text: string }
  | { status: 'done'; text: string; result: ChatResult }
  | { status: 'failed'; text: string; error: ChatError | Error };

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
  const setMessage = (id: string, change: { role?: Role; content?: string }) =>
    setDraft((current) => ({
      ...current,
      messages: current.messages.map((message) => (message.id === id ? { ...message, ...change } : message)),
    }));
  const provider = PROVIDERS.find((candidate) => candidate.value === draft.provider) ?? PROVIDERS[0];

  const start = async () => {
    setTried(true);
    if (missing.length > 0 || problems.length > 0) return;
    const controller = new AbortController();
    abort.current = controller;
    setRun({ status: 'running', text: '' });
    let text = '';
    try {
      const result = await streamChat(
        chatRequest(draft, draft.variables, true),
        (delta) => {
          text += delta;
          setRun({ status: 'running', text });
        },
        controller.signal,
      );
      setRun({ status: 'done', text: result.content, result });
    } catch (error) {
      if (controller.signal.aborted) setRun({ status: 'failed', text, error: new Error('Stopped.') });
      else setRun({ status: 'failed', text, error: error instanceof Error ? error : new Error(String(error)) });
    } finally {
      abort.current = null;
    }
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

            <Paper withBorder p="md" radius="md">
              <Stack gap="sm">
                <Group justify="space-between">
                  <Text fw={600}>Messages</Text>
                  <Group gap="xs">
                    <Text size="xs" c="dimmed">
                      Variables
                    </Text>
                    <SegmentedControl
                      size="xs"
                      aria-label="Template format"
                      value={draft.templateFormat}
                      onChange={(value) => update({ templateFormat: value as TemplateFormat })}
                      data={[
                        { value: 'MUSTACHE', label: '{{mustache}}' },
                        { value: 'F_STRING', label: '{f-string}' },
                        { value: 'NONE', label: 'none' },
                      ]}
                    />
                  </Group>
                </Group>
                {draft.messages.map((message, index) => (
                  <Paper key={message.id} withBorder p="sm" radius="sm" data-testid="playground-message">
                    <Group justify="space-between" mb={6}>
                      <Select
                        size="xs"
                        w={130}
                        aria-label={`Role of message ${index + 1}`}
                        data={ROLES}
                        value={message.role}
                        onChange={(value) => value && setMessage(message.id, { role: value as Role })}
                        allowDeselect={false}
                      />
                      <Tooltip label="Remove this message">
                        <ActionIcon
                          variant="subtle"
                          color="gray"
                          aria-label={`Remove message ${index + 1}`}
                          disabled={draft.messages.length === 1}
                          onClick={() => update({ messages: draft.messages.filter((candidate) => candidate.id !== message.id) })}
                        >
                          <IconTrash size={16} />
                        </ActionIcon>
                      </Tooltip>
                    </Group>
                    <Textarea
                      aria-label={`Message ${index + 1}`}
                      autosize
                      minRows={2}
                      maxRows={16}
                      value={message.content}
                      onChange={(event) => setMessage(message.id, { content: event.currentTarget.value })}
                    />
                  </Paper>
                ))}
                <Group>
                  <Button
                    variant="default"
                    size="xs"
                    leftSection={<IconPlus size={14} />}
                    onClick={() => {
                      const last = draft.messages.at(-1)?.role;
                      update({ messages: [...draft.messages, newMessage(last === 'user' ? 'assistant' : 'user')] });
                    }}
                  >
                    Add message
                  </Button>
                </Group>
              </Stack>
            </Paper>
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
                <Button leftSection={<IconPlayerPlay size={16} />} onClick={() => void start()}>
                  Run
                </Button>
              )}
            </Group>
            {tried && (missing.length > 0 || problems.length > 0) ? (
              <Alert color="red" icon={<IconAlertTriangle size={18} />} title="Cannot run yet" data-testid="playground-problems">
                {[...problems, ...(missing.length > 0 ? [`Fill in the variables: ${missing.join(', ')}.`] : [])].join(' ')}
              </Alert>
            ) : null}

            <Output run={run} />
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

function Output({ run }: { run: RunState }) {
  if (run.status === 'idle') {
    return (
      <Paper withBorder p="md" radius="md">
        <Text size="sm" c="dimmed">
          The answer appears here as it streams.
        </Text>
      </Paper>
    );
  }
  const traceId =
    run.status === 'done' ? run.result.traceId : run.status === 'failed' && run.error instanceof ChatError ? run.error.traceId : null;
  return (
    <Stack gap="sm">
      {run.status === 'failed' ? (
        <Alert color="red" icon={<IconAlertTriangle size={18} />} title="The run failed" data-testid="playground-error">
          {run.error.message}
        </Alert>
      ) : null}
      {run.text || run.status !== 'failed' ? (
        <Paper withBorder p="md" radius="md">
          <Group justify="space-between" mb={6}>
            <Badge variant="light" color="violet">
              assistant
            </Badge>
            {run.status === 'running' ? (
              <Text size="xs" c="dimmed">
                streaming…
              </Text>
            ) : null}
          </Group>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} data-testid="playground-output">
            {run.text}
          </Text>
        </Paper>
      ) : null}
      {run.status === 'done' ? (
        <Group gap="lg" data-testid="playground-stats">
          <Text size="sm">
            <Text span c="dimmed">
              Latency{' '}
            </Text>
            <b data-testid="playground-latency">{formatDuration(run.result.latencyMs)}</b>
          </Text>
          <Text size="sm">
            <Text span c="dimmed">
              Tokens{' '}
            </Text>
            <b data-testid="playground-tokens">
              {run.result.usage
                ? `${formatInt(run.result.usage.prompt_tokens)} + ${formatInt(run.result.usage.completion_tokens)} = ${formatInt(run.result.usage.total_tokens)}`
                : 'not reported'}
            </b>
          </Text>
        </Group>
      ) : null}
      {traceId ? (
        <Anchor component={Link} to={playgroundTracePath(traceId)} size="sm">
          <Group gap={4}>
            <IconExternalLink size={14} />
            Open the run's trace
          </Group>
        </Anchor>
      ) : null}
    </Stack>
  );
}
