/**
 * One run's answer as it streams (docs/playground.md): the text, the tool calls the model made
 * (name and arguments) with a field for each call's result and "Send results", which continues the
 * conversation; then the tokens, the latency and the run's trace.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { Alert, Anchor, Badge, Button, Code, Group, Paper, Stack, Text, Textarea } from '@mantine/core';
import { IconAlertTriangle, IconExternalLink, IconSend } from '@tabler/icons-react';
import { ChatError, type ChatResult } from './chat';
import { formatDuration, formatInt } from '../../lib/format';
import type { DraftToolCall } from '../../lib/playground';

/** The playground project's trace view of a run (docs/playground.md: runs are traced into `playground`). */
export function playgroundTracePath(traceId: string): string {
  return `/projects/playground/traces/${traceId}`;
}

export type RunState =
  | { status: 'idle' }
  | { status: 'running'; text: string; toolCalls: DraftToolCall[] }
  | { status: 'done'; text: string; toolCalls: DraftToolCall[]; result: ChatResult }
  | { status: 'failed'; text: string; toolCalls: DraftToolCall[]; error: ChatError | Error };

/** Arguments as indented JSON when they parse, else as they came. */
function prettyArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function RunOutput({
  run,
  onSendResults,
}: {
  run: RunState;
  /** Continues the conversation with the answer's calls and the results typed for them, in order. */
  onSendResults: (text: string, calls: DraftToolCall[], results: string[]) => void;
}) {
  if (run.status === 'idle') {
    return (
      <Text size="sm" c="dimmed">
        The answer appears here as it streams.
      </Text>
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
      {run.text || run.toolCalls.length > 0 || run.status !== 'failed' ? (
        <Paper withBorder p="sm" radius="md">
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
          {run.text || run.toolCalls.length === 0 ? (
            <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} data-testid="playground-output">
              {run.text}
            </Text>
          ) : null}
          {run.status === 'done' && run.toolCalls.length > 0 ? (
            <ToolResults key={run.result.traceId ?? ''} text={run.text} calls={run.toolCalls} onSend={onSendResults} />
          ) : run.toolCalls.length > 0 ? (
            <Stack gap={6} mt={run.text ? 6 : 0}>
              {run.toolCalls.map((call) => (
                <ToolCallView key={call.id || call.name} call={call} />
              ))}
            </Stack>
          ) : null}
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

function ToolCallView({ call }: { call: DraftToolCall }) {
  return (
    <Stack gap={2} data-testid="playground-tool-call">
      <Group gap="xs">
        <Badge variant="light" color="grape" tt="none" data-testid="playground-tool-call-name">
          {call.name || '…'}
        </Badge>
        <Text size="xs" c="dimmed">
          {call.id}
        </Text>
      </Group>
      <Code block data-testid="playground-tool-call-arguments" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
        {prettyArguments(call.arguments)}
      </Code>
    </Stack>
  );
}

/** The calls of a finished answer, each with its result to type, and the button that sends them. */
function ToolResults({
  text,
  calls,
  onSend,
}: {
  text: string;
  calls: DraftToolCall[];
  onSend: (text: string, calls: DraftToolCall[], results: string[]) => void;
}) {
  const [results, setResults] = useState(() => calls.map(() => ''));
  return (
    <Stack gap="sm" mt={text ? 6 : 0}>
      {calls.map((call, index) => (
        <Stack key={call.id || index} gap={4}>
          <ToolCallView call={call} />
          <Textarea
            size="xs"
            autosize
            minRows={1}
            maxRows={8}
            aria-label={`Result of ${call.name}`}
            placeholder={`What ${call.name} returned (text or JSON)`}
            value={results[index]}
            onChange={(event) => {
              const value = event.currentTarget.value;
              setResults((current) => current.map((result, at) => (at === index ? value : result)));
            }}
          />
        </Stack>
      ))}
      <Group>
        <Button size="xs" leftSection={<IconSend size={14} />} onClick={() => onSend(text, calls, results)}>
          {calls.length === 1 ? 'Send result' : 'Send results'}
        </Button>
        <Text size="xs" c="dimmed">
          Adds the calls and their results to the messages, then runs again.
        </Text>
      </Group>
    </Stack>
  );
}
