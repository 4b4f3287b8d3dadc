/**
 * OpenAI-compatible chat completions through the `openai` SDK (docs/playground.md): OpenAI,
 * Azure OpenAI's v1 API, Ollama, vLLM or LiteLLM at a base URL, DeepSeek, xAI, Groq. Tools,
 * tool results and `response_format` are OpenAI's own shapes, so they pass as they are.
 */
import type OpenAI from 'openai';
import type { ChatAnswer, ChatEvent, ChatInput, ChatMessage, ToolChoice } from './chat-types.js';
import { type ChatTarget, cachedClient, guardedFetch } from './provider-http.js';

// The provider SDKs take tens of MB of memory once loaded (the openai and Anthropic ones about
// 23 MB); most servers never call a provider, so each loads on its first playground or judge run
// (docs/performance.md, "Memory").
let sdk: Promise<typeof OpenAI> | null = null;
const loadSdk = () => (sdk ??= import('openai').then((module) => module.default));

async function client(target: ChatTarget) {
  const OpenAiClient = await loadSdk();
  return cachedClient(
    target,
    () =>
      new OpenAiClient({
        baseURL: target.baseUrl,
        fetch: guardedFetch(target),
        // Keyless servers (Ollama, vLLM) ignore the header; the SDK insists on a value.
        apiKey: target.apiKey ?? 'none',
        // Azure's v1 API takes its key in api-key.
        ...(target.provider === 'azure_openai' && target.apiKey ? { defaultHeaders: { 'api-key': target.apiKey } } : {}),
        maxRetries: 0,
      }),
  );
}

function messageParam(message: ChatMessage): OpenAI.ChatCompletionMessageParam {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  if (message.role === 'assistant' && message.toolCalls?.length) {
    return {
      role: 'assistant',
      // OpenAI takes null content beside tool calls; an empty string is refused by some compatible servers.
      content: message.content === '' ? null : message.content,
      tool_calls: message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function' as const,
        function: { name: call.name, arguments: call.arguments },
      })),
    };
  }
  return { role: message.role, content: message.content };
}

function toolChoiceParam(choice: ToolChoice): OpenAI.ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/** The request body's fields other than `model` and `stream`. */
function bodyOf({ messages, tools, parameters }: ChatInput) {
  return {
    messages: messages.map(messageParam),
    ...(tools.length > 0
      ? {
          tools: tools.map((tool) => ({
            type: 'function' as const,
            function: {
              name: tool.name,
              ...(tool.description ? { description: tool.description } : {}),
              parameters: tool.parameters,
              ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
            },
          })),
        }
      : {}),
    ...(parameters.tool_choice !== undefined ? { tool_choice: toolChoiceParam(parameters.tool_choice) } : {}),
    ...(parameters.temperature !== undefined ? { temperature: parameters.temperature } : {}),
    ...(parameters.top_p !== undefined ? { top_p: parameters.top_p } : {}),
    ...(parameters.max_tokens !== undefined ? { max_tokens: parameters.max_tokens } : {}),
    ...(parameters.stop !== undefined ? { stop: parameters.stop } : {}),
    ...(parameters.response_format !== undefined
      ? { response_format: parameters.response_format as unknown as OpenAI.ChatCompletionCreateParams['response_format'] }
      : {}),
  };
}

export async function* streamOpenAi(target: ChatTarget, model: string, input: ChatInput, signal: AbortSignal): AsyncGenerator<ChatEvent> {
  const stream = await (await client(target)).chat.completions.create(
    { model, ...bodyOf(input), stream: true, stream_options: { include_usage: true } },
    { signal },
  );
  let finishReason: string | null = null;
  let promptTokens: number | null = null;
  let completionTokens: number | null = null;
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    const text = choice?.delta?.content;
    if (text) yield { type: 'delta', text };
    for (const call of choice?.delta?.tool_calls ?? []) {
      yield {
        type: 'tool_call',
        index: call.index,
        ...(call.id ? { id: call.id } : {}),
        ...(call.function?.name ? { name: call.function.name } : {}),
        arguments: call.function?.arguments ?? '',
      };
    }
    if (choice?.finish_reason) finishReason = choice.finish_reason;
    if (chunk.usage) {
      promptTokens = chunk.usage.prompt_tokens;
      completionTokens = chunk.usage.completion_tokens;
    }
  }
  yield { type: 'done', finishReason, promptTokens, completionTokens };
}

/** One whole answer in one response, which costs less to read than a stream of chunks (an evaluator's judge). */
export async function completeOpenAi(target: ChatTarget, model: string, input: ChatInput, signal: AbortSignal): Promise<ChatAnswer> {
  const completion = await (await client(target)).chat.completions.create({ model, ...bodyOf(input) }, { signal });
  const choice = completion.choices[0];
  return {
    text: choice?.message?.content ?? '',
    toolCalls: (choice?.message?.tool_calls ?? []).flatMap((call) =>
      call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }] : [],
    ),
    finishReason: choice?.finish_reason ?? null,
    promptTokens: completion.usage?.prompt_tokens ?? null,
    completionTokens: completion.usage?.completion_tokens ?? null,
  };
}
