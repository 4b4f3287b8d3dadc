/**
 * Google's Gemini API through `@google/genai` (docs/playground.md): system messages become its
 * `systemInstruction`, the assistant the `model` role, tool calls `functionCall` parts (with their
 * thought signatures), tool results `functionResponse` parts, tools `functionDeclarations`, and a
 * JSON response format `responseMimeType` with `responseJsonSchema`. Streamed with
 * generateContentStream; an evaluator's judge uses generateContent.
 */
import { randomBytes } from 'node:crypto';
import type {
  Content,
  FunctionCallingConfigMode,
  GenerateContentConfig,
  GenerateContentResponse,
  GoogleGenAI,
  Part,
  ToolConfig,
} from '@google/genai';
import type { ChatAnswer, ChatEvent, ChatInput, ChatMessage, ToolCall, ToolChoice } from './chat-types.js';
import { type ChatTarget, cachedClient, guardedFetch } from './provider-http.js';

// Loaded on the first call, as the other SDKs (docs/performance.md, "Memory").
let sdk: Promise<typeof GoogleGenAI> | null = null;
const loadSdk = () => (sdk ??= import('@google/genai').then((module) => module.GoogleGenAI));

/**
 * Ids Sightline gives Gemini's calls that came without one (the Gemini API often sends none): they
 * are ours, so they are not sent back to Gemini, which matches results to calls by name and order.
 */
const OWN_ID_PREFIX = 'call_sl_';

async function client(target: ChatTarget) {
  const GoogleClient = await loadSdk();
  return cachedClient(
    target,
    () =>
      new GoogleClient({
        apiKey: target.apiKey ?? '',
        // Explicit, so that no GOOGLE_GENAI_USE_VERTEXAI or GOOGLE_GEMINI_BASE_URL of the server's environment steers it.
        vertexai: false,
        // No retryOptions: the SDK then makes one attempt, as the other providers' clients (maxRetries: 0).
        httpOptions: { baseUrl: target.baseUrl, fetch: guardedFetch(target) },
      }),
  );
}

/** A tool's result as functionResponse.response: a JSON object as it is, anything else as `{output}` (Gemini's convention). */
function responseOf(content: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(content) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // not JSON: the text itself is the output
  }
  return { output: content };
}

const theirId = (id: string) => (id.startsWith(OWN_ID_PREFIX) ? {} : { id });

/** The conversation as Gemini's contents; tool results (and a user message right after them) share one user turn. */
function contentsOf(messages: ChatMessage[]): Content[] {
  const contents: Content[] = [];
  let previous: ChatMessage['role'] | null = null;
  for (const message of messages) {
    if (message.role === 'system') continue;
    if (message.role === 'assistant') {
      const parts: Part[] = message.content !== '' ? [{ text: message.content }] : [];
      for (const call of message.toolCalls ?? []) {
        parts.push({
          functionCall: { ...theirId(call.id), name: call.name, args: JSON.parse(call.arguments) as Record<string, unknown> },
          ...(call.signature ? { thoughtSignature: call.signature } : {}),
        });
      }
      contents.push({ role: 'model', parts });
    } else {
      const part: Part =
        message.role === 'tool'
          ? { functionResponse: { ...theirId(message.toolCallId), name: message.name, response: responseOf(message.content) } }
          : { text: message.content };
      const last = contents.at(-1);
      if (previous === 'tool' && last?.role === 'user') last.parts!.push(part);
      else contents.push({ role: 'user', parts: [part] });
    }
    previous = message.role;
  }
  return contents;
}

function toolConfigOf(choice: ToolChoice): ToolConfig {
  // The SDK's enum values are these strings; its enum is not imported, so the SDK loads only when called.
  const mode = (
    typeof choice === 'object' || choice === 'required' ? 'ANY' : choice === 'none' ? 'NONE' : 'AUTO'
  ) as FunctionCallingConfigMode;
  return { functionCallingConfig: { mode, ...(typeof choice === 'object' ? { allowedFunctionNames: [choice.name] } : {}) } };
}

function configOf({ messages, tools, parameters }: ChatInput, signal: AbortSignal): GenerateContentConfig {
  const system = messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .join('\n\n');
  const format = parameters.response_format;
  return {
    abortSignal: signal,
    ...(system ? { systemInstruction: system } : {}),
    ...(tools.length > 0
      ? {
          tools: [
            {
              functionDeclarations: tools.map((tool) => ({
                name: tool.name,
                ...(tool.description ? { description: tool.description } : {}),
                // Any JSON schema (Gemini's own `parameters` takes only an OpenAPI subset).
                parametersJsonSchema: tool.parameters,
              })),
            },
          ],
        }
      : {}),
    ...(parameters.tool_choice !== undefined ? { toolConfig: toolConfigOf(parameters.tool_choice) } : {}),
    ...(parameters.temperature !== undefined ? { temperature: parameters.temperature } : {}),
    ...(parameters.top_p !== undefined ? { topP: parameters.top_p } : {}),
    ...(parameters.max_tokens !== undefined ? { maxOutputTokens: parameters.max_tokens } : {}),
    ...(parameters.stop !== undefined ? { stopSequences: parameters.stop } : {}),
    // The checks (chat-request.ts) let only text, json_object and json_schema through to Gemini.
    ...(format?.type === 'json_object' || format?.type === 'json_schema' ? { responseMimeType: 'application/json' } : {}),
    ...(format?.type === 'json_schema' ? { responseJsonSchema: (format.json_schema as { schema: Record<string, unknown> }).schema } : {}),
  };
}

/** OpenAI's finish reasons, which the route answers with, for Gemini's. */
function finishReasonOf(reason: string | undefined, calledTools: boolean): string | null {
  if (reason === undefined) return null;
  if (reason === 'STOP') return calledTools ? 'tool_calls' : 'stop';
  if (reason === 'MAX_TOKENS') return 'length';
  if (['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY'].includes(reason)) return 'content_filter';
  return reason.toLowerCase();
}

/** Reads one response (a streamed chunk, or the whole answer) into events; `calls` counts the calls seen so far. */
function* eventsOf(
  response: GenerateContentResponse,
  calls: { count: number },
): Generator<Extract<ChatEvent, { type: 'delta' | 'tool_call' }>> {
  for (const part of response.candidates?.[0]?.content?.parts ?? []) {
    // Thought summaries are the model's reasoning, not its answer.
    if (part.text && !part.thought) yield { type: 'delta', text: part.text };
    if (part.functionCall) {
      const call: ToolCall = {
        id: part.functionCall.id || `${OWN_ID_PREFIX}${randomBytes(8).toString('hex')}`,
        name: part.functionCall.name ?? '',
        arguments: JSON.stringify(part.functionCall.args ?? {}),
      };
      yield { type: 'tool_call', index: calls.count, ...call, ...(part.thoughtSignature ? { signature: part.thoughtSignature } : {}) };
      calls.count += 1;
    }
  }
}

/** Output tokens as billed: the answer's and the model's thinking. */
const usageOf = (response: GenerateContentResponse) => {
  const usage = response.usageMetadata;
  return {
    promptTokens: usage?.promptTokenCount ?? null,
    completionTokens: usage ? (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0) : null,
  };
};

export async function* streamGoogle(target: ChatTarget, model: string, input: ChatInput, signal: AbortSignal): AsyncGenerator<ChatEvent> {
  const stream = await (await client(target)).models.generateContentStream({
    model,
    contents: contentsOf(input.messages),
    config: configOf(input, signal),
  });
  const calls = { count: 0 };
  let reason: string | undefined;
  let usage: { promptTokens: number | null; completionTokens: number | null } = { promptTokens: null, completionTokens: null };
  for await (const chunk of stream) {
    yield* eventsOf(chunk, calls);
    reason = chunk.candidates?.[0]?.finishReason ?? reason;
    if (chunk.usageMetadata) usage = usageOf(chunk);
  }
  yield { type: 'done', finishReason: finishReasonOf(reason, calls.count > 0), ...usage };
}

/** One whole answer in one response (an evaluator's judge). */
export async function completeGoogle(target: ChatTarget, model: string, input: ChatInput, signal: AbortSignal): Promise<ChatAnswer> {
  const response = await (await client(target)).models.generateContent({
    model,
    contents: contentsOf(input.messages),
    config: configOf(input, signal),
  });
  const answer: ChatAnswer = { text: '', toolCalls: [], finishReason: null, ...usageOf(response) };
  const calls = { count: 0 };
  for (const event of eventsOf(response, calls)) {
    if (event.type === 'delta') answer.text += event.text;
    else answer.toolCalls.push({ id: event.id!, name: event.name!, arguments: event.arguments, signature: event.signature });
  }
  answer.finishReason = finishReasonOf(response.candidates?.[0]?.finishReason, calls.count > 0);
  return answer;
}

/** The Gemini API's error message: the SDK's message is the JSON error body. */
export function googleMessage(message: string): string {
  try {
    const body = JSON.parse(message) as { error?: { message?: unknown; status?: unknown } };
    if (typeof body.error?.message === 'string') {
      return typeof body.error.status === 'string' ? `${body.error.message} (${body.error.status})` : body.error.message;
    }
  } catch {
    // not the JSON body: kept as the SDK wrote it
  }
  return message;
}
