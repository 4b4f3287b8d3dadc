/**
 * The model providers the playground calls (docs/playground.md): OpenAI-compatible chat
 * completions (OpenAI, Azure OpenAI's v1 API, Ollama, vLLM or LiteLLM at a base URL,
 * DeepSeek, xAI, Groq) and Anthropic messages, both streamed through the providers' own SDKs.
 * Knows nothing of HTTP routes or storage: it gets a resolved key and base URL.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { InvalidInputError } from '@sightline/common';
import type OpenAI from 'openai';
import { checkResolvedHost } from './provider-urls.js';
import { scrubKey } from './scrub-key.js';

// The SDKs take about 23 MB of memory once loaded; most servers never call a provider, so they
// load on the first playground or judge run (docs/performance.md, "Memory").
let openAiSdk: Promise<typeof OpenAI> | null = null;
let anthropicSdk: Promise<typeof Anthropic> | null = null;
const loadOpenAi = () => (openAiSdk ??= import('openai').then((module) => module.default));
const loadAnthropic = () => (anthropicSdk ??= import('@anthropic-ai/sdk').then((module) => module.default));

export type ProviderKind = 'openai' | 'anthropic';

export interface ProviderSpec {
  kind: ProviderKind;
  /** Default base URL; null when the operator must give one. */
  baseUrl: string | null;
  /**
   * The default is an address on the server's own machine (Ollama's): used only on a server
   * without authentication, where whoever reaches the server is its operator (docs/playground.md).
   */
  localDefault: boolean;
  /** The variable (or stored secret) holding the API key; null when the provider needs none. */
  keyName: string | null;
  /** The variable (or stored setting) that overrides the base URL. */
  baseUrlName: string;
}

const spec = (kind: ProviderKind, baseUrl: string | null, name: string, keyRequired = true, localDefault = false): ProviderSpec => ({
  kind,
  baseUrl,
  localDefault,
  keyName: keyRequired ? `${name}_API_KEY` : null,
  baseUrlName: `${name}_BASE_URL`,
});

/** Providers by the name a model is prefixed with (`openai:gpt-4o-mini`), lower case. */
export const PROVIDERS: Readonly<Record<string, ProviderSpec>> = {
  openai: spec('openai', 'https://api.openai.com/v1', 'OPENAI'),
  azure_openai: spec('openai', null, 'AZURE_OPENAI'),
  anthropic: spec('anthropic', 'https://api.anthropic.com', 'ANTHROPIC'),
  ollama: spec('openai', 'http://127.0.0.1:11434/v1', 'OLLAMA', false, true),
  openai_compatible: spec('openai', null, 'OPENAI_COMPATIBLE', false),
  deepseek: spec('openai', 'https://api.deepseek.com', 'DEEPSEEK'),
  xai: spec('openai', 'https://api.x.ai/v1', 'XAI'),
  groq: spec('openai', 'https://api.groq.com/openai/v1', 'GROQ'),
};

/** Every name a provider key or base URL may be stored under. */
export const PROVIDER_SETTING_NAMES: readonly string[] = Object.values(PROVIDERS).flatMap((provider) => [
  ...(provider.keyName ? [provider.keyName] : []),
  provider.baseUrlName,
]);

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Invocation parameters the playground passes through (the common subset of both APIs). */
export interface InvocationParameters {
  temperature?: number | undefined;
  top_p?: number | undefined;
  max_tokens?: number | undefined;
  stop?: string[] | undefined;
  /** OpenAI's response_format (JSON mode, JSON schema), passed through to OpenAI-compatible providers. */
  response_format?: Record<string, unknown> | undefined;
}

export interface ChatTarget {
  provider: string;
  spec: ProviderSpec;
  baseUrl: string;
  apiKey: string | null;
  /** Whether the base URL's host may resolve to a loopback or link-local address (provider-urls.ts). */
  allowLocalAddresses: boolean;
}

export type ChatEvent =
  | { type: 'delta'; text: string }
  | { type: 'done'; finishReason: string | null; promptTokens: number | null; completionTokens: number | null };

/**
 * A provider's refusal or failure, with the provider's status (null when it could not be reached).
 * `message` holds what the provider said (scrubbed of the key), for admins and the server log;
 * `summary` only the status, for everyone else (docs/playground.md, "Errors"): an upstream's
 * answer may describe its account, its configuration or the addresses behind it.
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly summary: string;
  constructor(
    readonly provider: string,
    readonly status: number | null,
    upstreamMessage: string,
  ) {
    super(status === null ? `${provider} could not be reached: ${upstreamMessage}` : `${provider} answered ${status}: ${upstreamMessage}`);
    this.summary =
      status === null
        ? `${provider} could not be reached; an admin can see why in the server log`
        : `${provider} answered ${status}; an admin can see its message in the server log`;
  }
}

/** Anthropic requires max_tokens; this is the playground's default when none is given. */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 1024;

/** Streams one chat completion from the target; SDK errors become ProviderError (never carrying the key). */
export async function* streamChat(
  target: ChatTarget,
  model: string,
  messages: ChatMessage[],
  parameters: InvocationParameters,
  signal: AbortSignal,
): AsyncGenerator<ChatEvent> {
  try {
    if (target.spec.kind === 'anthropic') yield* streamAnthropic(target, model, messages, parameters, signal);
    else yield* streamOpenAi(target, model, messages, parameters, signal);
  } catch (error) {
    throw providerError(target, error);
  }
}

/**
 * SDK clients by provider, address, key and address policy: building one per call cost more than
 * the call itself once an online evaluation rule judged hundreds of items a second
 * (docs/performance.md, "Online evaluation"). A changed key or address is another entry; the
 * oldest go past a few dozen.
 */
const CLIENTS_KEPT = 32;
const clients = new Map<string, unknown>();
function cachedClient<T>(target: ChatTarget, make: () => T): T {
  const key = JSON.stringify([target.provider, target.baseUrl, target.apiKey, target.allowLocalAddresses]);
  let client = clients.get(key) as T | undefined;
  if (client === undefined) {
    client = make();
    if (clients.size >= CLIENTS_KEPT) clients.delete(clients.keys().next().value!);
    clients.set(key, client);
  }
  return client;
}

async function openAiClient(target: ChatTarget) {
  const OpenAiClient = await loadOpenAi();
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

async function anthropicClient(target: ChatTarget) {
  const AnthropicClient = await loadAnthropic();
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
 * One whole answer, not streamed (an evaluator's judge: nobody watches it arrive). OpenAI-compatible
 * providers answer it in one response, which costs less to read than a stream of chunks; Anthropic
 * is read from its stream, as for the playground.
 */
export async function completeChat(
  target: ChatTarget,
  model: string,
  messages: ChatMessage[],
  parameters: InvocationParameters,
  signal: AbortSignal,
): Promise<{ text: string; promptTokens: number | null; completionTokens: number | null }> {
  if (target.spec.kind === 'anthropic') {
    let text = '';
    let usage = { promptTokens: null as number | null, completionTokens: null as number | null };
    for await (const event of streamChat(target, model, messages, parameters, signal)) {
      if (event.type === 'delta') text += event.text;
      else usage = { promptTokens: event.promptTokens, completionTokens: event.completionTokens };
    }
    return { text, ...usage };
  }
  try {
    const client = await openAiClient(target);
    const completion = await client.chat.completions.create(
      {
        model,
        messages,
        ...(parameters.temperature !== undefined ? { temperature: parameters.temperature } : {}),
        ...(parameters.max_tokens !== undefined ? { max_tokens: parameters.max_tokens } : {}),
        ...(parameters.response_format !== undefined
          ? { response_format: parameters.response_format as unknown as OpenAI.ChatCompletionCreateParams['response_format'] }
          : {}),
      },
      { signal },
    );
    return {
      text: completion.choices[0]?.message?.content ?? '',
      promptTokens: completion.usage?.prompt_tokens ?? null,
      completionTokens: completion.usage?.completion_tokens ?? null,
    };
  } catch (error) {
    throw providerError(target, error);
  }
}

async function* streamOpenAi(
  target: ChatTarget,
  model: string,
  messages: ChatMessage[],
  parameters: InvocationParameters,
  signal: AbortSignal,
): AsyncGenerator<ChatEvent> {
  const client = await openAiClient(target);
  const stream = await client.chat.completions.create(
    {
      model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      ...(parameters.temperature !== undefined ? { temperature: parameters.temperature } : {}),
      ...(parameters.top_p !== undefined ? { top_p: parameters.top_p } : {}),
      ...(parameters.max_tokens !== undefined ? { max_tokens: parameters.max_tokens } : {}),
      ...(parameters.stop !== undefined ? { stop: parameters.stop } : {}),
      ...(parameters.response_format !== undefined
        ? { response_format: parameters.response_format as unknown as OpenAI.ChatCompletionCreateParams['response_format'] }
        : {}),
    },
    { signal },
  );
  let finishReason: string | null = null;
  let promptTokens: number | null = null;
  let completionTokens: number | null = null;
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    const text = choice?.delta?.content;
    if (text) yield { type: 'delta', text };
    if (choice?.finish_reason) finishReason = choice.finish_reason;
    if (chunk.usage) {
      promptTokens = chunk.usage.prompt_tokens;
      completionTokens = chunk.usage.completion_tokens;
    }
  }
  yield { type: 'done', finishReason, promptTokens, completionTokens };
}

async function* streamAnthropic(
  target: ChatTarget,
  model: string,
  messages: ChatMessage[],
  parameters: InvocationParameters,
  signal: AbortSignal,
): AsyncGenerator<ChatEvent> {
  const client = await anthropicClient(target);
  const system = messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .join('\n\n');
  const stream = await client.messages.create(
    {
      model,
      max_tokens: parameters.max_tokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages: messages
        .filter((message) => message.role !== 'system')
        .map((message) => ({ role: message.role as 'user' | 'assistant', content: message.content })),
      stream: true,
      ...(system ? { system } : {}),
      ...(parameters.temperature !== undefined ? { temperature: parameters.temperature } : {}),
      ...(parameters.top_p !== undefined ? { top_p: parameters.top_p } : {}),
      ...(parameters.stop !== undefined ? { stop_sequences: parameters.stop } : {}),
    },
    { signal },
  );
  let finishReason: string | null = null;
  let promptTokens: number | null = null;
  let completionTokens: number | null = null;
  for await (const event of stream) {
    if (event.type === 'message_start') promptTokens = event.message.usage.input_tokens;
    else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') yield { type: 'delta', text: event.delta.text };
    else if (event.type === 'message_delta') {
      finishReason = event.delta.stop_reason ?? finishReason;
      completionTokens = event.usage.output_tokens;
    }
  }
  yield { type: 'done', finishReason, promptTokens, completionTokens };
}

/**
 * The fetch both SDKs call through: it checks the addresses the base URL's host resolves to just
 * before each call (provider-urls.ts), and follows no redirect: a provider's answer must not
 * send the request, with its key, to an address nobody checked (docs/playground.md, "Where the
 * server may call"). Same-origin redirects are refused too: an API has no need of them.
 */
function guardedFetch(target: ChatTarget): typeof fetch {
  const base = new URL(target.baseUrl);
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== base.origin) {
      throw new InvalidInputError(`${target.provider}: a call outside ${target.spec.baseUrlName}'s origin was refused`);
    }
    await checkResolvedHost(target.spec.baseUrlName, url.hostname, target.allowLocalAddresses);
    const response = await fetch(input, { ...init, redirect: 'manual' });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {});
      throw new ProviderError(
        target.provider,
        response.status,
        `a redirect to ${redirectTarget(response.headers.get('location'), url)}, which Sightline does not follow: ` +
          `set ${target.spec.baseUrlName} to the address that answers`,
      );
    }
    return response;
  };
}

/** Where a redirect points, as an origin (its path and query may carry tokens); "nowhere" without a Location. */
function redirectTarget(location: string | null, from: URL): string {
  if (location === null) return 'nowhere';
  try {
    const target = new URL(location, from);
    return target.origin === from.origin ? `${target.origin} (the same origin)` : `${target.origin} (another origin)`;
  } catch {
    return 'an unreadable location';
  }
}

/** Our own refusals thrown inside the SDK's fetch come back wrapped (APIConnectionError's cause). */
function ownError(error: unknown): Error | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    if (current instanceof ProviderError || current instanceof InvalidInputError) return current;
  }
  return null;
}

/** The SDK's error as a ProviderError whose message names the provider and never holds the key. */
function providerError(target: ChatTarget, error: unknown): Error {
  const own = ownError(error);
  if (own) return own;
  const status = typeof (error as { status?: unknown }).status === 'number' ? (error as { status: number }).status : null;
  let message = scrubKey(error instanceof Error ? error.message : String(error), target.apiKey);
  // The SDKs start their messages with the status, which the sentence below already gives.
  if (status !== null && message.startsWith(`${status} `)) message = message.slice(String(status).length + 1);
  return new ProviderError(target.provider, status, message);
}
