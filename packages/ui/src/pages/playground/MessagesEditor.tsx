/**
 * The playground's messages (docs/playground.md): system, user and assistant text, assistant
 * messages holding the tool calls a model made, and tool messages holding a call's result.
 */
import {
  ActionIcon,
  Badge,
  Button,
  Code,
  Group,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Textarea,
  Tooltip,
} from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { newMessage, type DraftMessage, type PlaygroundDraft, type Role, type TemplateFormat } from '../../lib/playground';

const ROLES: { value: Role; label: string }[] = [
  { value: 'system', label: 'system' },
  { value: 'user', label: 'user' },
  { value: 'assistant', label: 'assistant' },
  { value: 'tool', label: 'tool' },
];

export function MessagesEditor({ draft, update }: { draft: PlaygroundDraft; update: (change: Partial<PlaygroundDraft>) => void }) {
  const setMessage = (id: string, change: Partial<DraftMessage>) =>
    update({ messages: draft.messages.map((message) => (message.id === id ? { ...message, ...change } : message)) });
  // Call ids of the assistant messages, offered to tool messages.
  const callIds = draft.messages.flatMap((message) => (message.toolCalls ?? []).map((call) => call.id));
  return (
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
            <Group justify="space-between" mb={6} wrap="nowrap">
              <Group gap="xs" wrap="nowrap" style={{ flex: 1, minWidth: 0 }}>
                <Select
                  size="xs"
                  w={130}
                  aria-label={`Role of message ${index + 1}`}
                  data={ROLES}
                  value={message.role}
                  onChange={(value) => value && setMessage(message.id, { role: value as Role })}
                  allowDeselect={false}
                />
                {message.role === 'tool' ? (
                  <TextInput
                    size="xs"
                    style={{ flex: 1, minWidth: 0, maxWidth: 260 }}
                    aria-label={`Tool call id of message ${index + 1}`}
                    placeholder="call id"
                    value={message.toolCallId ?? ''}
                    onChange={(event) => setMessage(message.id, { toolCallId: event.currentTarget.value })}
                    list={`tool-call-ids-${message.id}`}
                  />
                ) : null}
                {message.role === 'tool' ? (
                  <datalist id={`tool-call-ids-${message.id}`}>
                    {callIds.map((id) => (
                      <option key={id} value={id} />
                    ))}
                  </datalist>
                ) : null}
              </Group>
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
              minRows={message.role === 'tool' || message.toolCalls?.length ? 1 : 2}
              maxRows={16}
              placeholder={
                message.role === 'tool' ? "The tool's result" : message.toolCalls?.length ? 'No text beside the calls' : undefined
              }
              value={message.content}
              onChange={(event) => setMessage(message.id, { content: event.currentTarget.value })}
            />
            {message.role === 'assistant' && message.toolCalls?.length ? (
              <Stack gap={4} mt={6} data-testid="playground-message-tool-calls">
                {message.toolCalls.map((call) => (
                  <Stack key={call.id} gap={2}>
                    <Group gap="xs" wrap="nowrap">
                      <Badge variant="light" color="grape" tt="none" style={{ flexShrink: 0 }}>
                        {call.name}
                      </Badge>
                      <Text size="xs" c="dimmed" truncate>
                        {call.id}
                      </Text>
                    </Group>
                    <Code style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{call.arguments}</Code>
                  </Stack>
                ))}
              </Stack>
            ) : null}
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
  );
}
