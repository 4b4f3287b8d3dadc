/**
 * The prices Sightline ships (docs/costs.md): list prices in USD per million tokens of common
 * models, as their providers published them. Re-synced at every start-up, so a release can
 * correct them; admins override any of them (or add models) in settings, and overrides win.
 * Patterns are matched case-insensitively against `llm.model_name` and allow the dated
 * snapshots providers append (`gpt-4o-2024-08-06`, `claude-3-5-sonnet-20241022`).
 */
export interface ModelPrice {
  name: string;
  provider: string | null;
  namePattern: string;
  inputPerMillion: number;
  outputPerMillion: number;
  cacheReadPerMillion: number | null;
  cacheWritePerMillion: number | null;
}

/** `^name` followed by an optional date or version suffix, with the dots of the name escaped. */
const named = (name: string) => `^(?:[\\w-]+/)?${name.replace(/\./g, '\\.')}(?:-\\d{4}-?\\d{2}-?\\d{2}|-latest|-\\d{3,4})?$`;

const model = (
  name: string,
  provider: string,
  input: number,
  output: number,
  cacheRead: number | null = null,
  cacheWrite: number | null = null,
): ModelPrice => ({
  name,
  provider,
  namePattern: named(name),
  inputPerMillion: input,
  outputPerMillion: output,
  cacheReadPerMillion: cacheRead,
  cacheWritePerMillion: cacheWrite,
});

export const DEFAULT_MODELS: readonly ModelPrice[] = [
  // OpenAI
  model('gpt-5', 'openai', 1.25, 10, 0.125),
  model('gpt-5-mini', 'openai', 0.25, 2, 0.025),
  model('gpt-5-nano', 'openai', 0.05, 0.4, 0.005),
  model('gpt-4.1', 'openai', 2, 8, 0.5),
  model('gpt-4.1-mini', 'openai', 0.4, 1.6, 0.1),
  model('gpt-4.1-nano', 'openai', 0.1, 0.4, 0.025),
  model('gpt-4o', 'openai', 2.5, 10, 1.25),
  model('gpt-4o-mini', 'openai', 0.15, 0.6, 0.075),
  model('gpt-4-turbo', 'openai', 10, 30),
  model('gpt-4', 'openai', 30, 60),
  model('gpt-3.5-turbo', 'openai', 0.5, 1.5),
  model('o1', 'openai', 15, 60, 7.5),
  model('o1-mini', 'openai', 1.1, 4.4, 0.55),
  model('o3', 'openai', 2, 8, 0.5),
  model('o3-mini', 'openai', 1.1, 4.4, 0.55),
  model('o4-mini', 'openai', 1.1, 4.4, 0.275),
  // Anthropic: cache reads at a tenth of the input price, cache writes (5 minutes) at 1.25 times.
  model('claude-opus-4-5', 'anthropic', 5, 25, 0.5, 6.25),
  model('claude-opus-4-1', 'anthropic', 15, 75, 1.5, 18.75),
  model('claude-opus-4', 'anthropic', 15, 75, 1.5, 18.75),
  model('claude-sonnet-4-5', 'anthropic', 3, 15, 0.3, 3.75),
  model('claude-sonnet-4', 'anthropic', 3, 15, 0.3, 3.75),
  model('claude-haiku-4-5', 'anthropic', 1, 5, 0.1, 1.25),
  model('claude-3-7-sonnet', 'anthropic', 3, 15, 0.3, 3.75),
  model('claude-3-5-sonnet', 'anthropic', 3, 15, 0.3, 3.75),
  model('claude-3-5-haiku', 'anthropic', 0.8, 4, 0.08, 1),
  model('claude-3-opus', 'anthropic', 15, 75, 1.5, 18.75),
  model('claude-3-haiku', 'anthropic', 0.25, 1.25, 0.03, 0.3),
  // Google (prompts up to 200k tokens)
  model('gemini-2.5-pro', 'google', 1.25, 10, 0.31),
  model('gemini-2.5-flash', 'google', 0.3, 2.5, 0.075),
  model('gemini-2.5-flash-lite', 'google', 0.1, 0.4, 0.025),
  model('gemini-2.0-flash', 'google', 0.1, 0.4, 0.025),
  model('gemini-1.5-pro', 'google', 1.25, 5),
  model('gemini-1.5-flash', 'google', 0.075, 0.3),
  // Others
  model('deepseek-chat', 'deepseek', 0.27, 1.1, 0.07),
  model('deepseek-reasoner', 'deepseek', 0.55, 2.19, 0.14),
  model('mistral-large', 'mistralai', 2, 6),
  model('mistral-small', 'mistralai', 0.1, 0.3),
];
