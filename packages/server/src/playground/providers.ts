/**
 * The model providers the playground calls (docs/playground.md): OpenAI-compatible chat
 * completions (OpenAI, Azure OpenAI's v1 API, Ollama, vLLM or LiteLLM at a base URL,
 * DeepSeek, xAI, Groq), Anthropic messages and Google's Gemini API, streamed through the
 * providers' own SDKs (provider-openai.ts, provider-anthropic.ts, provider-google.ts). Knows
 * nothing of HTTP routes or storage: it gets a resolved key and base URL.
 */
import type { ChatAnswer, ChatEvent, ChatInput } from './chat-types.js';
import { ToolCallCollector } from './chat-types.js';
import { type ChatTarget, type ProviderKind, type ProviderSpec, providerError } from './provider-http.js';
import { streamAnthropic } from './provider-anthropic.js';
import { completeGoogle, googleMessage, streamGoogle } from './provider-google.js';
import { completeOpenAi, streamOpenAi } from './provider-openai.js';

export type * from './chat-types.js';
export { ProviderError, type ChatTarget, type ProviderKind, type ProviderSpec } from './provider-http.js';

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
  // The Gemini API (the SDK adds /v1beta); GEMINI_API_KEY is the name Google's own tools read.
  google: spec('google', 'https://generativelanguage.googleapis.com', 'GEMINI'),
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

/** Streams one chat completion from the target; SDK errors become ProviderError (never carrying the key). */
export async function* streamChat(target: ChatTarget, model: string, input: ChatInput, signal: AbortSignal): AsyncGenerator<ChatEvent> {
  try {
    if (target.spec.kind === 'anthropic') yield* streamAnthropic(target, model, input, signal);
    else if (target.spec.kind === 'google') yield* streamGoogle(target, model, input, signal);
    else yield* streamOpenAi(target, model, input, signal);
  } catch (error) {
    throw providerError(target, error, target.spec.kind === 'google' ? googleMessage : undefined);
  }
}

/**
 * One whole answer, not streamed (an evaluator's judge: nobody watches it arrive). OpenAI-compatible
 * providers and Gemini answer it in one response; Anthropic is read from its stream, as for the playground.
 */
export async function completeChat(target: ChatTarget, model: string, input: ChatInput, signal: AbortSignal): Promise<ChatAnswer> {
  if (target.spec.kind === 'anthropic') return collect(streamChat(target, model, input, signal));
  try {
    return target.spec.kind === 'google'
      ? await completeGoogle(target, model, input, signal)
      : await completeOpenAi(target, model, input, signal);
  } catch (error) {
    throw providerError(target, error, target.spec.kind === 'google' ? googleMessage : undefined);
  }
}

/** The whole answer of a stream of events. */
export async function collect(events: AsyncIterable<ChatEvent>): Promise<ChatAnswer> {
  const answer: ChatAnswer = { text: '', toolCalls: [], finishReason: null, promptTokens: null, completionTokens: null };
  const calls = new ToolCallCollector();
  for await (const event of events) {
    if (event.type === 'delta') answer.text += event.text;
    else if (event.type === 'tool_call') calls.add(event);
    else
      Object.assign(answer, {
        finishReason: event.finishReason,
        promptTokens: event.promptTokens,
        completionTokens: event.completionTokens,
      });
  }
  return { ...answer, toolCalls: calls.get() };
}
