/**
 * LLM-as-judge evaluators (docs/evaluators.md): a mustache template bound to the evaluated item,
 * sent to a configured provider's model, whose answer is read as one label of a fixed set (each
 * with its score) and an explanation. Providers that take a JSON schema (OpenAI-compatible ones)
 * are asked for `{"label", "explanation"}` with the labels as an enum; any other answer is read by
 * a tolerant parser: the JSON object in the text, a `label:` line, or the one label the text names.
 * Knows nothing of HTTP or storage: the caller gives it a `JudgeChat`.
 */
import { InvalidInputError } from '@sightline/common';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import mustache from 'mustache';
import { MalformedTemplateError, type TemplateFormat, templateVariables } from '../prompts/prompt-templates.js';
import type { JudgePrompt } from './judge-prompts.js';
import type { EvaluationItem, EvaluationResult } from './code-evaluators.js';

/**
 * The variables a judge template may use; besides these, `{{attributes.<key>}}` reads one attribute
 * of a span (e.g. `{{attributes.llm.model_name}}`) and `{{conversation}}` a session's turns.
 */
export const JUDGE_VARIABLES = ['input', 'output', 'reference', 'metadata', 'conversation', 'attributes'] as const;

/** The template variable's root name: `attributes` for `attributes.llm.model_name`. */
const rootName = (name: string) => name.split('.')[0]!;

const JudgeLabel = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 64, description: 'A label the judge may answer, e.g. `correct`.' }),
    score: Type.Number({ description: 'The score an answer of this label gives, e.g. 1 for `correct`, 0 for `incorrect`.' }),
  },
  { additionalProperties: false },
);

export const LlmJudgeDefinitionSchema = Type.Object(
  {
    type: Type.Literal('llm_judge', { description: 'The evaluator kind: `llm_judge`.' }),
    template: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 32_768,
        description:
          'The prompt, a mustache template over `{{input}}`, `{{output}}`, `{{reference}}` (the expected output), `{{metadata}}` ' +
          "(JSON text), `{{conversation}}` (a session's turns) and `{{attributes.<key>}}` (one attribute of a span, e.g. " +
          '`{{attributes.llm.model_name}}`); values are inserted as they are (no HTML escaping). Or `prompt` instead.',
      }),
    ),
    prompt: Type.Optional(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 256, description: 'A stored prompt (docs/prompts.md).' }),
          tag: Type.String({
            minLength: 1,
            maxLength: 256,
            description: 'The tag whose version is used when the judge runs, e.g. `production`: moving the tag changes the prompt.',
          }),
        },
        {
          additionalProperties: false,
          description: "Instead of `template`: a stored prompt's version by tag, its messages rendered with the same variables.",
        },
      ),
    ),
    model: Type.String({
      minLength: 3,
      maxLength: 256,
      description: 'The judge model as `provider:model` (e.g. `openai:gpt-4o-mini`), a provider configured as for the playground.',
    }),
    labels: Type.Array(JudgeLabel, { minItems: 2, maxItems: 20, description: 'The labels the judge chooses from, with their scores.' }),
    explanation: Type.Optional(Type.Boolean({ default: true, description: 'Whether the judge explains its label (default true).' })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2, description: 'Sampling temperature (default 0).' })),
    max_tokens: Type.Optional(Type.Integer({ minimum: 16, maximum: 4096, description: 'Most tokens of the answer (default 512).' })),
  },
  {
    title: 'LlmJudgeEvaluator',
    description: 'An LLM as judge: the rendered template is sent to the model, whose answer is read as one of the labels.',
    additionalProperties: false,
  },
);
export type LlmJudgeDefinition = Static<typeof LlmJudgeDefinitionSchema>;

/** Checks a judge definition from a request; 422 with a sentence naming the field. */
export function parseLlmJudge(definition: unknown): LlmJudgeDefinition {
  if (!Value.Check(LlmJudgeDefinitionSchema, definition)) {
    const [first] = Value.Errors(LlmJudgeDefinitionSchema, definition);
    const where = first?.path ? `definition${first.path.replaceAll('/', '.')}` : 'definition';
    throw new InvalidInputError(`${where}: ${first?.message ?? 'is not an LLM judge definition'}`);
  }
  if ((definition.template === undefined) === (definition.prompt === undefined)) {
    throw new InvalidInputError('definition: give either a template or a stored prompt (prompt: {name, tag}), not both or neither');
  }
  if (definition.template !== undefined) checkJudgeVariables('MUSTACHE', definition.template, 'definition.template');
  const seen = new Set<string>();
  for (const { label } of definition.labels) {
    const key = label.trim().toLowerCase();
    if (key === '' || seen.has(key)) throw new InvalidInputError(`definition.labels: ${JSON.stringify(label)} is blank or given twice`);
    seen.add(key);
  }
  if (!definition.model.includes(':')) {
    throw new InvalidInputError(
      `definition.model must be "provider:model", e.g. "openai:gpt-4o-mini" (got ${JSON.stringify(definition.model)})`,
    );
  }
  return definition;
}

/** Refuses (422) a template that names a variable a judge does not have, or that does not parse. */
export function checkJudgeVariables(format: TemplateFormat, template: string, where: string): void {
  let variables: string[];
  try {
    variables = templateVariables(format, template);
  } catch (error) {
    if (error instanceof MalformedTemplateError) throw new InvalidInputError(`${where}: ${error.message}`);
    throw error;
  }
  const unknown = variables.filter((name) => !(JUDGE_VARIABLES as readonly string[]).includes(rootName(name)));
  if (unknown.length > 0) {
    throw new InvalidInputError(
      `${where} uses ${unknown.map((name) => `{{${name}}}`).join(', ')}, which a judge does not have: ` +
        `use {{input}}, {{output}}, {{reference}}, {{metadata}}, {{conversation}} (a session's turns) or {{attributes.<key>}} (one attribute of a span)`,
    );
  }
}

/** A value as the template shows it: text as itself, anything else as JSON. */
function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/**
 * Flat dotted attribute keys as nested objects, which is how mustache reads a dotted name: a
 * value's text at each leaf. Where a key is both a value and a prefix of others (`a` and `a.b`),
 * the nested keys win.
 */
function nestedAttributes(attributes: Record<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const key of Object.keys(attributes).sort()) {
    const parts = key.split('.');
    let node = root;
    for (const part of parts.slice(0, -1)) {
      const next = node[part];
      if (typeof next !== 'object' || next === null) node[part] = {};
      node = node[part] as Record<string, unknown>;
    }
    const leaf = parts.at(-1)!;
    if (typeof node[leaf] !== 'object' || node[leaf] === null) node[leaf] = text(attributes[key]);
  }
  return root;
}

/** A session's turns as the judge reads them. */
function conversationText(turns: NonNullable<EvaluationItem['conversation']>): string {
  return turns.map((turn, index) => `Turn ${index + 1}\nUser: ${turn.input ?? ''}\nAssistant: ${turn.output ?? ''}`).join('\n\n');
}

export interface JudgeMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A template in a stored prompt's format, filled from the view (no HTML escaping: this is a prompt). */
function render(format: TemplateFormat, template: string, view: Record<string, unknown>): string {
  if (format === 'NONE') return template;
  if (format === 'MUSTACHE') {
    // A writer of its own (the default caches every template), and no HTML escaping.
    return new mustache.Writer().render(template, view, undefined, { escape: (value: unknown) => String(value) });
  }
  // F_STRING: {name} (dotted for attributes), {{ and }} for braces.
  return template.replace(/\{\{|\}\}|\{([^{}]+)\}/g, (match, name: string | undefined) => {
    if (name === undefined) return match[0]!;
    let value: unknown = view;
    for (const part of name.trim().split('.')) value = (value as Record<string, unknown> | undefined)?.[part];
    return typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
  });
}

/**
 * The messages sent to the judge for an item: the instructions, then the rendered template (or
 * the messages of the stored prompt, each rendered).
 */
export function judgeMessages(definition: LlmJudgeDefinition, item: EvaluationItem, prompt?: JudgePrompt): JudgeMessage[] {
  const view = {
    input: text(item.input),
    output: text(item.output),
    reference: text(item.reference),
    metadata: text(item.metadata),
    conversation: item.conversation ? conversationText(item.conversation) : '',
    attributes: item.attributes ? nestedAttributes(item.attributes) : {},
  };
  const labels = definition.labels.map(({ label }) => JSON.stringify(label)).join(', ');
  const explain = definition.explanation ?? true;
  const instructions: JudgeMessage = {
    role: 'system',
    content:
      `You are an evaluator. Answer with a JSON object {"label": …${explain ? ', "explanation": …' : ''}} and nothing else. ` +
      `The label must be exactly one of ${labels}.${explain ? ' The explanation says briefly why, in one or two sentences.' : ''}`,
  };
  if (prompt)
    return [
      instructions,
      ...prompt.messages.map((message) => ({ role: message.role, content: render(prompt.format, message.content, view) })),
    ];
  return [instructions, { role: 'user', content: render('MUSTACHE', definition.template ?? '', view) }];
}

/** OpenAI's structured output for the answer: the labels as an enum. */
export function judgeResponseFormat(definition: LlmJudgeDefinition): Record<string, unknown> {
  return {
    type: 'json_schema',
    json_schema: {
      name: 'evaluation',
      strict: true,
      schema: {
        type: 'object',
        properties: {
          label: { type: 'string', enum: definition.labels.map(({ label }) => label) },
          explanation: { type: 'string' },
        },
        required: ['label', 'explanation'],
        additionalProperties: false,
      },
    },
  };
}

/** The label of the set that `candidate` names (case and surrounding space ignored), if any. */
function labelNamed(definition: LlmJudgeDefinition, candidate: unknown): { label: string; score: number } | undefined {
  if (typeof candidate !== 'string') return undefined;
  const key = candidate
    .trim()
    .replace(/^["'`*]+|["'`*.]+$/g, '')
    .toLowerCase();
  return definition.labels.find(({ label }) => label.toLowerCase() === key);
}

/** The JSON object of an answer (alone, fenced, or among other text), if it has one. */
function jsonObjectIn(answer: string): Record<string, unknown> | undefined {
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    const parsed: unknown = JSON.parse(answer.slice(start, end + 1));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const escapeRegExp = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Reads the judge's answer as one of the labels; label and score null when it names none, or several. */
export function parseJudgeAnswer(definition: LlmJudgeDefinition, answer: string): EvaluationResult {
  const object = jsonObjectIn(answer);
  if (object) {
    const found = labelNamed(definition, object.label);
    if (found) {
      const explanation = typeof object.explanation === 'string' ? object.explanation : '';
      return { label: found.label, score: found.score, explanation };
    }
  }
  const line = /^\s*\**label\**\s*[:=]\s*(.+)$/im.exec(answer);
  const fromLine = line ? labelNamed(definition, line[1]) : undefined;
  if (fromLine) return { label: fromLine.label, score: fromLine.score, explanation: answer.trim() };
  // As Phoenix's "rails": exactly one of the labels named anywhere, as a whole word.
  const named = definition.labels.filter(({ label }) =>
    new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRegExp(label)}($|[^\\p{L}\\p{N}_])`, 'iu').test(answer),
  );
  if (named.length === 1) return { label: named[0]!.label, score: named[0]!.score, explanation: answer.trim() };
  return {
    label: null,
    score: null,
    explanation: `the judge's answer names ${named.length === 0 ? 'none' : 'more than one'} of the labels ${definition.labels
      .map(({ label }) => label)
      .join(', ')}`,
  };
}

/** One call of the judge model: the answer's text and its usage. Provider failures throw (the caller retries). */
export type JudgeChat = (request: {
  model: string;
  messages: JudgeMessage[];
  temperature: number;
  maxTokens: number;
  responseFormat: Record<string, unknown> | null;
  signal: AbortSignal;
}) => Promise<{ text: string; promptTokens: number | null; completionTokens: number | null }>;

/** What a judge run keeps for audit beside its result (docs/evaluators.md, "Audit"). */
export interface JudgeAudit {
  messages: JudgeMessage[];
  answer: string;
  promptTokens: number | null;
  completionTokens: number | null;
}

/** Whether the judge's provider takes OpenAI's `response_format` (the OpenAI-compatible ones). */
export type TakesResponseFormat = (model: string) => boolean;

/** Runs the judge on one item. */
export async function runLlmJudge(
  definition: LlmJudgeDefinition,
  item: EvaluationItem,
  chat: JudgeChat,
  takesResponseFormat: TakesResponseFormat,
  signal: AbortSignal,
  prompt?: JudgePrompt,
): Promise<EvaluationResult & { audit: JudgeAudit }> {
  const messages = judgeMessages(definition, item, prompt);
  const answer = await chat({
    model: definition.model,
    messages,
    temperature: definition.temperature ?? 0,
    maxTokens: definition.max_tokens ?? 512,
    responseFormat: takesResponseFormat(definition.model) ? judgeResponseFormat(definition) : null,
    signal,
  });
  return {
    ...parseJudgeAnswer(definition, answer.text),
    audit: { messages, answer: answer.text, promptTokens: answer.promptTokens, completionTokens: answer.completionTokens },
  };
}
