/**
 * The playground (docs/playground.md): runs one chat completion against a provider, streams the
 * answer, and traces the run as an LLM span in the `playground` project like any other. Knows
 * nothing of HTTP: the route turns the events into server-sent events or one JSON answer.
 */
import { randomBytes } from 'node:crypto';
import { InvalidInputError, UnavailableError } from '@sightline/common';
import type { IngestService } from '../ingest/ingest-service.js';
import type { Attributes } from '../span-model/decoded-spans.js';
import {
  type ChatEvent,
  type ChatMessage,
  type ChatTarget,
  type InvocationParameters,
  PROVIDERS,
  ProviderError,
  type ProviderSpec,
  type ResponseFormat,
  type ToolCall,
  type ToolDefinition,
  completeChat,
  streamChat,
} from './providers.js';
import { ToolCallCollector } from './chat-types.js';
import { checkResponseFormatFor } from './chat-request.js';
import { checkedBaseUrl } from './provider-urls.js';
import type { SecretsService } from './secrets-service.js';
import {
  INPUT_MIME_TYPE,
  INPUT_VALUE,
  LLM_INPUT_MESSAGES,
  LLM_INVOCATION_PARAMETERS,
  LLM_MODEL_NAME,
  LLM_OUTPUT_MESSAGES,
  LLM_PROVIDER,
  LLM_TOOLS,
  MESSAGE_CONTENT,
  MESSAGE_ROLE,
  MESSAGE_TOOL_CALLS,
  MESSAGE_TOOL_CALL_ID,
  TOOL_CALL_FUNCTION_ARGUMENTS,
  TOOL_CALL_FUNCTION_NAME,
  TOOL_CALL_ID,
  TOOL_JSON_SCHEMA,
  LLM_TOKEN_COUNT_COMPLETION,
  LLM_TOKEN_COUNT_PROMPT,
  LLM_TOKEN_COUNT_TOTAL,
  OUTPUT_MIME_TYPE,
  OUTPUT_VALUE,
  SPAN_KIND,
} from '../span-model/conventions/attribute-names.js';

/** The project playground runs are traced to. */
export const PLAYGROUND_PROJECT = 'playground';

export interface ChatRequest {
  /** `provider:model`, e.g. `openai:gpt-4o-mini` or `anthropic:claude-sonnet-4-5`. */
  model: string;
  messages: ChatMessage[];
  /** Function tools the model may call (docs/playground.md, "Tools"). */
  tools: ToolDefinition[];
  parameters: InvocationParameters;
}

export interface ChatRun {
  /** The trace the run is recorded under (known before the first token). */
  traceId: string;
  provider: string;
  model: string;
  /** The answer as it streams; ends with a `done` event. Provider failures throw InvalidInputError or UnavailableError. */
  events: AsyncGenerator<ChatEvent>;
}

const nanosNow = () => BigInt(Date.now()) * 1_000_000n;

export type PlaygroundService = ReturnType<typeof createPlaygroundService>;

/** One completion for an evaluator's judge (docs/evaluators.md): the whole answer, not streamed to anyone. */
export interface CompletionRequest {
  /** `provider:model`. */
  model: string;
  messages: ChatMessage[];
  temperature: number;
  maxTokens: number;
  /** OpenAI's response_format, for the providers that take it. */
  responseFormat: Record<string, unknown> | null;
  signal: AbortSignal;
}

export interface Completion {
  text: string;
  promptTokens: number | null;
  completionTokens: number | null;
}

export interface PlaygroundOptions {
  secrets: SecretsService;
  ingest: IngestService;
  /** SERVICE_ALLOW_PRIVATE_PROVIDER_URLS: base URLs may point at loopback and link-local addresses. */
  allowPrivateUrls: boolean;
  /**
   * No authentication: whoever reaches the server is its operator (docs/playground.md). Then
   * built-in defaults on the server's own machine (Ollama's) apply, and a provider's error
   * message is recorded in the run's span; with authentication, spans (which every member reads)
   * get only its status.
   */
  openServer: boolean;
  /** Where a provider's error message goes for admins to read (the server log). */
  logProviderError?: (error: ProviderError) => void;
}

/** Per run: whether the caller may read a provider's error message (admins, or anyone on an open server). */
export interface ChatCaller {
  seesProviderMessages: boolean;
}

/** The playground service. */
export function createPlaygroundService({ secrets, ingest, allowPrivateUrls, openServer, logProviderError }: PlaygroundOptions) {
  /** The base URL in force for a provider, checked (docs/playground.md, "Where the server may call"). */
  const baseUrlOf = async (provider: string, spec: ProviderSpec): Promise<{ baseUrl: string; allowLocalAddresses: boolean }> => {
    const configured = await secrets.resolve(spec.baseUrlName);
    // Stored values were checked when stored; environment values are checked here, at every call.
    if (configured !== null) {
      checkedBaseUrl(spec.baseUrlName, configured, allowPrivateUrls);
      return { baseUrl: configured, allowLocalAddresses: allowPrivateUrls };
    }
    if (spec.baseUrl !== null && (!spec.localDefault || openServer)) {
      return { baseUrl: spec.baseUrl, allowLocalAddresses: allowPrivateUrls || spec.localDefault };
    }
    throw new InvalidInputError(
      spec.localDefault
        ? `${provider} needs a base URL: set ${spec.baseUrlName} in settings or the environment (with authentication on, ` +
            `the server calls no address of its own machine unless an operator says so)`
        : `${provider} needs a base URL: set ${spec.baseUrlName} in settings or the environment`,
    );
  };

  /** The provider, its key and base URL for a `provider:model` name; 422 naming what is missing. */
  const targetOf = async (qualified: string): Promise<{ target: ChatTarget; model: string }> => {
    const separator = qualified.indexOf(':');
    const provider = separator > 0 ? qualified.slice(0, separator).trim().toLowerCase() : '';
    const model = separator > 0 ? qualified.slice(separator + 1).trim() : '';
    const spec = PROVIDERS[provider];
    if (!spec || model === '') {
      throw new InvalidInputError(
        `model must be "provider:model" with a provider among ${Object.keys(PROVIDERS).join(', ')} (got ${JSON.stringify(qualified)})`,
      );
    }
    const apiKey = spec.keyName ? await secrets.resolve(spec.keyName) : null;
    if (spec.keyName && !apiKey)
      throw new InvalidInputError(`no API key for ${provider}: set ${spec.keyName} in settings or the environment`);
    const { baseUrl, allowLocalAddresses } = await baseUrlOf(provider, spec);
    return { target: { provider, spec, baseUrl, apiKey, allowLocalAddresses }, model };
  };

  /** Records the run as an LLM span (after it ended), through the ingest path like any export. */
  const trace = async (
    run: { traceId: string; provider: string; model: string; request: ChatRequest; start: bigint },
    outcome: { text: string; toolCalls: ToolCall[]; done: Extract<ChatEvent, { type: 'done' }> | null; error: string | null },
  ) => {
    const attributes: Attributes = {
      [SPAN_KIND]: 'LLM',
      [LLM_MODEL_NAME]: run.model,
      [LLM_PROVIDER]: run.provider,
      [LLM_INVOCATION_PARAMETERS]: JSON.stringify(run.request.parameters),
      [INPUT_VALUE]: JSON.stringify({
        messages: run.request.messages,
        ...(run.request.tools.length > 0 ? { tools: run.request.tools } : {}),
      }),
      [INPUT_MIME_TYPE]: 'application/json',
      ...(outcome.toolCalls.length > 0
        ? {
            [OUTPUT_VALUE]: JSON.stringify({ content: outcome.text, tool_calls: outcome.toolCalls.map(wireToolCall) }),
            [OUTPUT_MIME_TYPE]: 'application/json',
          }
        : { [OUTPUT_VALUE]: outcome.text, [OUTPUT_MIME_TYPE]: 'text/plain' }),
    };
    // Tools and tool calls in OpenInference's attributes, as Phoenix's playground records them.
    run.request.tools.forEach((tool, index) => {
      attributes[`${LLM_TOOLS}.${index}.${TOOL_JSON_SCHEMA}`] = JSON.stringify(wireTool(tool));
    });
    run.request.messages.forEach((message, index) => {
      const prefix = `${LLM_INPUT_MESSAGES}.${index}`;
      attributes[`${prefix}.${MESSAGE_ROLE}`] = message.role;
      attributes[`${prefix}.${MESSAGE_CONTENT}`] = message.content;
      if (message.role === 'tool') attributes[`${prefix}.${MESSAGE_TOOL_CALL_ID}`] = message.toolCallId;
      if (message.role === 'assistant') toolCallAttributes(attributes, prefix, message.toolCalls ?? []);
    });
    if (outcome.text !== '' || outcome.toolCalls.length > 0 || outcome.error === null) {
      const prefix = `${LLM_OUTPUT_MESSAGES}.0`;
      attributes[`${prefix}.${MESSAGE_ROLE}`] = 'assistant';
      attributes[`${prefix}.${MESSAGE_CONTENT}`] = outcome.text;
      toolCallAttributes(attributes, prefix, outcome.toolCalls);
    }
    const prompt = outcome.done?.promptTokens ?? null;
    const completion = outcome.done?.completionTokens ?? null;
    if (prompt !== null) attributes[LLM_TOKEN_COUNT_PROMPT] = prompt;
    if (completion !== null) attributes[LLM_TOKEN_COUNT_COMPLETION] = completion;
    if (prompt !== null && completion !== null) attributes[LLM_TOKEN_COUNT_TOTAL] = prompt + completion;
    await ingest.ingest(
      [
        {
          resourceAttributes: {},
          spans: [
            {
              traceId: run.traceId,
              spanId: randomBytes(8).toString('hex'),
              parentSpanId: null,
              name: 'ChatCompletion',
              kind: 3,
              startTimeUnixNano: run.start,
              endTimeUnixNano: nanosNow(),
              attributes,
              events: [],
              statusCode: outcome.error === null ? 1 : 2,
              statusMessage: outcome.error ?? '',
            },
          ],
        },
      ],
      PLAYGROUND_PROJECT,
    );
  };

  /** The domain error the caller is answered with; a provider's message goes to the log for admins. */
  const failed = (error: unknown, caller: ChatCaller) => {
    if (error instanceof ProviderError) logProviderError?.(error);
    return asDomainError(error, caller.seesProviderMessages);
  };

  /**
   * The evaluators' access to the same providers (docs/evaluators.md): one judge call, its answer
   * collected and not traced (a judge's prompt and answer are kept in its evaluation instead). A
   * provider's 4xx is an InvalidInputError, its 5xx or silence an UnavailableError; what it said
   * goes to the log for admins, and into the error only on a server without authentication.
   */
  const judge = {
    async chat({ model: qualified, messages, temperature, maxTokens, responseFormat, signal }: CompletionRequest): Promise<Completion> {
      const { target, model } = await targetOf(qualified);
      try {
        const parameters = {
          temperature,
          max_tokens: maxTokens,
          ...(responseFormat ? { response_format: responseFormat as ResponseFormat } : {}),
        };
        const answer = await completeChat(target, model, { messages, tools: [], parameters }, signal);
        return { text: answer.text, promptTokens: answer.promptTokens, completionTokens: answer.completionTokens };
      } catch (error) {
        throw failed(error, { seesProviderMessages: openServer });
      }
    },
    takesResponseFormat(qualified: string): boolean {
      const provider = qualified
        .slice(0, Math.max(0, qualified.indexOf(':')))
        .trim()
        .toLowerCase();
      return PROVIDERS[provider]?.kind === 'openai';
    },
  };

  return {
    judge,

    /** Starts a run: checks the request, resolves the provider, then streams its answer and traces it. */
    async chat(request: ChatRequest, signal: AbortSignal, caller: ChatCaller): Promise<ChatRun> {
      if (request.messages.length === 0) throw new InvalidInputError('messages must hold at least one message');
      const { target, model } = await targetOf(request.model);
      checkResponseFormatFor(target.provider, target.spec.kind, request.parameters.response_format);
      const run = { traceId: randomBytes(16).toString('hex'), provider: target.provider, model, request, start: nanosNow() };
      const upstream = streamChat(target, model, request, signal);
      // The first event is awaited here, so a refused request (bad key, unknown model) is an error answer, not a broken stream.
      let first: IteratorResult<ChatEvent>;
      try {
        first = await upstream.next();
      } catch (error) {
        await trace(run, { text: '', toolCalls: [], done: null, error: failureText(error, openServer) }).catch(() => {});
        throw failed(error, caller);
      }
      async function* events(): AsyncGenerator<ChatEvent> {
        let text = '';
        const toolCalls = new ToolCallCollector();
        let done: Extract<ChatEvent, { type: 'done' }> | null = null;
        let failure: string | null = null;
        try {
          for (let next = first; !next.done; next = await upstream.next()) {
            const event = next.value;
            if (event.type === 'delta') text += event.text;
            else if (event.type === 'tool_call') toolCalls.add(event);
            else done = event;
            yield event;
          }
        } catch (error) {
          failure = failureText(error, openServer);
          throw failed(error, caller);
        } finally {
          await trace(run, {
            text,
            toolCalls: toolCalls.get(),
            done,
            error: failure ?? (done ? null : 'the run was stopped before the answer ended'),
          });
        }
      }
      return { traceId: run.traceId, provider: target.provider, model, events: events() };
    },
  };
}

/** A tool as OpenAI's API writes it: what `llm.tools.N.tool.json_schema` holds in Phoenix's spans. */
function wireTool(tool: ToolDefinition) {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      parameters: tool.parameters,
      ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
    },
  };
}

/** A tool call as OpenAI's API writes it. */
function wireToolCall(call: ToolCall) {
  return { id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } };
}

/** `<prefix>.message.tool_calls.M.tool_call.{id, function.name, function.arguments}`. */
function toolCallAttributes(attributes: Attributes, prefix: string, calls: ToolCall[]): void {
  calls.forEach((call, index) => {
    const at = `${prefix}.${MESSAGE_TOOL_CALLS}.${index}`;
    attributes[`${at}.${TOOL_CALL_ID}`] = call.id;
    attributes[`${at}.${TOOL_CALL_FUNCTION_NAME}`] = call.name;
    attributes[`${at}.${TOOL_CALL_FUNCTION_ARGUMENTS}`] = call.arguments;
  });
}

/** What a failed run records in its span: a provider's message only on an open server. */
function failureText(error: unknown, openServer: boolean): string {
  if (error instanceof ProviderError) return openServer ? error.message : error.summary;
  return error instanceof Error ? error.message : String(error);
}

/** A provider's 4xx is the request's problem (422); its 5xx or silence, a 503 to retry. */
function asDomainError(error: unknown, showMessage: boolean): Error {
  if (error instanceof ProviderError) {
    const message = showMessage ? error.message : error.summary;
    return error.status !== null && error.status < 500 ? new InvalidInputError(message) : new UnavailableError(message);
  }
  return error instanceof Error ? error : new Error(String(error));
}
