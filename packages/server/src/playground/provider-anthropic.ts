/**
 * Anthropic messages through `@anthropic-ai/sdk` (docs/playground.md): system messages become its
 * `system` field, tool calls `tool_use` blocks, tool results `tool_result` blocks of the next user
 * turn, and a JSON-schema response format its structured outputs (`output_config.format`).
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ChatEvent, ChatInput, ChatMessage, ResponseFormat, ToolChoice } from './chat-types.js';
import { type ChatTarget, cachedClient, guardedFetch } from './provider-http.js';

// Loaded on the first call, as the other SDKs (docs/performance.md, "Memory").
let sdk: Promise<typeof Anthropic> | null = null;
const loadSdk = () => (sdk ??= import('@anthropic-ai/sdk').then((module) => module.default));

/** Anthropic requires max_tokens; this is the playground's default when none is given. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

async function client(target: ChatTarget) {
  const AnthropicClient = await loadSdk();
  return cachedClient(
    target,
    () =>
      new AnthropicClient({
        baseURL: target.baseUrl,
        fetch: guardedFetch(target),
        apiKey: target.apiKey ?? 'none',
        maxRetries: 0,
      }),
  );
}

/**
 * The conversation as Anthropic's turns. Tool results, and a user message right after them, join
 * one user turn: Anthropic wants every result of an assistant turn's calls in the turn that follows it.
 */
function turnsOf(messages: ChatMessage[]): Anthropic.MessageParam[] {
  const turns: Anthropic.MessageParam[] = [];
  let previous: ChatMessage['role'] | null = null;
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.role === 'assistant') {
      const blocks: Anthropic.ContentBlockParam[] = [];
      if (message.content !== '') blocks.push({ type: 'text', text: message.content });
      for (const call of message.toolCalls ?? []) {
        blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: JSON.parse(call.arguments) as unknown });
      }
      turns.push({ role: 'assistant', content: message.toolCalls?.length ? blocks : message.content });
    } else {
      const block: Anthropic.ContentBlockParam =
        message.role === 'tool'
          ? { type: 'tool_result', tool_use_id: message.toolCallId, content: message.content }
          : { type: 'text', text: message.content };
      const last = turns.at(-1);
      if (previous === 'tool' && last?.role === 'user' && Array.isArray(last.content)) last.content.push(block);
      else turns.push({ role: 'user', content: message.role === 'tool' ? [block] : message.content });
    }
    previous = message.role;
  }
  return turns;
}

function toolChoiceParam(choice: ToolChoice): Anthropic.ToolChoice {
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any' };
  return { type: 'tool', name: choice.name };
}

/** A JSON-schema response format as Anthropic's structured outputs; the checks (chat-request.ts) let no other format through. */
function outputConfigOf(format: ResponseFormat | undefined): { output_config?: Anthropic.OutputConfig } {
  if (format?.type !== 'json_schema') return {};
  const { schema } = format.json_schema as { schema: Record<string, unknown> };
  return { output_config: { format: { type: 'json_schema', schema } } };
}

/** OpenAI's finish reasons, which the route answers with, for Anthropic's stop reasons. */
const FINISH_REASONS: Record<string, string> = { end_turn: 'stop', stop_sequence: 'stop', max_tokens: 'length', tool_use: 'tool_calls' };

export async function* streamAnthropic(
  target: ChatTarget,
  model: string,
  { messages, tools, parameters }: ChatInput,
  signal: AbortSignal,
): AsyncGenerator<ChatEvent> {
  const system = messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .join('\n\n');
  const stream = await (await client(target)).messages.create(
    {
      model,
      max_tokens: parameters.max_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages: turnsOf(messages),
      stream: true,
      ...(system ? { system } : {}),
      ...(tools.length > 0
        ? {
            tools: tools.map((tool) => ({
              name: tool.name,
              ...(tool.description ? { description: tool.description } : {}),
              input_schema: tool.parameters as Anthropic.Tool.InputSchema,
            })),
          }
        : {}),
      ...(parameters.tool_choice !== undefined ? { tool_choice: toolChoiceParam(parameters.tool_choice) } : {}),
      ...outputConfigOf(parameters.response_format),
      ...(parameters.temperature !== undefined ? { temperature: parameters.temperature } : {}),
      ...(parameters.top_p !== undefined ? { top_p: parameters.top_p } : {}),
      ...(parameters.stop !== undefined ? { stop_sequences: parameters.stop } : {}),
    },
    { signal },
  );
  let finishReason: string | null = null;
  let promptTokens: number | null = null;
  let completionTokens: number | null = null;
  // Content block index → tool call index, and whether the call got any argument text.
  const calls = new Map<number, { index: number; sent: boolean }>();
  for await (const event of stream) {
    if (event.type === 'message_start') promptTokens = event.message.usage.input_tokens;
    else if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
      const call = { index: calls.size, sent: false };
      calls.set(event.index, call);
      yield { type: 'tool_call', index: call.index, id: event.content_block.id, name: event.content_block.name, arguments: '' };
    } else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') yield { type: 'delta', text: event.delta.text };
    else if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') {
      const call = calls.get(event.index);
      if (call && event.delta.partial_json !== '') {
        call.sent = true;
        yield { type: 'tool_call', index: call.index, arguments: event.delta.partial_json };
      }
    } else if (event.type === 'content_block_stop') {
      // A call without arguments streams none: its arguments are the empty object.
      const call = calls.get(event.index);
      if (call && !call.sent) yield { type: 'tool_call', index: call.index, arguments: '{}' };
    } else if (event.type === 'message_delta') {
      finishReason = event.delta.stop_reason ? (FINISH_REASONS[event.delta.stop_reason] ?? event.delta.stop_reason) : finishReason;
      completionTokens = event.usage.output_tokens;
    }
  }
  yield { type: 'done', finishReason, promptTokens, completionTokens };
}
