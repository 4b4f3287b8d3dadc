/**
 * What the playground sends a provider and gets back, in one shape for every provider
 * (docs/playground.md): messages with tool calls and tool results, function tools, invocation
 * parameters, and the events of a streamed answer. Each provider module translates to and from
 * its own API.
 */

/** A function call the model made (OpenAI's `tool_calls`, Anthropic's `tool_use`, Gemini's `functionCall`). */
export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as JSON text (an object). */
  arguments: string;
  /**
   * Gemini's thought signature of the part that held the call: Gemini wants it back with the call
   * in later turns (docs/playground.md, "Tools"). Other providers have none.
   */
  signature?: string | undefined;
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] | undefined }
  | {
      role: 'tool';
      content: string;
      /** The call this is the result of. */
      toolCallId: string;
      /** The called function's name (Gemini's functionResponse needs it); filled from the call it answers. */
      name: string;
    };

/** A function tool the model may call. */
export interface ToolDefinition {
  name: string;
  description?: string | undefined;
  /** A JSON schema of type object. */
  parameters: Record<string, unknown>;
  /** OpenAI's strict mode; other providers ignore it. */
  strict?: boolean | undefined;
}

/** Which tool the model must call: any or none, at least one, or the named one. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** The structured answer asked for (OpenAI's `response_format`, docs/playground.md "Response format"). */
export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; description?: string; schema: Record<string, unknown>; strict?: boolean } }
  /** Another type, passed as it is to OpenAI-compatible servers that know it (vLLM's, LiteLLM's). */
  | { type: string; [key: string]: unknown };

/** Invocation parameters (the common subset of the providers' APIs), recorded in the run's span. */
export interface InvocationParameters {
  temperature?: number | undefined;
  top_p?: number | undefined;
  max_tokens?: number | undefined;
  stop?: string[] | undefined;
  response_format?: ResponseFormat | undefined;
  tool_choice?: ToolChoice | undefined;
}

/** One call: the conversation, the tools offered and the parameters. */
export interface ChatInput {
  messages: ChatMessage[];
  tools: ToolDefinition[];
  parameters: InvocationParameters;
}

export type ChatEvent =
  | { type: 'delta'; text: string }
  /**
   * A piece of tool call `index` (0, 1, … in the answer): the first piece of a call carries its
   * id and name; `arguments` pieces join into the call's JSON arguments.
   */
  | { type: 'tool_call'; index: number; id?: string; name?: string; arguments: string; signature?: string }
  | { type: 'done'; finishReason: string | null; promptTokens: number | null; completionTokens: number | null };

/** A whole answer: its text, its tool calls and its usage. */
export interface ChatAnswer {
  text: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
}

/** Folds streamed events into whole tool calls (by index), for the non-streamed answer and the run's span. */
export class ToolCallCollector {
  private readonly calls: ToolCall[] = [];
  add(event: Extract<ChatEvent, { type: 'tool_call' }>): void {
    this.calls[event.index] ??= { id: '', name: '', arguments: '' };
    const call = this.calls[event.index] as ToolCall;
    if (event.id) call.id = event.id;
    if (event.name) call.name = event.name;
    if (event.signature) call.signature = event.signature;
    call.arguments += event.arguments;
  }
  /** The calls so far; an empty argument text reads as `{}` (a call of a function without parameters). */
  get(): ToolCall[] {
    return this.calls.filter(Boolean).map((call) => ({ ...call, arguments: call.arguments === '' ? '{}' : call.arguments }));
  }
}
