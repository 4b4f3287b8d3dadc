/**
 * Messages carried by GenAI events rather than attributes (docs/ingest.md, "Conventions"): the
 * per-message events of GenAI conventions 1.27 to 1.36 (`gen_ai.user.message`, `gen_ai.choice`,
 * …), the prompt and completion events of 1.26, and the indexed `gen_ai.prompt.{i}.*` /
 * `gen_ai.completion.{i}.*` attributes of the conventions before those. They arrive as span
 * events or as OTLP log records (whose body is read as the event's attributes); either way they
 * become OpenInference messages.
 */
import type { AttributeValue, Attributes } from '../decoded-spans.js';
import {
  GEN_AI_CHOICE_EVENT,
  GEN_AI_COMPLETION,
  GEN_AI_COMPLETION_EVENT,
  GEN_AI_COMPLETION_PREFIX,
  GEN_AI_MESSAGE_EVENTS,
  GEN_AI_PROMPT,
  GEN_AI_PROMPT_EVENT,
  GEN_AI_PROMPT_PREFIX,
  type LLM_INPUT_MESSAGES,
  type LLM_OUTPUT_MESSAGES,
  MESSAGE_CONTENT,
  MESSAGE_ROLE,
  MESSAGE_TOOL_CALL_ID,
  MESSAGE_TOOL_CALLS,
  TOOL_CALL_FUNCTION_ARGUMENTS,
  TOOL_CALL_FUNCTION_NAME,
  TOOL_CALL_ID,
} from './attribute-names.js';

/** What a span event or a log record gives the mapping: its name and attributes. */
export interface ConventionEvent {
  name: string;
  attributes: Attributes;
}

/** One chat message, as the conventions describe it. */
export interface ChatMessage {
  role: string;
  content?: string;
  toolCalls?: { id?: string; name?: string; arguments?: string }[];
  toolCallId?: string;
}

/** The input and output messages found, and the raw prompt/completion text of 1.26's events. */
export interface FoundMessages {
  input: ChatMessage[];
  output: ChatMessage[];
  promptText?: string;
  completionText?: string;
}

/** A value read as an object: itself, or parsed from JSON text; undefined otherwise. */
function objectOf(value: AttributeValue | undefined): Record<string, AttributeValue> | undefined {
  if (typeof value === 'string') {
    const text = value.trim();
    if (!text.startsWith('{')) return undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, AttributeValue>)
        : undefined;
    } catch {
      return undefined;
    }
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/** A list read from an array or JSON text. */
function listOf(value: AttributeValue | undefined): AttributeValue[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string' && value.trim().startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(value);
      return Array.isArray(parsed) ? (parsed as AttributeValue[]) : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Text of a message's content: a string as is, anything else (parts, objects) as JSON. */
function textOf(value: AttributeValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function stringOf(value: AttributeValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** Tool calls in OpenAI's shape (`{id, type, function: {name, arguments}}`), as the events carry them. */
function toolCallsOf(value: AttributeValue | undefined): ChatMessage['toolCalls'] {
  const list = listOf(value);
  if (!list) return undefined;
  const calls = list.flatMap((item) => {
    const call = objectOf(item);
    if (!call) return [];
    const fn = objectOf(call.function);
    return [{ id: stringOf(call.id), name: stringOf(fn?.name ?? call.name), arguments: textOf(fn?.arguments ?? call.arguments) }];
  });
  return calls.length > 0 ? calls : undefined;
}

/** A message from an event's fields (`content`, `role`, `tool_calls`, `id`), or from a nested `message`. */
function messageOf(fields: Record<string, AttributeValue>, defaultRole: string): ChatMessage {
  const message: ChatMessage = { role: stringOf(fields.role) ?? defaultRole };
  const content = textOf(fields.content);
  if (content !== undefined) message.content = content;
  const toolCalls = toolCallsOf(fields.tool_calls);
  if (toolCalls) message.toolCalls = toolCalls;
  if (message.role === 'tool') {
    const id = stringOf(fields.id ?? fields.tool_call_id);
    if (id !== undefined) message.toolCallId = id;
  }
  return message;
}

/** Messages from the conventions' messages as a JSON list of `{role, content}` (1.26's `gen_ai.prompt`). */
function messagesFromText(text: string): ChatMessage[] | undefined {
  const list = listOf(text);
  if (!list) return undefined;
  const messages = list.flatMap((item) => {
    const fields = objectOf(item);
    return fields && typeof fields.role === 'string' ? [messageOf(fields, fields.role)] : [];
  });
  return messages.length > 0 ? messages : undefined;
}

/** The messages of a span's GenAI events, in the order the events were recorded. */
export function messagesOfEvents(events: readonly ConventionEvent[]): FoundMessages {
  const found: FoundMessages = { input: [], output: [] };
  for (const event of events) {
    const role = GEN_AI_MESSAGE_EVENTS[event.name];
    if (role !== undefined) {
      found.input.push(messageOf(event.attributes, role));
    } else if (event.name === GEN_AI_CHOICE_EVENT) {
      const nested = objectOf(event.attributes.message);
      const index = typeof event.attributes.index === 'number' ? event.attributes.index : found.output.length;
      const message = messageOf(nested ?? event.attributes, 'assistant');
      if (index >= 0 && index < 1000) found.output[index] = message;
      else found.output.push(message);
    } else if (event.name === GEN_AI_PROMPT_EVENT) {
      const text = textOf(event.attributes[GEN_AI_PROMPT]);
      if (text !== undefined) {
        found.promptText = text;
        found.input.push(...(messagesFromText(text) ?? []));
      }
    } else if (event.name === GEN_AI_COMPLETION_EVENT) {
      const text = textOf(event.attributes[GEN_AI_COMPLETION]);
      if (text !== undefined) {
        found.completionText = text;
        found.output.push(...(messagesFromText(text) ?? []));
      }
    }
  }
  found.output = found.output.filter((message) => message !== undefined);
  return found;
}

const INDEXED = /^(\d{1,4})\.(.+)$/;

/** Messages of the indexed attributes (`gen_ai.prompt.0.role`, `gen_ai.completion.0.tool_calls.0.name`, …). */
export function messagesOfIndexedAttributes(attributes: Attributes): FoundMessages {
  const input: Record<string, AttributeValue>[] = [];
  const output: Record<string, AttributeValue>[] = [];
  for (const key in attributes) {
    const list = key.startsWith(GEN_AI_PROMPT_PREFIX) ? input : key.startsWith(GEN_AI_COMPLETION_PREFIX) ? output : null;
    if (list === null) continue;
    const match = INDEXED.exec(key.slice(list === input ? GEN_AI_PROMPT_PREFIX.length : GEN_AI_COMPLETION_PREFIX.length));
    if (!match) continue;
    const index = Number(match[1]);
    const fields = list[index] ?? {};
    list[index] = fields;
    fields[match[2]!] = attributes[key]!;
  }
  const toMessages = (list: Record<string, AttributeValue>[], role: string) =>
    list.flatMap((fields) => {
      if (!fields) return [];
      const message = messageOf(fields, role);
      const calls: NonNullable<ChatMessage['toolCalls']> = [];
      for (const key in fields) {
        const call = /^tool_calls\.(\d{1,3})\.(id|name|arguments)$/.exec(key);
        if (!call) continue;
        const entry = calls[Number(call[1])] ?? {};
        calls[Number(call[1])] = entry;
        entry[call[2] as 'id' | 'name' | 'arguments'] = textOf(fields[key]);
      }
      const dense = calls.filter((call) => call !== undefined);
      if (dense.length > 0) message.toolCalls = dense;
      return [message];
    });
  return { input: toMessages(input, 'user'), output: toMessages(output, 'assistant') };
}

/** OpenInference's flattened message attributes (`llm.input_messages.0.message.role`, …). */
export function messageAttributes(
  prefix: typeof LLM_INPUT_MESSAGES | typeof LLM_OUTPUT_MESSAGES,
  messages: readonly ChatMessage[],
): Attributes {
  const attributes: Attributes = {};
  messages.forEach((message, index) => {
    const at = `${prefix}.${index}.`;
    attributes[`${at}${MESSAGE_ROLE}`] = message.role;
    if (message.content !== undefined) attributes[`${at}${MESSAGE_CONTENT}`] = message.content;
    if (message.toolCallId !== undefined) attributes[`${at}${MESSAGE_TOOL_CALL_ID}`] = message.toolCallId;
    message.toolCalls?.forEach((call, callIndex) => {
      const callAt = `${at}${MESSAGE_TOOL_CALLS}.${callIndex}.`;
      if (call.id !== undefined) attributes[`${callAt}${TOOL_CALL_ID}`] = call.id;
      if (call.name !== undefined) attributes[`${callAt}${TOOL_CALL_FUNCTION_NAME}`] = call.name;
      if (call.arguments !== undefined) attributes[`${callAt}${TOOL_CALL_FUNCTION_ARGUMENTS}`] = call.arguments;
    });
  });
  return attributes;
}
