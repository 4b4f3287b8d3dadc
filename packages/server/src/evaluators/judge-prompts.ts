/**
 * A judge's prompt taken from a stored prompt version by tag (docs/evaluators.md, "A stored
 * prompt"): the version the tag points at when the judge runs, so moving the tag (say
 * `production`) changes what every judge using it sends, with no new evaluator version. Its
 * messages' text parts are the template; the evaluation's audit keeps what was sent.
 */
import { InvalidInputError } from '@sightline/common';
import type { PromptsRepository } from '../db/repositories/prompts-repository.js';
import { TEMPLATE_FORMATS, type TemplateFormat } from '../prompts/prompt-templates.js';

/** The template of a stored prompt version, as a judge renders it. */
export interface JudgePrompt {
  format: TemplateFormat;
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  /** The version the tag pointed at. */
  versionId: number;
}

/** With `cached`, a prompt resolved in the last few seconds may be reused (the evaluation jobs); without, it is read now. */
export type ResolveJudgePrompt = (name: string, tag: string, options?: { cached?: boolean }) => Promise<JudgePrompt>;

/** A message's text: itself, or its text parts joined (tool calls and results are no part of a judge's prompt). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

const ROLES: Record<string, JudgePrompt['messages'][number]['role']> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  assistant: 'assistant',
  ai: 'assistant',
  model: 'assistant',
};

/** How long a resolved prompt is reused (ms): an online rule's judge runs hundreds of times a second; a moved tag shows within this. */
const RESOLVED_FOR_MS = 5000;

export function createJudgePromptResolver(
  prompts: Pick<PromptsRepository, 'findPromptByName' | 'versionByTag'>,
  now: () => number = Date.now,
): ResolveJudgePrompt {
  const recent = new Map<string, { at: number; prompt: JudgePrompt }>();
  const resolve = async (name: string, tag: string): Promise<JudgePrompt> => {
    const prompt = await prompts.findPromptByName(name);
    if (!prompt) throw new InvalidInputError(`definition.prompt: no stored prompt is named ${JSON.stringify(name)}`);
    const version = await prompts.versionByTag(prompt.id, tag);
    if (!version)
      throw new InvalidInputError(`definition.prompt: prompt ${JSON.stringify(name)} has no version tagged ${JSON.stringify(tag)}`);
    const format = (TEMPLATE_FORMATS as readonly string[]).includes(version.templateFormat)
      ? (version.templateFormat as TemplateFormat)
      : 'NONE';
    const template = version.template as { type?: string; messages?: { role?: string; content?: unknown }[]; template?: string };
    const messages =
      template.type === 'string'
        ? [{ role: 'user' as const, content: template.template ?? '' }]
        : (template.messages ?? []).flatMap((message) => {
            const role = ROLES[message.role ?? ''];
            const content = textOf(message.content);
            return role && content !== '' ? [{ role, content }] : [];
          });
    if (messages.length === 0)
      throw new InvalidInputError(`definition.prompt: the version tagged ${JSON.stringify(tag)} has no text to send`);
    return { format, messages, versionId: version.id };
  };
  return async (name, tag, options = {}) => {
    const key = JSON.stringify([name, tag]);
    const hit = recent.get(key);
    if (options.cached && hit && now() - hit.at < RESOLVED_FOR_MS) return hit.prompt;
    const prompt = await resolve(name, tag);
    if (recent.size >= 100) recent.clear();
    recent.set(key, { at: now(), prompt });
    return prompt;
  };
}
