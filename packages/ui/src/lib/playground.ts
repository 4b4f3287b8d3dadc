/**
 * The playground's model: providers, the editable draft (messages, model, parameters), template
 * variables and the conversions from an LLM span and to and from a prompt version
 * (docs/playground.md, docs/prompts.md). Pure functions; the page holds the state.
 */
import type { components, operations } from '@sightline/client/browser';
import { chatMessages, indexedGroups, type Attributes } from './openinference.js';
import {
  INPUT_VALUE,
  LLM_INPUT_MESSAGES,
  LLM_INVOCATION_PARAMETERS,
  LLM_MODEL_NAME,
  LLM_PROVIDER,
  LLM_SYSTEM,
  LLM_TOOLS,
  TOOL_JSON_SCHEMA,
} from './attributes.js';

type Schemas = components['schemas'];
export type PromptVersion = Schemas['PromptVersion'];
export type PromptVersionData = Schemas['PromptVersionData'];
// The list route's items lack source_prompt_id (always null anyway, docs/prompts.md).
export type PromptSummary = Omit<Schemas['Prompt'], 'source_prompt_id'>;
export type TemplateFormat = Schemas['PromptTemplateFormat'];
/** The body of POST /v1/chat/completions. */
export type ChatRequest = NonNullable<operations['createChatCompletion']['requestBody']>['content']['application/json'];

/** The providers of POST /v1/chat/completions, with the settings each reads (docs/playground.md). */
export const PROVIDERS = [
  { value: 'openai', label: 'OpenAI', key: 'OPENAI_API_KEY', baseUrl: 'OPENAI_BASE_URL', example: 'gpt-4o-mini' },
  { value: 'azure_openai', label: 'Azure OpenAI', key: 'AZURE_OPENAI_API_KEY', baseUrl: 'AZURE_OPENAI_BASE_URL', example: 'gpt-4o-mini' },
  { value: 'anthropic', label: 'Anthropic', key: 'ANTHROPIC_API_KEY', baseUrl: 'ANTHROPIC_BASE_URL', example: 'claude-sonnet-4-5' },
  { value: 'google', label: 'Google Gemini', key: 'GEMINI_API_KEY', baseUrl: 'GEMINI_BASE_URL', example: 'gemini-2.5-flash' },
  { value: 'ollama', label: 'Ollama', key: null, baseUrl: 'OLLAMA_BASE_URL', example: 'llama3.2' },
  {
    value: 'openai_compatible',
    label: 'OpenAI-compatible',
    key: 'OPENAI_COMPATIBLE_API_KEY',
    baseUrl: 'OPENAI_COMPATIBLE_BASE_URL',
    example: 'my-model',
  },
  { value: 'deepseek', label: 'DeepSeek', key: 'DEEPSEEK_API_KEY', baseUrl: 'DEEPSEEK_BASE_URL', example: 'deepseek-chat' },
  { value: 'xai', label: 'xAI', key: 'XAI_API_KEY', baseUrl: 'XAI_BASE_URL', example: 'grok-3-mini' },
  { value: 'groq', label: 'Groq', key: 'GROQ_API_KEY', baseUrl: 'GROQ_BASE_URL', example: 'llama-3.3-70b-versatile' },
] as const;

export type Provider = (typeof PROVIDERS)[number]['value'];

export type Role = 'system' | 'user' | 'assistant' | 'tool';

/** A tool call an assistant message made, as the route writes it (docs/playground.md, "Tools"). */
export interface DraftToolCall {
  id: string;
  name: string;
  /** JSON text of an object. */
  arguments: string;
  /** Gemini's thought signature, sent back with the call. */
  signature?: string;
}

export interface DraftMessage {
  /** Stable key for React lists while messages are added and removed. */
  id: string;
  role: Role;
  content: string;
  /** The calls of an assistant message. */
  toolCalls?: DraftToolCall[];
  /** The call a tool message answers. */
  toolCallId?: string;
}

/** A function tool as the page edits it: the parameters stay JSON text until sent. */
export interface DraftTool {
  /** Stable key for React lists. */
  id: string;
  name: string;
  description: string;
  /** A JSON schema of type object, as text. */
  parameters: string;
}

/** The response format as the page edits it (docs/playground.md, "Response format"): the schema stays JSON text until sent. */
export interface DraftResponseFormat {
  type: 'text' | 'json_object' | 'json_schema';
  name: string;
  schema: string;
  strict: boolean;
}

/** Plain text, with an example schema ready for when JSON schema is chosen. */
export function defaultResponseFormat(): DraftResponseFormat {
  const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
  return { type: 'text', name: 'response', schema: JSON.stringify(schema, null, 2), strict: true };
}

/** `auto`, `none`, `required`, or the name of the one tool the model must call. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** One model the page runs: its provider, name and parameters (docs/playground.md, "Side by side"). */
export type ModelSettings = Pick<PlaygroundDraft, 'provider' | 'model' | 'temperature' | 'maxTokens' | 'topP'>;

/** At most this many models run side by side. */
export const MAX_MODELS = 4;

/** The draft's own model, the first of the page's columns (saved as a prompt, run over a dataset). */
export function modelOf(draft: PlaygroundDraft): ModelSettings {
  return { provider: draft.provider, model: draft.model, temperature: draft.temperature, maxTokens: draft.maxTokens, topP: draft.topP };
}

/** Everything the playground edits; also what "Open in playground" passes as router state. */
export interface PlaygroundDraft {
  provider: Provider;
  model: string;
  messages: DraftMessage[];
  templateFormat: TemplateFormat;
  variables: Record<string, string>;
  temperature: number | null;
  maxTokens: number | null;
  topP: number | null;
  /** Function tools offered to the model. */
  tools: DraftTool[];
  toolChoice: ToolChoice;
  responseFormat: DraftResponseFormat;
  /** The prompt this draft came from, so saving offers a new version of it. */
  promptName?: string;
  /** Where the draft came from, shown above the editor. */
  source?: string;
  /** What could not be carried over (tool messages, an unknown provider…). */
  warnings?: string[];
}

let nextId = 0;
/** A fresh message with a key unique within the page's lifetime. */
export function newMessage(role: Role, content = ''): DraftMessage {
  nextId += 1;
  return { id: `m${nextId}`, role, content };
}

/** A fresh tool with an example schema. */
export function newTool(name = ''): DraftTool {
  nextId += 1;
  return {
    id: `t${nextId}`,
    name,
    description: '',
    parameters: JSON.stringify({ type: 'object', properties: {}, required: [] }, null, 2),
  };
}

/** The draft of an empty playground. */
export function emptyDraft(): PlaygroundDraft {
  return {
    provider: 'openai',
    model: 'gpt-4o-mini',
    messages: [newMessage('system', 'You are a helpful assistant.'), newMessage('user', '')],
    templateFormat: 'MUSTACHE',
    variables: {},
    temperature: null,
    maxTokens: null,
    topP: null,
    tools: [],
    toolChoice: 'auto',
    responseFormat: defaultResponseFormat(),
  };
}

// ---------------------------------------------------------------- template variables

// Variable names as docs/prompts.md defines them: letters, digits, _ and -, not starting with a digit.
const NAME = '[\\p{L}_-][\\p{L}\\p{N}_-]*';
// Mustache's plain, triple and `&` tags; sections, comments and partials are not variables here.
const MUSTACHE_VARIABLE = new RegExp(`\\{\\{\\{\\s*(${NAME})\\s*\\}\\}\\}|\\{\\{\\s*&?\\s*(${NAME})\\s*\\}\\}`, 'gu');
// Python str.format fields; `{{` and `}}` are literal braces.
const F_STRING_VARIABLE = new RegExp(`(?<!\\{)\\{\\s*(${NAME})\\s*\\}(?!\\})`, 'gu');

/** The variable names of the messages, in order of first appearance. */
export function templateVariables(messages: readonly { content: string }[], format: TemplateFormat): string[] {
  if (format === 'NONE') return [];
  const pattern = format === 'MUSTACHE' ? MUSTACHE_VARIABLE : F_STRING_VARIABLE;
  const names = new Set<string>();
  for (const message of messages) {
    for (const match of message.content.matchAll(pattern)) names.add((match[1] ?? match[2]) as string);
  }
  return [...names];
}

/**
 * The text with its variables replaced verbatim (no HTML escaping: these are prompts), as
 * phoenix-client's `toSDK({variables})` renders them; unknown names are left as written.
 */
export function renderTemplate(text: string, format: TemplateFormat, values: Record<string, string>): string {
  if (format === 'NONE') return text;
  const pattern = format === 'MUSTACHE' ? MUSTACHE_VARIABLE : F_STRING_VARIABLE;
  return text.replace(pattern, (whole, triple: string | undefined, plain: string | undefined) => {
    const name = (triple ?? plain) as string;
    return Object.hasOwn(values, name) ? (values[name] as string) : whole;
  });
}

/** The names among `names` without a value (an empty value counts as none). */
export function missingVariables(names: readonly string[], values: Record<string, string>): string[] {
  return names.filter((name) => !values[name]);
}

/** A dataset example's input as template values: strings as they are, anything else as JSON. */
export function valuesFromInput(input: Record<string, unknown>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === null || value === undefined) continue;
    values[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return values;
}

// ---------------------------------------------------------------- requests

/** A tool's parameters parsed, or a sentence saying why they cannot be. */
export function toolParameters(tool: DraftTool): { value: Record<string, unknown> } | { problem: string } {
  if (!tool.parameters.trim()) return { value: { type: 'object', properties: {} } };
  return parsedSchema(tool.parameters, `The parameters of ${tool.name.trim() || 'a tool'}`);
}

/** OpenAI's `response_format` of the draft, or undefined for plain text (or a schema that does not parse). */
function responseFormatBody(format: DraftResponseFormat): ChatRequest['response_format'] {
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type !== 'json_schema') return undefined;
  const schema = parsedSchema(format.schema, 'The response schema');
  if (!('value' in schema)) return undefined;
  return { type: 'json_schema', json_schema: { name: format.name.trim(), schema: schema.value, strict: format.strict } };
}

/** The body of POST /v1/chat/completions for a draft with these variable values. */
export function chatRequest(draft: PlaygroundDraft, values: Record<string, string>, stream: boolean): ChatRequest {
  const tools = draft.tools.map((tool) => {
    const parameters = toolParameters(tool);
    return {
      type: 'function' as const,
      function: {
        name: tool.name.trim(),
        ...(tool.description.trim() ? { description: tool.description.trim() } : {}),
        ...('value' in parameters ? { parameters: parameters.value } : {}),
      },
    };
  });
  return {
    model: `${draft.provider}:${draft.model.trim()}`,
    messages: draft.messages.map((message) => {
      const content = renderTemplate(message.content, draft.templateFormat, values);
      if (message.role === 'tool') return { role: 'tool' as const, content, tool_call_id: message.toolCallId ?? '' };
      if (message.role === 'assistant' && message.toolCalls?.length) {
        return {
          role: 'assistant' as const,
          content: content === '' ? null : content,
          tool_calls: message.toolCalls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: call.arguments },
            ...(call.signature ? { extra_content: { google: { thought_signature: call.signature } } } : {}),
          })),
        };
      }
      return { role: message.role, content };
    }),
    stream,
    ...(tools.length > 0 ? { tools } : {}),
    ...(tools.length > 0 && draft.toolChoice !== 'auto'
      ? {
          tool_choice:
            typeof draft.toolChoice === 'string'
              ? draft.toolChoice
              : { type: 'function' as const, function: { name: draft.toolChoice.name } },
        }
      : {}),
    ...(responseFormatBody(draft.responseFormat) ? { response_format: responseFormatBody(draft.responseFormat) } : {}),
    ...(draft.temperature !== null ? { temperature: draft.temperature } : {}),
    ...(draft.maxTokens !== null ? { max_tokens: draft.maxTokens } : {}),
    ...(draft.topP !== null ? { top_p: draft.topP } : {}),
  };
}

/** OpenAI's rule for function names (docs/playground.md, "Tools"). */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** What keeps the draft from running: no model, no message with text, a tool that cannot be sent. */
export function draftProblems(draft: PlaygroundDraft): string[] {
  const problems: string[] = [];
  if (!draft.model.trim()) problems.push('Choose a model.');
  if (!draft.messages.some((message) => message.content.trim() || message.toolCalls?.length)) problems.push('Write at least one message.');
  const names = new Set<string>();
  for (const tool of draft.tools) {
    const name = tool.name.trim();
    if (!TOOL_NAME.test(name))
      problems.push(`Name each tool with 1 to 64 letters, digits, _ or - (${name ? `not "${name}"` : 'one has no name'}).`);
    else if (names.has(name)) problems.push(`Two tools are named ${name}.`);
    names.add(name);
    const parameters = toolParameters(tool);
    if ('problem' in parameters) problems.push(parameters.problem);
  }
  if (draft.responseFormat.type === 'json_schema') {
    if (!TOOL_NAME.test(draft.responseFormat.name.trim())) problems.push('Name the response schema with 1 to 64 letters, digits, _ or -.');
    const schema = parsedSchema(draft.responseFormat.schema, 'The response schema');
    if ('problem' in schema) problems.push(schema.problem);
  }
  if (typeof draft.toolChoice === 'object' && !names.has(draft.toolChoice.name)) {
    problems.push(`The tool choice names ${draft.toolChoice.name}, which is not among the tools.`);
  }
  for (const message of draft.messages) {
    if (message.role === 'tool' && !message.toolCallId?.trim()) problems.push('Give each tool result the id of the call it answers.');
  }
  return [...new Set(problems)];
}

// ---------------------------------------------------------------- from a span

const ROLE_OF: Record<string, Role> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  ai: 'assistant',
  model: 'assistant',
};

// OpenInference's llm.provider values that name one of our providers differently.
const PROVIDER_ALIASES: Record<string, Provider> = {
  azure: 'azure_openai',
  'azure-openai': 'azure_openai',
  x_ai: 'xai',
  gemini: 'google',
  google_genai: 'google',
  'google-genai': 'google',
};

/** One of PROVIDERS for a provider name as spans or prompts write it, or null. */
export function providerOf(name: unknown): Provider | null {
  if (typeof name !== 'string') return null;
  const lower = name.trim().toLowerCase();
  const known = PROVIDERS.find((provider) => provider.value === lower);
  return known ? known.value : (PROVIDER_ALIASES[lower] ?? null);
}

function numberOr(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** temperature, max tokens and top_p of an invocation parameters object (any provider's spelling). */
function parametersOf(raw: unknown): Pick<PlaygroundDraft, 'temperature' | 'maxTokens' | 'topP'> {
  const params = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  return {
    temperature: numberOr(params.temperature),
    maxTokens: numberOr(params.max_tokens) ?? numberOr(params.max_completion_tokens) ?? numberOr(params.max_output_tokens),
    topP: numberOr(params.top_p),
  };
}

/**
 * A draft replaying an LLM span: its input messages (llm.input_messages), model (llm.model_name),
 * provider (llm.provider, else llm.system) and invocation parameters (llm.invocation_parameters JSON).
 */
export function draftFromSpan(attributes: Attributes, spanName: string): PlaygroundDraft {
  const warnings: string[] = [];
  const messages: DraftMessage[] = [];
  for (const message of chatMessages(attributes, LLM_INPUT_MESSAGES)) {
    const role = message.role.toLowerCase() === 'tool' ? 'tool' : ROLE_OF[message.role.toLowerCase()];
    if (!role) {
      warnings.push(`A ${message.role} message was left out.`);
      continue;
    }
    const draft = newMessage(role, message.content ?? '');
    if (role === 'tool') draft.toolCallId = message.toolCallId ?? '';
    const calls = message.toolCalls.filter((call) => call.name);
    if (role === 'assistant' && calls.length > 0) {
      draft.toolCalls = calls.map((call, index) => ({
        id: call.id ?? `call_${index + 1}`,
        name: call.name as string,
        arguments: call.arguments ?? '{}',
      }));
    }
    messages.push(draft);
  }
  if (messages.length === 0) {
    const input = attributes[INPUT_VALUE];
    warnings.push('The span has no input messages; its input value became the user message.');
    messages.push(newMessage('user', typeof input === 'string' ? input : input === undefined ? '' : JSON.stringify(input)));
  }
  const spanProvider = attributes[LLM_PROVIDER] ?? attributes[LLM_SYSTEM];
  let provider = providerOf(spanProvider);
  if (!provider) {
    if (spanProvider !== undefined) warnings.push(`The span's provider "${String(spanProvider)}" is not one the playground calls.`);
    provider = 'openai';
  }
  let parameters: unknown = attributes[LLM_INVOCATION_PARAMETERS];
  if (typeof parameters === 'string') {
    try {
      parameters = JSON.parse(parameters);
    } catch {
      warnings.push('The invocation parameters are not JSON and were left out.');
      parameters = {};
    }
  }
  const model = attributes[LLM_MODEL_NAME];
  return {
    provider,
    model: typeof model === 'string' ? model : '',
    messages,
    tools: toolsFromSpan(attributes, warnings),
    toolChoice: 'auto',
    responseFormat: responseFormatFrom(parameters),
    // Recorded messages are literal text: braces in them are not variables.
    templateFormat: 'NONE',
    variables: {},
    ...parametersOf(parameters),
    source: `span ${spanName}`,
    warnings,
  };
}

/** The response format of invocation parameters (OpenAI's `response_format`), else plain text. */
function responseFormatFrom(parameters: unknown): DraftResponseFormat {
  const format = defaultResponseFormat();
  const raw = parameters && typeof parameters === 'object' ? (parameters as Record<string, unknown>).response_format : undefined;
  if (!raw || typeof raw !== 'object') return format;
  const { type, json_schema: declared } = raw as { type?: unknown; json_schema?: Record<string, unknown> };
  if (type === 'json_object') return { ...format, type };
  if (type !== 'json_schema' || !declared || typeof declared !== 'object') return format;
  return {
    type,
    name: typeof declared.name === 'string' ? declared.name : format.name,
    schema: declared.schema && typeof declared.schema === 'object' ? JSON.stringify(declared.schema, null, 2) : format.schema,
    strict: declared.strict !== false,
  };
}

/** A JSON schema typed on the page, parsed, or a sentence saying why it cannot be. */
export function parsedSchema(text: string, label: string): { value: Record<string, unknown> } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { problem: `${label} is not JSON (${error instanceof Error ? error.message : String(error)}).` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { problem: `${label} must be a JSON object (a JSON schema).` };
  return { value: parsed as Record<string, unknown> };
}

/** The tools of `llm.tools.N.tool.json_schema`: OpenAI's `{type, function}` or a bare `{name, description, parameters}`. */
function toolsFromSpan(attributes: Attributes, warnings: string[]): DraftTool[] {
  const tools: DraftTool[] = [];
  for (const group of indexedGroups(attributes, LLM_TOOLS)) {
    let value: unknown = group[TOOL_JSON_SCHEMA];
    try {
      if (typeof value === 'string') value = JSON.parse(value);
    } catch {
      value = undefined;
    }
    const record = value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
    const declared = (record?.function && typeof record.function === 'object' ? record.function : record) as Record<string, unknown> | null;
    if (!declared || typeof declared.name !== 'string') {
      warnings.push('A tool whose definition is not readable was left out.');
      continue;
    }
    const tool = newTool(declared.name);
    tool.description = typeof declared.description === 'string' ? declared.description : '';
    const parameters = declared.parameters ?? declared.input_schema;
    if (parameters && typeof parameters === 'object') tool.parameters = JSON.stringify(parameters, null, 2);
    tools.push(tool);
  }
  return tools;
}

// ---------------------------------------------------------------- prompts

// Prompt versions name providers in Phoenix's enum (docs/prompts.md); openai_compatible has no name there.
const PROMPT_PROVIDER: Record<Provider, { model_provider: PromptVersionData['model_provider']; type: string }> = {
  openai: { model_provider: 'OPENAI', type: 'openai' },
  azure_openai: { model_provider: 'AZURE_OPENAI', type: 'azure_openai' },
  anthropic: { model_provider: 'ANTHROPIC', type: 'anthropic' },
  google: { model_provider: 'GOOGLE', type: 'google' },
  ollama: { model_provider: 'OLLAMA', type: 'ollama' },
  openai_compatible: { model_provider: 'OPENAI', type: 'openai' },
  deepseek: { model_provider: 'DEEPSEEK', type: 'deepseek' },
  xai: { model_provider: 'XAI', type: 'xai' },
  groq: { model_provider: 'GROQ', type: 'groq' },
};

/** The text of a prompt message's content: a string, or its text parts joined. */
function contentText(content: unknown): { text: string; dropped: boolean } {
  if (typeof content === 'string') return { text: content, dropped: false };
  if (!Array.isArray(content)) return { text: '', dropped: true };
  const texts: string[] = [];
  let dropped = false;
  for (const part of content) {
    if (part && typeof part === 'object' && (part as { type?: unknown }).type === 'text')
      texts.push(String((part as { text?: unknown }).text));
    else dropped = true;
  }
  return { text: texts.join(''), dropped };
}

/** A draft from a stored prompt version (chat templates; a string template becomes one user message). */
export function draftFromPromptVersion(version: PromptVersion, promptName: string): PlaygroundDraft {
  const warnings: string[] = [];
  const messages: DraftMessage[] = [];
  if (version.template.type === 'chat') {
    for (const message of (version.template as Schemas['PromptChatTemplate']).messages) {
      const role = ROLE_OF[message.role];
      const { text, dropped } = contentText(message.content);
      if (!role) {
        warnings.push(`A ${message.role} message was left out.`);
        continue;
      }
      if (dropped) warnings.push(`Tool parts of a ${message.role} message were left out.`);
      messages.push(newMessage(role, text));
    }
  } else {
    messages.push(newMessage('user', String((version.template as Schemas['PromptStringTemplate']).template)));
  }
  const provider = providerOf(version.model_provider) ?? 'openai';
  if (!providerOf(version.model_provider)) warnings.push(`The provider ${version.model_provider} is not one the playground calls.`);
  const invocation = version.invocation_parameters as Record<string, unknown>;
  return {
    provider,
    model: version.model_name,
    messages,
    templateFormat: version.template_format,
    variables: {},
    ...parametersOf(invocation[String(invocation.type)]),
    ...toolsFromPrompt(version.tools, warnings),
    responseFormat: responseFormatFromPrompt(version.response_format),
    promptName,
    source: `prompt ${promptName}`,
    warnings,
  };
}

/** The body of POST /v1/prompts that stores the draft as a new version of the named prompt. */
export function promptVersionBody(draft: PlaygroundDraft, name: string, description: string) {
  const { model_provider, type } = PROMPT_PROVIDER[draft.provider];
  const settings: Record<string, number> = {};
  if (draft.temperature !== null) settings.temperature = draft.temperature;
  if (draft.topP !== null) settings.top_p = draft.topP;
  // Anthropic settings need max_tokens (docs/prompts.md); the server's default there is 1024 (docs/playground.md).
  // Google's settings name it max_output_tokens, as Phoenix's do.
  if (draft.maxTokens !== null) settings[draft.provider === 'google' ? 'max_output_tokens' : 'max_tokens'] = draft.maxTokens;
  else if (draft.provider === 'anthropic') settings.max_tokens = 1024;
  const tools = promptTools(draft);
  const schema = draft.responseFormat.type === 'json_schema' ? parsedSchema(draft.responseFormat.schema, 'The response schema') : null;
  const version: PromptVersionData = {
    description: description.trim() || null,
    model_provider,
    model_name: draft.model.trim(),
    template_type: 'CHAT',
    template_format: draft.templateFormat,
    template: { type: 'chat', messages: draft.messages.map((message) => ({ role: message.role, content: message.content })) },
    invocation_parameters: { type: type as Schemas['PromptInvocationParameters']['type'], [type]: settings },
    ...(tools ? { tools } : {}),
    // Phoenix's prompt versions know JSON schema only: a plain JSON-object format is not kept (docs/prompts.md).
    ...(schema && 'value' in schema
      ? {
          response_format: {
            type: 'json_schema' as const,
            json_schema: { name: draft.responseFormat.name.trim(), schema: schema.value, strict: draft.responseFormat.strict },
          },
        }
      : {}),
  };
  return { prompt: { name, ...(description.trim() ? { description: description.trim() } : {}) }, version };
}

// Phoenix's tool choices in prompt versions, by the playground's (docs/prompts.md, "Tools and response format").
const PROMPT_TOOL_CHOICE = { auto: 'zero_or_more', none: 'none', required: 'one_or_more' } as const;

/** The draft's tools as a prompt version's `tools` (Phoenix's shape), or undefined when it has none. */
function promptTools(draft: PlaygroundDraft): Schemas['PromptTools'] | undefined {
  if (draft.tools.length === 0) return undefined;
  const tools = draft.tools.map((tool) => {
    const parameters = toolParameters(tool);
    return {
      type: 'function',
      function: {
        name: tool.name.trim(),
        ...(tool.description.trim() ? { description: tool.description.trim() } : {}),
        ...('value' in parameters ? { parameters: parameters.value } : {}),
      },
    };
  });
  const choice = draft.toolChoice;
  const tool_choice =
    typeof choice === 'string' ? { type: PROMPT_TOOL_CHOICE[choice] } : { type: 'specific_function', function_name: choice.name };
  return { type: 'tools', tools, tool_choice };
}

/** A prompt version's tools and tool choice as the draft's; tools of another kind are left out with a warning. */
function toolsFromPrompt(
  stored: Schemas['PromptTools'] | null | undefined,
  warnings: string[],
): Pick<PlaygroundDraft, 'tools' | 'toolChoice'> {
  const tools: DraftTool[] = [];
  for (const entry of stored?.tools ?? []) {
    const declared =
      entry.type === 'function' && entry.function && typeof entry.function === 'object'
        ? (entry.function as Record<string, unknown>)
        : null;
    if (!declared || typeof declared.name !== 'string') {
      warnings.push('A tool that is not a function was left out.');
      continue;
    }
    const tool = newTool(declared.name);
    tool.description = typeof declared.description === 'string' ? declared.description : '';
    if (declared.parameters && typeof declared.parameters === 'object') tool.parameters = JSON.stringify(declared.parameters, null, 2);
    tools.push(tool);
  }
  const choice = stored?.tool_choice as { type?: unknown; function_name?: unknown } | undefined;
  const toolChoice: ToolChoice =
    choice?.type === 'none'
      ? 'none'
      : choice?.type === 'one_or_more'
        ? 'required'
        : choice?.type === 'specific_function' && typeof choice.function_name === 'string'
          ? { name: choice.function_name }
          : 'auto';
  return { tools, toolChoice };
}

/** A prompt version's JSON-schema response format as the draft's; plain text when it has none. */
function responseFormatFromPrompt(stored: Schemas['PromptResponseFormatJSONSchema'] | null | undefined): DraftResponseFormat {
  const format = defaultResponseFormat();
  if (!stored) return format;
  const { name, schema, strict } = stored.json_schema as { name: string; schema?: unknown; strict?: unknown };
  return {
    type: 'json_schema',
    name,
    schema: schema && typeof schema === 'object' ? JSON.stringify(schema, null, 2) : format.schema,
    strict: strict !== false,
  };
}

/** Phoenix's identifier rule for prompt names (docs/prompts.md). */
export const PROMPT_NAME = /^[a-z0-9]([_a-z0-9-]*[a-z0-9])?$/;
