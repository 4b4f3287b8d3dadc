/**
 * JSON schemas (TypeBox) of the prompt routes, after Phoenix's REST schema (PromptData,
 * PromptVersionData, PromptVersion, PromptVersionTag, ...; docs/prompts.md). Each named schema
 * carries an `$id` so the OpenAPI document names it. Tools, response formats and invocation
 * parameters are checked for their outer shape only and stored as given, so every object in
 * them keeps properties this server does not know.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import {
  INVOCATION_PARAMETER_TYPES,
  MESSAGE_ROLES,
  MODEL_PROVIDERS,
  TEMPLATE_FORMATS,
  TEMPLATE_TYPES,
} from '../../prompts/prompts-service.js';
import { Nullable } from '../shared/schemas.js';

const Open = { additionalProperties: true } as const;
const StringEnum = <T extends string>(values: readonly T[], options: { $id?: string; description?: string } = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options, ...(options.$id ? { title: options.$id } : {}) });
const JsonObject = (description: string) => Type.Object({}, { ...Open, description });
const Named = <T extends TSchema>(id: string, schema: T): T => ({ ...schema, $id: id, title: id });

// The rule is checked by the service, whose 422 says what is wrong with the name.
export const Identifier = Type.String({
  description: "Lower-case letters, digits, '-' and '_', starting and ending with a letter or digit (`^[a-z0-9]([_a-z0-9-]*[a-z0-9])?$`).",
});

export const ModelProvider = StringEnum(MODEL_PROVIDERS, { $id: 'ModelProvider' });
export const PromptTemplateType = StringEnum(TEMPLATE_TYPES, {
  $id: 'PromptTemplateType',
  description: 'CHAT goes with a chat template, STR with a string template.',
});
export const PromptTemplateFormat = StringEnum(TEMPLATE_FORMATS, {
  $id: 'PromptTemplateFormat',
  description: 'How variables are written: MUSTACHE `{{name}}`, F_STRING `{name}`, NONE (no variables).',
});

// No `type` here: the validator coerces types, and for a string-or-list union it would rewrite a
// one-part list into its part (anyOf) or warn on every start (a type list). The service checks it.
const MessageContent = Type.Unsafe<string | Record<string, unknown>[]>({
  description:
    'The text, or a non-empty list of parts: `{"type": "text", "text"}`, `{"type": "tool_call", "tool_call_id", ' +
    '"tool_call": {"type": "function", "name", "arguments"}}` or `{"type": "tool_result", "tool_call_id", "tool_result"}`.',
});

export const PromptMessage = Named(
  'PromptMessage',
  Type.Object(
    {
      role: StringEnum(MESSAGE_ROLES),
      content: MessageContent,
    },
    Open,
  ),
);
export const PromptChatTemplate = Named(
  'PromptChatTemplate',
  Type.Object({ type: Type.Literal('chat'), messages: Type.Array(PromptMessage, { minItems: 1 }) }, Open),
);
export const PromptStringTemplate = Named(
  'PromptStringTemplate',
  Type.Object({ type: Type.Literal('string'), template: Type.String() }, Open),
);

export const PromptInvocationParameters = Named(
  'PromptInvocationParameters',
  Type.Object(
    { type: StringEnum(INVOCATION_PARAMETER_TYPES) },
    {
      ...Open,
      description:
        'The provider\'s settings under the key named by `type`, e.g. `{"type": "openai", "openai": {"temperature": 0.2}}`; stored as given.',
    },
  ),
);
export const PromptTools = Named(
  'PromptTools',
  Type.Object(
    {
      type: Type.Literal('tools'),
      tools: Type.Array(
        JsonObject(
          'A `{"type": "function", "function": {name, description?, parameters?, strict?}}` or `{"type": "raw", "raw": {...}}` tool.',
        ),
        {
          minItems: 1,
        },
      ),
      tool_choice: Type.Optional(
        JsonObject('`{"type": "none" | "zero_or_more" | "one_or_more"}` or `{"type": "specific_function", "function_name": ...}`.'),
      ),
      disable_parallel_tool_calls: Type.Optional(Type.Boolean()),
    },
    { ...Open, description: 'Tool definitions; stored as given.' },
  ),
);
export const PromptResponseFormat = Named(
  'PromptResponseFormatJSONSchema',
  Type.Object(
    {
      type: Type.Literal('json_schema'),
      json_schema: Type.Object({ name: Type.String() }, { ...Open, description: '{name, description?, schema?, strict?}' }),
    },
    { ...Open, description: 'Structured output format; stored as given.' },
  ),
);

const promptFields = {
  name: Identifier,
  description: Type.Optional(Nullable(Type.String())),
  source_prompt_id: Type.Optional(Nullable(Type.String({ description: 'Accepted for Phoenix compatibility; not stored.' }))),
  metadata: Type.Optional(Nullable(JsonObject('Free-form metadata of the prompt.'))),
};
export const PromptData = Named('PromptData', Type.Object(promptFields));
export const Prompt = Named(
  'Prompt',
  Type.Object({
    id: Type.String({ description: 'Opaque Prompt id (base64 of "Prompt:<row id>").' }),
    name: Type.String(),
    description: Nullable(Type.String()),
    source_prompt_id: Type.Null({ description: 'Always null (prompts are not cloned here).' }),
    metadata: JsonObject('Free-form metadata of the prompt.'),
    created_at: Type.String({ format: 'date-time', description: 'Sightline addition.' }),
    updated_at: Type.String({ format: 'date-time', description: 'Sightline addition.' }),
  }),
);

const versionFields = {
  description: Type.Optional(Nullable(Type.String())),
  model_provider: ModelProvider,
  model_name: Type.String({ minLength: 1 }),
  template: Type.Union([PromptChatTemplate, PromptStringTemplate]),
  template_type: PromptTemplateType,
  template_format: PromptTemplateFormat,
  invocation_parameters: PromptInvocationParameters,
  tools: Type.Optional(Nullable(PromptTools)),
  response_format: Type.Optional(Nullable(PromptResponseFormat)),
};
export const PromptVersionData = Named('PromptVersionData', Type.Object(versionFields));
export const PromptVersion = Named(
  'PromptVersion',
  Type.Object({
    id: Type.String({ description: 'Opaque PromptVersion id (base64 of "PromptVersion:<row id>").' }),
    ...versionFields,
    description: Nullable(Type.String()),
    tools: Nullable(PromptTools),
    response_format: Nullable(PromptResponseFormat),
    prompt_id: Type.String({ description: 'Sightline addition: the Prompt id.' }),
    created_at: Type.String({ format: 'date-time', description: 'Sightline addition.' }),
  }),
);

export const PromptVersionTagData = Named(
  'PromptVersionTagData',
  Type.Object({ name: Identifier, description: Type.Optional(Nullable(Type.String())) }),
);
export const PromptVersionTag = Named(
  'PromptVersionTag',
  Type.Object({
    id: Type.String({ description: 'Opaque PromptVersionTag id.' }),
    name: Type.String(),
    description: Nullable(Type.String()),
  }),
);

export const CreatePromptRequestBody = Type.Object(
  { prompt: PromptData, version: PromptVersionData },
  { title: 'CreatePromptRequestBody' },
);
export const PatchPromptRequestBody = Type.Object(
  {
    description: Type.Optional(Nullable(Type.String({ description: 'New description; null clears it.' }))),
    metadata: Type.Optional(JsonObject('New metadata; replaces the old as a whole.')),
  },
  { title: 'PatchPromptRequestBody' },
);

export const PromptPath = Type.Object({
  prompt_identifier: Type.String({ description: 'Prompt id (base64 "Prompt:<id>") or prompt name.' }),
});
export const PromptVersionPath = Type.Object({
  prompt_version_id: Type.String({ description: 'PromptVersion id (base64 "PromptVersion:<id>").' }),
});
