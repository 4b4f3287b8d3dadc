/** Prompt records as the API shows them (Phoenix's Prompt, PromptVersion and PromptVersionTag, plus a few Sightline fields). */
import type { PromptRecord, PromptVersionRecord, PromptVersionTagRecord } from '../../db/repositories/prompts-repository.js';
import type { Static } from '@sinclair/typebox';
import { toGlobalId } from '../shared/global-id.js';
import type { Prompt, PromptVersion, PromptVersionTag } from './prompts-schemas.js';

type VersionBody = Static<typeof PromptVersion>;

/** A prompt. */
export function presentPrompt(prompt: PromptRecord): Static<typeof Prompt> {
  return {
    id: toGlobalId('Prompt', prompt.id),
    name: prompt.name,
    description: prompt.description,
    source_prompt_id: null,
    metadata: prompt.metadata,
    created_at: prompt.createdAt,
    updated_at: prompt.updatedAt,
  };
}

/** A prompt version, its JSON documents exactly as they were stored. */
export function presentPromptVersion(version: PromptVersionRecord): VersionBody {
  return {
    id: toGlobalId('PromptVersion', version.id),
    prompt_id: toGlobalId('Prompt', version.promptId),
    description: version.description,
    // The service stored only values that passed these schemas.
    model_provider: version.modelProvider as VersionBody['model_provider'],
    model_name: version.modelName,
    template_type: version.templateType as VersionBody['template_type'],
    template_format: version.templateFormat as VersionBody['template_format'],
    template: version.template as VersionBody['template'],
    invocation_parameters: version.invocationParameters as VersionBody['invocation_parameters'],
    tools: version.tools as VersionBody['tools'],
    response_format: version.responseFormat as VersionBody['response_format'],
    created_at: version.createdAt,
  };
}

/** A tag of a prompt version. */
export function presentPromptVersionTag(tag: PromptVersionTagRecord): Static<typeof PromptVersionTag> {
  return { id: toGlobalId('PromptVersionTag', tag.id), name: tag.name, description: tag.description };
}
