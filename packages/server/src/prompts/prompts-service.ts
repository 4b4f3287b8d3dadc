/**
 * Prompt management (docs/prompts.md): prompts named by identifiers, immutable versions,
 * and tags that name one version of a prompt at a time. Knows nothing of HTTP: it throws
 * the domain errors of @sightline/common.
 */
import { InvalidInputError, NotFoundError } from '@sightline/common';
import type {
  PromptRecord,
  PromptVersionRecord,
  PromptVersionTagRecord,
  PromptsRepository,
} from '../db/repositories/prompts-repository.js';
import type { WithTransaction } from '../db/repositories/index.js';
import type { Identifier } from '../shared/identifier.js';
import { MalformedTemplateError, TEMPLATE_FORMATS, type TemplateFormat, templateVariables } from './prompt-templates.js';

export const MODEL_PROVIDERS = [
  'OPENAI',
  'AZURE_OPENAI',
  'ANTHROPIC',
  'GOOGLE',
  'DEEPSEEK',
  'XAI',
  'OLLAMA',
  'AWS',
  'CEREBRAS',
  'FIREWORKS',
  'GROQ',
  'MOONSHOT',
  'PERPLEXITY',
  'TOGETHER',
] as const;
/** The `type` of invocation parameters; the provider's settings sit under the key of the same name. */
export const INVOCATION_PARAMETER_TYPES = [
  'openai',
  'azure_openai',
  'anthropic',
  'google',
  'deepseek',
  'xai',
  'ollama',
  'aws',
  'cerebras',
  'fireworks',
  'groq',
  'moonshot',
  'perplexity',
  'together',
] as const;
export const TEMPLATE_TYPES = ['CHAT', 'STR'] as const;
export const MESSAGE_ROLES = ['user', 'assistant', 'model', 'ai', 'tool', 'system', 'developer'] as const;
export { TEMPLATE_FORMATS };

/** Prompt and tag names, as Phoenix's `Identifier`: lower-case letters, digits, `-` and `_`. */
const IDENTIFIER = /^[a-z0-9]([_a-z0-9-]*[a-z0-9])?$/u;
const IDENTIFIER_RULE = "lower-case letters, digits, '-' and '_', starting and ending with a letter or digit";

export interface PromptInput {
  name: string;
  description?: string | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
}

export interface PromptVersionInput {
  description?: string | null | undefined;
  model_provider: string;
  model_name: string;
  template_type: string;
  template_format: string;
  template: unknown;
  invocation_parameters: unknown;
  tools?: unknown;
  response_format?: unknown;
}

export interface PageRequest {
  /** Page size; the service fetches one more row to tell whether a next page exists. */
  limit: number;
  fromId?: number | undefined;
}

export interface PromptsServiceDependencies {
  prompts: PromptsRepository;
  /** Runs the creation of a prompt and its version atomically. */
  withTransaction: WithTransaction;
  now?: () => string;
}

export type PromptsService = ReturnType<typeof createPromptsService>;

/** The prompts service over its repository. */
export function createPromptsService({ prompts, withTransaction, now = () => new Date().toISOString() }: PromptsServiceDependencies) {
  /** The prompt named by a Prompt GlobalID or by its name; 422 for neither, 404 when absent. */
  const resolve = async (identifier: Identifier): Promise<PromptRecord> => {
    const { text, rowId } = identifier;
    if (rowId === null && !IDENTIFIER.test(text)) {
      throw new InvalidInputError(`invalid prompt identifier ${quote(text)}: give a prompt id or a name of ${IDENTIFIER_RULE}`);
    }
    const prompt = rowId !== null ? await prompts.findPromptById(rowId) : await prompts.findPromptByName(text);
    if (!prompt) throw new NotFoundError(`prompt ${quote(text)} not found`);
    return prompt;
  };

  /** The version named by a PromptVersion GlobalID (versions have no natural key); 422 for anything else, 404 when absent. */
  const version = async (versionId: Identifier): Promise<PromptVersionRecord> => {
    if (versionId.rowId === null) throw new InvalidInputError(`invalid prompt version id ${quote(versionId.text)}`);
    const found = await prompts.findVersion(versionId.rowId);
    if (!found) throw new NotFoundError(`prompt version ${quote(versionId.text)} not found`);
    return found;
  };

  return {
    resolve,
    version,

    /**
     * Stores a version under the prompt of that name, creating the prompt (with the given
     * description and metadata) when there is none; an existing prompt's fields are left as they are.
     */
    async create(input: { prompt: PromptInput; version: PromptVersionInput }, userId: number | null) {
      const name = checkIdentifier('prompt name', input.prompt.name);
      const checked = checkVersion(input.version);
      const at = now();
      return withTransaction(async ({ prompts: trx }) => {
        const prompt = await trx.ensurePrompt(
          { name, description: input.prompt.description ?? null, metadata: input.prompt.metadata ?? {} },
          at,
        );
        const version = await trx.insertVersion(prompt.id, { ...checked, userId }, at);
        return { prompt, version };
      });
    },

    /** Prompts newest first, limit + 1 rows. */
    list(page: PageRequest): Promise<PromptRecord[]> {
      return prompts.listPrompts({ limit: page.limit + 1, fromId: page.fromId });
    },

    /** Versions of a prompt newest first, limit + 1 rows. */
    async listVersions(identifier: Identifier, page: PageRequest): Promise<PromptVersionRecord[]> {
      const prompt = await resolve(identifier);
      return prompts.listVersions(prompt.id, { limit: page.limit + 1, fromId: page.fromId });
    },

    /** The newest version of a prompt; 404 when it has none. */
    async latest(identifier: Identifier): Promise<PromptVersionRecord> {
      const prompt = await resolve(identifier);
      const latest = await prompts.latestVersion(prompt.id);
      if (!latest) throw new NotFoundError(`prompt ${quote(identifier.text)} has no version`);
      return latest;
    },

    /** The version a tag of the prompt names; 422 for an invalid tag name, 404 when unset. */
    async byTag(identifier: Identifier, tagName: string): Promise<PromptVersionRecord> {
      const name = checkIdentifier('tag name', tagName);
      const prompt = await resolve(identifier);
      const tagged = await prompts.versionByTag(prompt.id, name);
      if (!tagged) throw new NotFoundError(`prompt ${quote(identifier.text)} has no tag ${quote(name)}`);
      return tagged;
    },

    /** Tags of a version newest first, limit + 1 rows. */
    async listTags(versionId: Identifier, page: PageRequest): Promise<PromptVersionTagRecord[]> {
      const found = await version(versionId);
      return prompts.listTags(found.id, { limit: page.limit + 1, fromId: page.fromId });
    },

    /** Sets the tag on the version: the tag names one version of the prompt, so this moves it from any other. */
    async setTag(
      versionId: Identifier,
      tag: { name: string; description?: string | null | undefined },
      userId: number | null,
    ): Promise<PromptVersionTagRecord> {
      const name = checkIdentifier('tag name', tag.name);
      const found = await version(versionId);
      return prompts.setTag({
        promptId: found.promptId,
        versionId: found.id,
        name,
        description: tag.description ?? null,
        userId,
        now: now(),
      });
    },

    /** Removes the tag from the version's prompt; 404 when the prompt has no such tag. */
    async deleteTag(versionId: Identifier, tagName: string): Promise<void> {
      const name = checkIdentifier('tag name', tagName);
      const found = await version(versionId);
      if (!(await prompts.deleteTag(found.promptId, name))) {
        throw new NotFoundError(`tag ${quote(name)} not found on prompt version ${quote(versionId.text)}`);
      }
    },

    /** Changes the description (null clears it) and/or replaces the metadata; at least one is needed. */
    async update(
      identifier: Identifier,
      fields: { description?: string | null | undefined; metadata?: Record<string, unknown> | undefined },
    ): Promise<PromptRecord> {
      if (fields.description === undefined && fields.metadata === undefined) {
        throw new InvalidInputError('give description or metadata (or both) to change');
      }
      const prompt = await resolve(identifier);
      const description = fields.description === undefined || fields.description === null ? fields.description : fields.description.trim();
      const updated = await prompts.updatePrompt(prompt.id, { description, metadata: fields.metadata }, now());
      if (!updated) throw new NotFoundError(`prompt ${quote(identifier.text)} not found`);
      return updated;
    },

    /** Deletes the prompt with all its versions and tags. */
    async delete(identifier: Identifier): Promise<void> {
      const prompt = await resolve(identifier);
      if (!(await prompts.deletePrompt(prompt.id))) throw new NotFoundError(`prompt ${quote(identifier.text)} not found`);
    },
  };
}

const quote = (value: string): string => JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);

function checkIdentifier(what: string, value: string): string {
  if (!IDENTIFIER.test(value)) throw new InvalidInputError(`invalid ${what} ${quote(value)}: use ${IDENTIFIER_RULE}`);
  return value;
}

function oneOf<T extends string>(what: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new InvalidInputError(`unknown ${what} ${quote(value)}: expected one of ${allowed.join(', ')}`);
  }
  return value as T;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks the rules a JSON schema cannot state, and returns the columns of the version. */
function checkVersion(input: PromptVersionInput): Omit<PromptVersionRecord, 'id' | 'promptId' | 'createdAt' | 'userId'> {
  const modelProvider = oneOf('model_provider', input.model_provider, MODEL_PROVIDERS);
  if (input.model_name.trim() === '') throw new InvalidInputError('model_name must not be blank');
  const templateType = oneOf('template_type', input.template_type, TEMPLATE_TYPES);
  const templateFormat = oneOf('template_format', input.template_format, TEMPLATE_FORMATS);
  checkTemplate(templateType, templateFormat, input.template);
  checkInvocationParameters(input.invocation_parameters);
  if (input.tools != null && !(isObject(input.tools) && input.tools.type === 'tools' && Array.isArray(input.tools.tools))) {
    throw new InvalidInputError('tools must be {"type": "tools", "tools": [...]} or null');
  }
  if (input.response_format != null && !(isObject(input.response_format) && input.response_format.type === 'json_schema')) {
    throw new InvalidInputError('response_format must be {"type": "json_schema", "json_schema": {...}} or null');
  }
  return {
    description: input.description ?? null,
    modelProvider,
    modelName: input.model_name,
    templateType,
    templateFormat,
    template: input.template,
    invocationParameters: input.invocation_parameters,
    tools: input.tools ?? null,
    responseFormat: input.response_format ?? null,
  };
}

/** The template matches its type, and every text in it is well-formed for the format. */
function checkTemplate(type: (typeof TEMPLATE_TYPES)[number], format: TemplateFormat, template: unknown): void {
  const expected = type === 'CHAT' ? 'chat' : 'string';
  if (!isObject(template) || template.type !== expected) {
    const actual = isObject(template) ? JSON.stringify(template.type) : 'not an object';
    throw new InvalidInputError(`template_type ${type} needs template.type "${expected}" (got ${actual})`);
  }
  const texts: [where: string, text: string][] = [];
  if (type === 'STR') {
    if (typeof template.template !== 'string') throw new InvalidInputError('template.template must be a string');
    texts.push(['template.template', template.template]);
  } else {
    const messages = template.messages;
    if (!Array.isArray(messages) || messages.length === 0) throw new InvalidInputError('template.messages must hold at least one message');
    messages.forEach((message: unknown, index) => {
      const where = `template.messages[${index}]`;
      if (!isObject(message)) throw new InvalidInputError(`${where} must be an object`);
      oneOf(`${where}.role`, String(message.role), MESSAGE_ROLES);
      const content = message.content;
      if (typeof content === 'string') texts.push([`${where}.content`, content]);
      else if (Array.isArray(content) && content.length > 0) {
        content.forEach((part: unknown, partIndex) => {
          const text = checkContentPart(`${where}.content[${partIndex}]`, part);
          if (text !== undefined) texts.push([`${where}.content[${partIndex}].text`, text]);
        });
      } else throw new InvalidInputError(`${where}.content must be a string or a non-empty list of parts`);
    });
  }
  for (const [where, text] of texts) {
    try {
      templateVariables(format, text);
    } catch (error) {
      if (error instanceof MalformedTemplateError) throw new InvalidInputError(`${where}: ${error.message}`);
      throw error;
    }
  }
}

/** A text, tool_call or tool_result part of a message; returns the text of a text part. */
function checkContentPart(where: string, part: unknown): string | undefined {
  if (!isObject(part)) throw new InvalidInputError(`${where} must be an object`);
  switch (part.type) {
    case 'text':
      if (typeof part.text !== 'string') throw new InvalidInputError(`${where}.text must be a string`);
      return part.text;
    case 'tool_call': {
      const call = part.tool_call;
      const valid =
        typeof part.tool_call_id === 'string' &&
        isObject(call) &&
        call.type === 'function' &&
        typeof call.name === 'string' &&
        typeof call.arguments === 'string';
      if (!valid)
        throw new InvalidInputError(
          `${where} must be {"type": "tool_call", "tool_call_id", "tool_call": {"type": "function", "name", "arguments"}}`,
        );
      return undefined;
    }
    case 'tool_result':
      if (typeof part.tool_call_id !== 'string' || !('tool_result' in part)) {
        throw new InvalidInputError(`${where} must be {"type": "tool_result", "tool_call_id", "tool_result"}`);
      }
      return undefined;
    default:
      throw new InvalidInputError(`${where}.type must be "text", "tool_call" or "tool_result"`);
  }
}

/** `{type: <provider>, <provider>: {...settings}}`; the settings are stored as given. */
function checkInvocationParameters(parameters: unknown): void {
  if (!isObject(parameters) || typeof parameters.type !== 'string') {
    throw new InvalidInputError('invocation_parameters must be {"type": "<provider>", "<provider>": {...}}');
  }
  const type = oneOf('invocation_parameters.type', parameters.type, INVOCATION_PARAMETER_TYPES);
  const settings = parameters[type];
  if (!isObject(settings)) throw new InvalidInputError(`invocation_parameters.${type} must be an object of ${type} settings`);
  if (type === 'anthropic' && !(Number.isInteger(settings.max_tokens) && (settings.max_tokens as number) > 0)) {
    throw new InvalidInputError('invocation_parameters.anthropic.max_tokens is required (a positive integer)');
  }
}
