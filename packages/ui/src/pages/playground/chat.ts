/**
 * Calls of the playground API, POST /v1/chat/completions (docs/playground.md): streamed as
 * server-sent events read with the fetch body's reader, or whole for runs over a dataset.
 */
import type { components } from '@sightline/client/browser';
import type { ChatRequest, DraftToolCall } from '../../lib/playground';
import { apiError, client } from '../../api/http';

export type ChatUsage = NonNullable<components['schemas']['ChatCompletion']['usage']>;

export interface ChatResult {
  content: string;
  /** The tool calls of the answer, whole (docs/playground.md, "Tools"). */
  toolCalls: DraftToolCall[];
  usage: ChatUsage | null;
  /** The run's trace in the playground project (x-sightline-trace-id), when the server started one. */
  traceId: string | null;
  finishReason: string | null;
  latencyMs: number;
}

/** A failed run: the server's or the provider's message, with the trace when the run had one. */
export class ChatError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly traceId: string | null,
  ) {
    super(message);
    this.name = 'ChatError';
  }
}

/** The answer of a run, or a ChatError with the server's or the provider's message. */
async function answer<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<{ data: T; response: Response }> {
  const { data, error, response } = await pending;
  if (!response.ok) {
    throw new ChatError(apiError(response, error).message, response.status, response.headers.get('x-sightline-trace-id'));
  }
  return { data: data as T, response };
}

type AnswerMessage = components['schemas']['ChatCompletion']['choices'][number]['message'];
type WireToolCall = NonNullable<AnswerMessage['tool_calls']>[number];

/** A tool call of the route's answer as the page keeps it. */
const toolCallOf = (call: WireToolCall): DraftToolCall => ({
  id: call.id,
  name: call.function.name,
  arguments: call.function.arguments,
  ...(call.extra_content?.google?.thought_signature ? { signature: call.extra_content.google.thought_signature } : {}),
});

// The streamed events are OpenAI's chat.completion.chunk, which the OpenAPI document does not describe.
interface ToolCallPiece {
  index: number;
  id?: string;
  function?: { name?: string; arguments?: string };
  extra_content?: { google?: { thought_signature?: string } };
}
interface Chunk {
  choices?: { delta?: { content?: string | null; tool_calls?: ToolCallPiece[] }; finish_reason?: string | null }[];
  usage?: ChatUsage | null;
  error?: { message?: string };
}

/** What has arrived so far: the text and the tool calls (their arguments growing). */
export interface ChatProgress {
  content: string;
  toolCalls: DraftToolCall[];
}

/** Runs a chat completion streamed: `onProgress` gets the answer so far each time a piece arrives. */
export async function streamChat(
  body: ChatRequest,
  onProgress: (progress: ChatProgress) => void,
  signal?: AbortSignal,
): Promise<ChatResult> {
  const started = performance.now();
  const { data: stream, response } = await answer(
    client.POST('/v1/chat/completions', {
      body: { ...body, stream: true },
      headers: { accept: 'text/event-stream' },
      parseAs: 'stream',
      signal,
    }),
  );
  const traceId = response.headers.get('x-sightline-trace-id');
  if (!stream) throw new ChatError('The server sent no answer body.', response.status, traceId);
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let content = '';
  const toolCalls: DraftToolCall[] = [];
  let usage: ChatUsage | null = null;
  let finishReason: string | null = null;
  const result = (): ChatResult => ({
    content,
    toolCalls: toolCalls.filter(Boolean).map((call) => ({ ...call, arguments: call.arguments || '{}' })),
    usage,
    traceId,
    finishReason,
    latencyMs: performance.now() - started,
  });
  /** Handles one event; true at `[DONE]`. */
  const handle = (event: string): boolean => {
    const data = event
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart())
      .join('\n');
    if (!data) return false;
    if (data === '[DONE]') return true;
    const chunk = JSON.parse(data) as Chunk;
    // A failure after streaming began arrives as an event of its own (docs/playground.md, Errors).
    if (chunk.error) throw new ChatError(chunk.error.message ?? 'The provider failed.', response.status, traceId);
    const choice = chunk.choices?.[0];
    const text = choice?.delta?.content;
    if (text) content += text;
    for (const piece of choice?.delta?.tool_calls ?? []) {
      toolCalls[piece.index] ??= { id: '', name: '', arguments: '' };
      const call = toolCalls[piece.index] as DraftToolCall;
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.name = piece.function.name;
      if (piece.function?.arguments) call.arguments += piece.function.arguments;
      const signature = piece.extra_content?.google?.thought_signature;
      if (signature) call.signature = signature;
    }
    if (text || choice?.delta?.tool_calls?.length)
      onProgress({ content, toolCalls: toolCalls.filter(Boolean).map((call) => ({ ...call })) });
    if (choice?.finish_reason) finishReason = choice.finish_reason;
    if (chunk.usage) usage = chunk.usage;
    return false;
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buffer += value.replace(/\r\n/g, '\n');
      let boundary = buffer.indexOf('\n\n');
      while (boundary !== -1) {
        const event = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        if (handle(event)) return result();
        boundary = buffer.indexOf('\n\n');
      }
      if (done) break;
    }
  } finally {
    reader.releaseLock();
  }
  handle(buffer);
  return result();
}

/** Runs a chat completion without streaming (runs over a dataset need only the whole answer). */
export async function completeChat(body: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
  const started = performance.now();
  const { data: completion, response } = await answer(
    client.POST('/v1/chat/completions', { body: { ...body, stream: false }, headers: { accept: 'application/json' }, signal }),
  );
  return {
    content: completion.choices[0]?.message.content ?? '',
    toolCalls: (completion.choices[0]?.message.tool_calls ?? []).map(toolCallOf),
    usage: completion.usage,
    traceId: response.headers.get('x-sightline-trace-id'),
    finishReason: completion.choices[0]?.finish_reason ?? null,
    latencyMs: performance.now() - started,
  };
}
