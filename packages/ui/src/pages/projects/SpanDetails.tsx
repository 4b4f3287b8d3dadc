/** One span in readable sections: LLM messages, input and output, tokens, documents, events, errors and every attribute. */
import type { ReactNode } from 'react';
import {
  Accordion,
  Alert,
  Badge,
  Button,
  Code,
  Group,
  Paper,
  ScrollArea,
  SimpleGrid,
  Stack,
  Table,
  Tabs,
  Text,
  Title,
} from '@mantine/core';
import { IconAlertTriangle, IconBolt, IconInfoCircle, IconList, IconMessages, IconPlayerPlay, IconTag } from '@tabler/icons-react';
import { useNavigate, useParams } from 'react-router';
import { SpanAnnotationPanel } from './AnnotationPanel';
import type { Span, SpanEvent } from '@sightline/client/browser';
import { KindBadge, StatusBadge } from '../../components/Badges';
import { AddToDatasetButton } from './AddToDataset';
import { CopyIcon, CopyableId } from '../../components/Copy';
import { formatDateTime, formatDuration, formatCost, formatInt, isoToMs } from '../../lib/format';
import { attributeSections, chatMessages, documents, prettyJson, type ChatMessage } from '../../lib/openinference';
import { draftFromSpan } from '../../lib/playground';
import type { PlaygroundLocationState } from '../playground/PlaygroundPage';
import {
  INPUT_VALUE,
  LLM_INPUT_MESSAGES,
  LLM_INVOCATION_PARAMETERS,
  LLM_MODEL_NAME,
  LLM_OUTPUT_MESSAGES,
  LLM_PROVIDER,
  LLM_SYSTEM,
  LLM_TOKEN_COUNT_COMPLETION,
  LLM_TOKEN_COUNT_PREFIX,
  LLM_TOKEN_COUNT_PROMPT,
  LLM_TOKEN_COUNT_TOTAL,
  OUTPUT_VALUE,
  RERANKER_OUTPUT_DOCUMENTS,
  RETRIEVAL_DOCUMENTS,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  TOOL_PARAMETERS,
} from '../../lib/attributes';

/** The counts shown in boxes of their own; the other `llm.token_count.*` keys are their details. */
const THREE_COUNTS: ReadonlySet<string> = new Set([LLM_TOKEN_COUNT_PROMPT, LLM_TOKEN_COUNT_COMPLETION, LLM_TOKEN_COUNT_TOTAL]);

const ROLE_COLORS: Record<string, string> = {
  system: 'gray',
  user: 'blue',
  human: 'blue',
  assistant: 'violet',
  ai: 'violet',
  tool: 'orange',
  function: 'orange',
};

function Block({ title, children, copy }: { title: string; children: ReactNode; copy?: string }) {
  return (
    <Stack gap={6}>
      <Group justify="space-between" gap="xs">
        <Text size="xs" fw={700} c="dimmed" tt="uppercase" style={{ letterSpacing: '0.04em' }}>
          {title}
        </Text>
        {copy !== undefined ? <CopyIcon value={copy} label={`Copy ${title.toLowerCase()}`} /> : null}
      </Group>
      {children}
    </Stack>
  );
}

function TextValue({ value }: { value: unknown }) {
  const { text, json } = prettyJson(value);
  return (
    <Paper withBorder p="sm" radius="sm" bg="var(--sl-muted-bg)">
      <ScrollArea.Autosize mah={420} type="auto">
        {json ? (
          <pre className="sl-pre">{text}</pre>
        ) : (
          <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
            {text}
          </Text>
        )}
      </ScrollArea.Autosize>
    </Paper>
  );
}

function Message({ message }: { message: ChatMessage }) {
  return (
    <Paper withBorder p="sm" radius="sm" data-testid="chat-message">
      <Group gap="xs" mb={6}>
        <Badge size="sm" variant="light" color={ROLE_COLORS[message.role.toLowerCase()] ?? 'gray'}>
          {message.role}
        </Badge>
        {message.name ? (
          <Text size="xs" c="dimmed">
            {message.name}
          </Text>
        ) : null}
        {message.toolCallId ? (
          <Text size="xs" c="dimmed" ff="monospace">
            for call {message.toolCallId}
          </Text>
        ) : null}
      </Group>
      {message.content !== undefined ? (
        <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
          {message.content}
        </Text>
      ) : null}
      {message.toolCalls.map((call, index) => (
        <Paper key={call.id ?? index} withBorder p="xs" mt={6} radius="sm" bg="var(--sl-muted-bg)">
          <Group gap={6}>
            <IconBolt size={14} />
            <Text size="sm" fw={600} ff="monospace">
              {call.name ?? 'tool call'}
            </Text>
            {call.id ? (
              <Text size="xs" c="dimmed" ff="monospace">
                {call.id}
              </Text>
            ) : null}
          </Group>
          {call.arguments ? <pre className="sl-pre">{prettyJson(call.arguments).text}</pre> : null}
        </Paper>
      ))}
    </Paper>
  );
}

function isException(event: SpanEvent) {
  return event.name === 'exception' || 'exception.type' in event.attributes || 'exception.message' in event.attributes;
}

function EventItem({ event, spanStartMs }: { event: SpanEvent; spanStartMs: number }) {
  const offset = isoToMs(event.timestamp) - spanStartMs;
  const exception = isException(event);
  const rest = Object.entries(event.attributes).filter(([key]) => !(exception && key.startsWith('exception.')));
  return (
    <Paper
      withBorder
      p="sm"
      radius="sm"
      style={exception ? { borderColor: 'var(--mantine-color-red-6)' } : undefined}
      data-testid="span-event"
    >
      <Group justify="space-between" mb={4}>
        <Group gap={6}>
          {exception ? <IconAlertTriangle size={16} color="var(--mantine-color-red-6)" /> : <IconBolt size={16} />}
          <Text size="sm" fw={600}>
            {event.name}
          </Text>
        </Group>
        <Text size="xs" c="dimmed" title={formatDateTime(event.timestamp)}>
          +{formatDuration(offset)}
        </Text>
      </Group>
      {exception ? (
        <Stack gap={4}>
          <Text size="sm" c="red" fw={500}>
            {String(event.attributes['exception.type'] ?? 'Exception')}
            {event.attributes['exception.message'] !== undefined ? `: ${String(event.attributes['exception.message'])}` : ''}
          </Text>
          {event.attributes['exception.stacktrace'] ? (
            <Code block style={{ maxHeight: 300, overflow: 'auto', fontSize: 11 }}>
              {String(event.attributes['exception.stacktrace'])}
            </Code>
          ) : null}
        </Stack>
      ) : null}
      {rest.length > 0 ? <AttributeTable entries={rest} /> : null}
    </Paper>
  );
}

function AttributeTable({ entries }: { entries: [string, unknown][] }) {
  return (
    <Table fz="xs" verticalSpacing={4} layout="fixed" withRowBorders>
      <Table.Tbody>
        {entries.map(([key, value]) => (
          <Table.Tr key={key}>
            <Table.Td w="38%" style={{ verticalAlign: 'top' }}>
              <Text ff="monospace" size="xs" c="dimmed" style={{ wordBreak: 'break-all' }}>
                {key}
              </Text>
            </Table.Td>
            <Table.Td>
              <Text ff="monospace" size="xs" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }} lineClamp={12}>
                {typeof value === 'string' ? value : JSON.stringify(value)}
              </Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function TokenCounts({ span }: { span: Span }) {
  const details = Object.entries(span.attributes).filter(([key]) => key.startsWith(LLM_TOKEN_COUNT_PREFIX) && !THREE_COUNTS.has(key));
  return (
    <Block title="Token counts">
      <SimpleGrid cols={3} spacing="xs">
        {[
          ['Prompt', span.token_count_prompt],
          ['Completion', span.token_count_completion],
          ['Total', span.token_count_total],
        ].map(([label, value]) => (
          <Paper key={label as string} withBorder p="xs" radius="sm">
            <Text size="xs" c="dimmed">
              {label}
            </Text>
            <Text fw={650} data-testid={`tokens-${String(label).toLowerCase()}`}>
              {formatInt(value as number | null)}
            </Text>
          </Paper>
        ))}
      </SimpleGrid>
      {details.length > 0 ? <AttributeTable entries={details} /> : null}
    </Block>
  );
}

/** A span's readable sections (model, messages, input and output, documents, tokens, errors): also the reviewer page's view of a span. */
export function SpanInfo({ span }: { span: Span }) {
  const a = span.attributes;
  const input = chatMessages(a, LLM_INPUT_MESSAGES);
  const output = chatMessages(a, LLM_OUTPUT_MESSAGES);
  const retrieved = documents(a, RETRIEVAL_DOCUMENTS);
  const reranked = documents(a, RERANKER_OUTPUT_DOCUMENTS);
  const model = a[LLM_MODEL_NAME];
  const provider = a[LLM_PROVIDER] ?? a[LLM_SYSTEM];
  const params = a[LLM_INVOCATION_PARAMETERS];
  const isLlm = span.span_kind === 'LLM' || span.token_count_total !== null || input.length > 0;
  const exceptions = span.events.filter(isException);
  const sections: ReactNode[] = [];

  if (isLlm && (model !== undefined || provider !== undefined)) {
    sections.push(
      <Group key="model" gap="xs">
        {model !== undefined ? (
          <Badge variant="outline" color="violet" size="lg" radius="sm" tt="none">
            {String(model)}
          </Badge>
        ) : null}
        {provider !== undefined ? (
          <Badge variant="outline" color="gray" size="lg" radius="sm" tt="none">
            {String(provider)}
          </Badge>
        ) : null}
      </Group>,
    );
  }
  if (span.token_count_total !== null || span.token_count_prompt !== null) sections.push(<TokenCounts key="tokens" span={span} />);
  if (exceptions.length > 0) {
    sections.push(
      <Block key="errors" title="Errors">
        {exceptions.map((event, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a stored span never changes, so its lists never reorder
          <EventItem key={index} event={event} spanStartMs={isoToMs(span.start_time)} />
        ))}
      </Block>,
    );
  }
  if (input.length > 0) {
    sections.push(
      <Block key="in-messages" title="Input messages">
        {input.map((message, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a stored span never changes, so its lists never reorder
          <Message key={index} message={message} />
        ))}
      </Block>,
    );
  }
  if (output.length > 0) {
    sections.push(
      <Block key="out-messages" title="Output messages">
        {output.map((message, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a stored span never changes, so its lists never reorder
          <Message key={index} message={message} />
        ))}
      </Block>,
    );
  }
  if (a[INPUT_VALUE] !== undefined) {
    sections.push(
      <Block key="input" title="Input" copy={String(a[INPUT_VALUE])}>
        <TextValue value={a[INPUT_VALUE]} />
      </Block>,
    );
  }
  if (a[OUTPUT_VALUE] !== undefined) {
    sections.push(
      <Block key="output" title="Output" copy={String(a[OUTPUT_VALUE])}>
        <TextValue value={a[OUTPUT_VALUE]} />
      </Block>,
    );
  }
  for (const [title, list] of [
    ['Retrieved documents', retrieved],
    ['Reranked documents', reranked],
  ] as const) {
    if (list.length === 0) continue;
    sections.push(
      <Block key={title} title={title}>
        {list.map((doc, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a stored span never changes, so its lists never reorder
          <Paper key={index} withBorder p="sm" radius="sm">
            <Group justify="space-between" mb={4}>
              <Text size="xs" ff="monospace" c="dimmed">
                {doc.id ?? `#${index}`}
              </Text>
              {doc.score !== undefined ? (
                <Badge size="sm" variant="light">
                  score {doc.score.toFixed(3)}
                </Badge>
              ) : null}
            </Group>
            <Text size="sm" style={{ whiteSpace: 'pre-wrap' }} lineClamp={8}>
              {doc.content}
            </Text>
          </Paper>
        ))}
      </Block>,
    );
  }
  if (a[TOOL_NAME] !== undefined) {
    sections.push(
      <Block key="tool" title="Tool">
        <Text size="sm" ff="monospace" fw={600}>
          {String(a[TOOL_NAME])}
        </Text>
        {a[TOOL_DESCRIPTION] !== undefined ? <Text size="sm">{String(a[TOOL_DESCRIPTION])}</Text> : null}
        {a[TOOL_PARAMETERS] !== undefined ? <TextValue value={a[TOOL_PARAMETERS]} /> : null}
      </Block>,
    );
  }
  if (params !== undefined) {
    sections.push(
      <Block key="params" title="Invocation parameters">
        <TextValue value={params} />
      </Block>,
    );
  }
  if (sections.length === 0) {
    return (
      <Text size="sm" c="dimmed">
        This span has no input, output or LLM attributes. See Attributes for everything it carries.
      </Text>
    );
  }
  return <Stack gap="md">{sections}</Stack>;
}

/** "Replay in playground" for an LLM span: its messages, model and parameters become the playground's draft. */
function ReplayButton({ span }: { span: Span }) {
  const navigate = useNavigate();
  return (
    <Button
      size="xs"
      variant="default"
      leftSection={<IconPlayerPlay size={14} />}
      onClick={() => {
        const state: PlaygroundLocationState = { draft: draftFromSpan(span.attributes, span.name) };
        navigate('/playground', { state });
      }}
    >
      Replay in playground
    </Button>
  );
}

export function SpanDetails({ span }: { span: Span }) {
  const { projectId = '' } = useParams();
  const sections = attributeSections(span.attributes);
  const attributeCount = Object.keys(span.attributes).length;
  return (
    <Stack gap="sm" data-testid="span-details">
      <Stack gap={6}>
        {/* The actions move below a name that leaves them no room, rather than squeeze it mid-word. */}
        <Group gap="xs" wrap="wrap" justify="space-between">
          <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
            <KindBadge kind={span.span_kind} />
            <Title order={3} size="h4" style={{ wordBreak: 'break-word' }}>
              {span.name}
            </Title>
          </Group>
          <Group gap="xs" wrap="wrap">
            {span.span_kind === 'LLM' ? <ReplayButton span={span} /> : null}
            <AddToDatasetButton spans={[span]} />
            <StatusBadge status={span.status_code} />
          </Group>
        </Group>
        <Group gap="lg" wrap="wrap">
          <Text size="sm">
            <Text span c="dimmed">
              Latency{' '}
            </Text>
            <b>{formatDuration(span.latency_ms)}</b>
          </Text>
          <Text size="sm" title={span.start_time}>
            <Text span c="dimmed">
              Started{' '}
            </Text>
            {formatDateTime(span.start_time)}
          </Text>
          {span.token_count_total !== null ? (
            <Text size="sm">
              <Text span c="dimmed">
                Tokens{' '}
              </Text>
              <b>{formatInt(span.token_count_total)}</b>
            </Text>
          ) : null}
          {span.cost_total !== null && span.cost_total !== undefined ? (
            <Text size="sm">
              <Text span c="dimmed">
                Cost{' '}
              </Text>
              <b data-testid="span-cost">{formatCost(span.cost_total)}</b>
            </Text>
          ) : null}
        </Group>
        <Group gap="lg">
          <Group gap={4}>
            <Text size="xs" c="dimmed">
              Span id
            </Text>
            <CopyableId value={span.context.span_id} label="Copy span id" />
          </Group>
          {span.parent_id ? (
            <Group gap={4}>
              <Text size="xs" c="dimmed">
                Parent
              </Text>
              <CopyableId value={span.parent_id} label="Copy parent span id" />
            </Group>
          ) : null}
        </Group>
      </Stack>
      {span.status_code === 'ERROR' ? (
        <Alert color="red" icon={<IconAlertTriangle size={18} />} title="This span failed" data-testid="span-error">
          {span.status_message || 'No status message was recorded.'}
        </Alert>
      ) : null}
      <Tabs defaultValue="info" keepMounted={false}>
        <Tabs.List className="sl-tabs-scroll">
          <Tabs.Tab value="info" leftSection={<IconMessages size={14} />}>
            Info
          </Tabs.Tab>
          <Tabs.Tab value="attributes" leftSection={<IconList size={14} />}>
            Attributes ({attributeCount})
          </Tabs.Tab>
          <Tabs.Tab value="events" leftSection={<IconInfoCircle size={14} />}>
            Events ({span.events.length})
          </Tabs.Tab>
          <Tabs.Tab value="annotations" leftSection={<IconTag size={14} />}>
            Annotations
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="annotations" pt="md">
          <SpanAnnotationPanel projectId={projectId} spanId={span.context.span_id} />
        </Tabs.Panel>
        <Tabs.Panel value="info" pt="md">
          <SpanInfo span={span} />
        </Tabs.Panel>
        <Tabs.Panel value="attributes" pt="md">
          {sections.length === 0 ? (
            <Text size="sm" c="dimmed">
              No attributes.
            </Text>
          ) : (
            <Accordion multiple defaultValue={sections.map(([name]) => name)} variant="separated" chevronPosition="left">
              {sections.map(([name, entries]) => (
                <Accordion.Item key={name} value={name}>
                  <Accordion.Control>
                    <Group gap="xs">
                      <Text size="sm" fw={600} ff="monospace">
                        {name}
                      </Text>
                      <Badge size="xs" variant="light" color="gray">
                        {entries.length}
                      </Badge>
                    </Group>
                  </Accordion.Control>
                  <Accordion.Panel>
                    <AttributeTable entries={entries} />
                  </Accordion.Panel>
                </Accordion.Item>
              ))}
            </Accordion>
          )}
          <Group justify="flex-end" mt="xs">
            <Group gap={4}>
              <Text size="xs" c="dimmed">
                Copy all as JSON
              </Text>
              <CopyIcon value={JSON.stringify(span.attributes, null, 2)} label="Copy attributes as JSON" />
            </Group>
          </Group>
        </Tabs.Panel>
        <Tabs.Panel value="events" pt="md">
          {span.events.length === 0 ? (
            <Text size="sm" c="dimmed">
              No events.
            </Text>
          ) : (
            <Stack gap="xs">
              {span.events.map((event, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a stored span never changes, so its lists never reorder
                <EventItem key={index} event={event} spanStartMs={isoToMs(span.start_time)} />
              ))}
            </Stack>
          )}
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
