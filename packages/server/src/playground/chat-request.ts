/**
 * The playground's request in OpenAI's chat completions shape (docs/playground.md) read into the
 * providers' common shape, and checked for what a schema cannot say: every tool result answers a
 * call made right before it, every call is answered, tool arguments are JSON objects, tool
 * parameters and response formats' schemas are JSON schemas. Each refusal is one sentence naming the message or tool.
 */
import { InvalidInputError } from '@sightline/common';
import type { ChatMessage, ResponseFormat, ToolCall, ToolChoice, ToolDefinition } from './chat-types.js';
import type { ProviderKind } from './provider-http.js';
import { jsonSchemaProblem } from './json-schema-check.js';

/** A tool call as OpenAI writes it; Gemini's thought signature rides in `extra_content` as Google's OpenAI-compatible API has it. */
export interface WireToolCall {
  id: string;
  type?: string | undefined;
  function: { name: string; arguments: string };
  extra_content?: { google?: { thought_signature?: string | undefined } | undefined } | undefined;
}

export interface WireMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: string | { type: 'text'; text: string }[] | null | undefined;
  tool_calls?: WireToolCall[] | undefined;
  tool_call_id?: string | undefined;
}

export interface WireTool {
  type: 'function';
  function: {
    name: string;
    description?: string | undefined;
    parameters?: Record<string, unknown> | undefined;
    strict?: boolean | undefined;
  };
}

export type WireToolChoice = 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };

/** OpenAI's rule for function names, which Anthropic and Gemini accept too. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const refuse = (sentence: string) => new InvalidInputError(sentence);

/** The text of a message's content: a string, or its text parts joined. */
const textOf = (content: WireMessage['content']): string | null =>
  content === null || content === undefined ? null : typeof content === 'string' ? content : content.map((part) => part.text).join('');

/** The tools offered, checked: names unique and valid, parameters a JSON schema of type object. */
export function toolsOf(tools: WireTool[] | undefined): ToolDefinition[] {
  const seen = new Set<string>();
  return (tools ?? []).map(({ function: declared }, index) => {
    const where = `tools[${index}]`;
    if (!TOOL_NAME.test(declared.name)) {
      throw refuse(`${where}.function.name must be 1 to 64 letters, digits, _ or - (got ${JSON.stringify(declared.name)})`);
    }
    if (seen.has(declared.name))
      throw refuse(`${where}: two tools are named ${JSON.stringify(declared.name)}; each name may be offered once`);
    seen.add(declared.name);
    const parameters = declared.parameters ?? { type: 'object', properties: {} };
    const problem = jsonSchemaProblem(parameters, 'parameters');
    if (problem) throw refuse(`${where} (${declared.name}): ${problem}`);
    if (parameters.type !== 'object') {
      throw refuse(`${where} (${declared.name}): parameters must be a JSON schema of "type": "object" (the arguments are an object)`);
    }
    return {
      name: declared.name,
      ...(declared.description ? { description: declared.description } : {}),
      parameters,
      ...(declared.strict !== undefined ? { strict: declared.strict } : {}),
    };
  });
}

/** The tool choice, checked against the tools offered. */
export function toolChoiceOf(choice: WireToolChoice | undefined, tools: ToolDefinition[]): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (tools.length === 0) throw refuse('tool_choice needs tools: offer at least one tool, or leave tool_choice out');
  if (typeof choice === 'string') return choice;
  const name = choice.function.name;
  if (!tools.some((tool) => tool.name === name)) {
    throw refuse(
      `tool_choice names the tool ${JSON.stringify(name)}, which is not among the tools offered (${tools.map((tool) => tool.name).join(', ')})`,
    );
  }
  return { name };
}

/**
 * The messages, checked: tool results follow right after the assistant message whose calls they
 * answer (as OpenAI and Anthropic require), each call is answered once, arguments are JSON objects.
 */
export function messagesOf(messages: WireMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  const callsById = new Map<string, { call: ToolCall; at: number }>();
  // Calls of the last assistant message not answered yet, by id.
  let pending = new Map<string, ToolCall>();
  let pendingAt = -1;
  const unanswered = (before: string) => {
    const [id, call] = pending.entries().next().value!;
    return refuse(
      `messages[${pendingAt}] calls the tool ${call.name} (id ${JSON.stringify(id)}) and no tool message answers it ${before}: ` +
        'tool results (role "tool" with its tool_call_id) go right after the assistant message that made the calls',
    );
  };
  messages.forEach((message, index) => {
    const where = `messages[${index}]`;
    const text = textOf(message.content);
    if (message.role !== 'tool' && pending.size > 0) throw unanswered(`before ${where}`);
    if (message.role === 'tool') {
      if (message.tool_call_id === undefined || message.tool_call_id === '') {
        throw refuse(`${where} is a tool result without tool_call_id: give the id of the call it answers`);
      }
      const call = pending.get(message.tool_call_id);
      if (!call) {
        const earlier = callsById.get(message.tool_call_id);
        throw refuse(
          earlier
            ? `${where} answers the tool call ${JSON.stringify(message.tool_call_id)} of messages[${earlier.at}], which is answered already or not the last assistant message before it`
            : `${where} is a tool result for ${JSON.stringify(message.tool_call_id)}, but no assistant message before it made a tool call with that id`,
        );
      }
      if (text === null) throw refuse(`${where} (tool) has no content: give the tool's result as text`);
      pending.delete(message.tool_call_id);
      out.push({ role: 'tool', content: text, toolCallId: message.tool_call_id, name: call.name });
      return;
    }
    if (message.role === 'assistant') {
      const toolCalls = (message.tool_calls ?? []).map((wire, callIndex) => toolCallOf(wire, `${where}.tool_calls[${callIndex}]`));
      if (text === null && toolCalls.length === 0) throw refuse(`${where} (assistant) has neither content nor tool calls`);
      for (const call of toolCalls) {
        const earlier = callsById.get(call.id);
        if (earlier)
          throw refuse(
            `${where} repeats the tool call id ${JSON.stringify(call.id)} of messages[${earlier.at}]; each call needs an id of its own`,
          );
        callsById.set(call.id, { call, at: index });
      }
      pending = new Map(toolCalls.map((call) => [call.id, call]));
      pendingAt = index;
      out.push({ role: 'assistant', content: text ?? '', ...(toolCalls.length > 0 ? { toolCalls } : {}) });
      return;
    }
    if (message.tool_calls?.length) throw refuse(`${where} (${message.role}) has tool_calls; only assistant messages make tool calls`);
    if (text === null) throw refuse(`${where} (${message.role}) has no content`);
    out.push({ role: message.role === 'developer' ? 'system' : message.role, content: text });
  });
  if (pending.size > 0) throw unanswered('at the end of the messages');
  return out;
}

function toolCallOf(wire: WireToolCall, where: string): ToolCall {
  if (wire.id.trim() === '') throw refuse(`${where}.id is empty: each tool call needs the id its result will name`);
  if (!TOOL_NAME.test(wire.function.name)) {
    throw refuse(`${where}.function.name must be 1 to 64 letters, digits, _ or - (got ${JSON.stringify(wire.function.name)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(wire.function.arguments === '' ? '{}' : wire.function.arguments);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw refuse(`${where}.function.arguments must be a JSON object as text, such as "{\\"city\\": \\"Paris\\"}"`);
  }
  const signature = wire.extra_content?.google?.thought_signature;
  return {
    id: wire.id,
    name: wire.function.name,
    arguments: wire.function.arguments === '' ? '{}' : wire.function.arguments,
    ...(signature ? { signature } : {}),
  };
}

/** OpenAI's response_format as the route takes it: a type and, for json_schema, the schema. */
export interface WireResponseFormat {
  type: string;
  [key: string]: unknown;
}

/** `response_format`, checked: a json_schema format needs a name and a JSON schema (docs/playground.md, "Response format"). */
export function responseFormatOf(format: WireResponseFormat | undefined): ResponseFormat | undefined {
  if (format === undefined || format.type !== 'json_schema') return format;
  const declared = format.json_schema as Record<string, unknown> | undefined;
  if (typeof declared !== 'object' || declared === null || Array.isArray(declared)) {
    throw refuse('response_format of type json_schema needs json_schema: {"name": …, "schema": {…}}');
  }
  if (typeof declared.name !== 'string' || !TOOL_NAME.test(declared.name)) {
    throw refuse(`response_format.json_schema.name must be 1 to 64 letters, digits, _ or - (got ${JSON.stringify(declared.name ?? null)})`);
  }
  const problem = jsonSchemaProblem(declared.schema ?? null, 'response_format.json_schema.schema');
  if (problem) throw refuse(problem);
  return format as ResponseFormat;
}

/**
 * Whether the provider can take the response format: OpenAI-compatible servers take any type as
 * sent; Gemini JSON mode and a JSON schema; Anthropic only a JSON schema, through its structured
 * outputs (docs/playground.md, "Response format").
 */
export function checkResponseFormatFor(provider: string, kind: ProviderKind, format: ResponseFormat | undefined): void {
  if (format === undefined || format.type === 'text' || kind === 'openai') return;
  if (format.type === 'json_schema') return;
  // Gemini's JSON mode: responseMimeType application/json without a schema.
  if (format.type === 'json_object' && kind === 'google') return;
  if (format.type === 'json_object') {
    throw refuse(
      `${provider} has no JSON mode without a schema: use a response_format of type json_schema ` +
        '(sent as its structured outputs), or ask for JSON in the prompt',
    );
  }
  throw refuse(`${provider} takes a response_format of type text or json_schema (got ${JSON.stringify(format.type)})`);
}
