/**
 * LLM-as-judge evaluators for the runner (docs/experiments.md, "LLM-as-judge"): a classification
 * evaluator asks a model, through the server's OpenAI-compatible /v1/chat/completions (so provider
 * keys stay on the server and every judgement is traced in the playground project), to pick one
 * of the allowed labels for a run, and scores it from the label.
 */
import { clientSettings } from '../settings.js';
import { createJsonRequest } from './http.js';
import type { RetryOptions } from './retry.js';
import type { ConnectionOptions, EvaluationResult, Evaluator, EvaluatorParams } from './types.js';

export interface ClassificationEvaluatorOptions extends ConnectionOptions {
  name: string;
  /** `provider:model`, e.g. `openai:gpt-4o-mini` (docs/playground.md). */
  model: string;
  /**
   * The question for the judge, with mustache placeholders filled from the run: `{{input}}`,
   * `{{output}}`, `{{expected}}`, `{{metadata}}`, or a key inside them (`{{input.question}}`).
   */
  promptTemplate: string;
  /** The allowed labels and the score each gives, e.g. `{ correct: 1, incorrect: 0 }`. */
  choices: Readonly<Record<string, number>>;
  /** Ask for an explanation of the label (default true). */
  explain?: boolean;
  temperature?: number;
  retry?: RetryOptions;
}

interface ChatCompletion {
  choices: { message: { content: string } }[];
}

/** The value at a dotted path of the run's fields, as text for the prompt. */
function placeholderValue(params: EvaluatorParams, path: string): string {
  const [head, ...rest] = path.split('.');
  const roots: Record<string, unknown> = {
    input: params.input,
    output: params.output,
    expected: params.expected,
    metadata: params.metadata,
  };
  let value: unknown = head === undefined ? undefined : roots[head];
  for (const key of rest) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  if (value === undefined) throw new Error(`the judge's template names {{${path}}}, which this run does not have`);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The template with each `{{path}}` replaced; an unknown placeholder is an error, never an empty string. */
export function renderJudgePrompt(template: string, params: EvaluatorParams): string {
  return template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_match, path: string) => placeholderValue(params, path));
}

/** The label (and explanation) in a judge's answer: a JSON object when it gave one, else the one allowed label it names. */
export function parseJudgement(content: string, labels: readonly string[]): { label: string; explanation: string | null } {
  const json = /\{[\s\S]*\}/.exec(content)?.[0];
  if (json) {
    try {
      const parsed = JSON.parse(json) as { label?: unknown; explanation?: unknown };
      const label =
        typeof parsed.label === 'string'
          ? labels.find((each) => each.toLowerCase() === parsed.label!.toString().trim().toLowerCase())
          : undefined;
      if (label) return { label, explanation: typeof parsed.explanation === 'string' ? parsed.explanation : null };
    } catch {
      // not JSON after all: look for a bare label below
    }
  }
  const words = content.toLowerCase();
  const named = labels.filter((label) => new RegExp(`\\b${label.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(words));
  if (named.length === 1) return { label: named[0]!, explanation: null };
  throw new Error(
    `the judge answered ${JSON.stringify(content.slice(0, 200))}, which names ${named.length === 0 ? 'none' : 'more than one'} of ${labels.join(', ')}`,
  );
}

/** An evaluator with phoenix-client's exact shape (a kind, a structured result), so it fits both runners. */
export interface JudgeEvaluator extends Evaluator {
  kind: 'LLM';
  evaluate: (params: EvaluatorParams) => Promise<EvaluationResult>;
}

/** A classification evaluator (kind LLM) usable in runExperiment and phoenix-client's runner alike. */
export function createClassificationEvaluator(options: ClassificationEvaluatorOptions): JudgeEvaluator {
  const labels = Object.keys(options.choices);
  if (labels.length < 2) throw new RangeError('choices must name at least two labels');
  const settings = options.client
    ? { baseUrl: options.client.baseUrl, headers: options.client.headers }
    : clientSettings({ baseUrl: options.baseUrl, apiKey: options.apiKey, headers: options.headers, env: options.env });
  const request = createJsonRequest({
    baseUrl: settings.baseUrl,
    headers: settings.headers,
    fetch: options.fetch ?? options.client?.fetch,
    retry: options.retry,
  });
  const explain = options.explain ?? true;
  const instructions =
    `You are an evaluator. Answer with one JSON object and nothing else: {"label": one of ${JSON.stringify(labels)}` +
    (explain ? ', "explanation": a short reason}.' : '}.');
  return {
    name: options.name,
    kind: 'LLM',
    async evaluate(params: EvaluatorParams): Promise<EvaluationResult> {
      const completion = await request<ChatCompletion>('POST', '/v1/chat/completions', {
        model: options.model,
        temperature: options.temperature ?? 0,
        messages: [
          { role: 'system', content: instructions },
          { role: 'user', content: renderJudgePrompt(options.promptTemplate, params) },
        ],
      });
      const { label, explanation } = parseJudgement(completion.choices[0]?.message.content ?? '', labels);
      return { label, score: options.choices[label]!, explanation, metadata: { model: options.model } };
    },
  };
}
