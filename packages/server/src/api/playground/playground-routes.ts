/**
 * The playground's routes (docs/playground.md): an OpenAI-compatible `POST /v1/chat/completions`
 * (stream or not; the model is `provider:model`), so the UI and the real `openai` SDK both call
 * it, and the provider settings (`PUT /v1/secrets` as Phoenix has it; `GET` lists names only).
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { PlaygroundService } from '../../playground/playground-service.js';
import type { ChatEvent, ToolCall as ToolCallOut } from '../../playground/providers.js';
import { ToolCallCollector } from '../../playground/chat-types.js';
import { messagesOf, responseFormatOf, toolChoiceOf, toolsOf } from '../../playground/chat-request.js';
import type { SecretsService } from '../../playground/secrets-service.js';
import { Nullable, errors } from '../shared/schemas.js';
import { abortWhenCallerLeaves } from '../shared/caller-abort.js';

const TextPart = Type.Object({ type: Type.Literal('text'), text: Type.String() }, { additionalProperties: true });

const ToolCall = Type.Object(
  {
    id: Type.String({ maxLength: 200 }),
    type: Type.Optional(Type.Literal('function')),
    function: Type.Object({ name: Type.String({ maxLength: 200 }), arguments: Type.String({ maxLength: 1_000_000 }) }),
    extra_content: Type.Optional(
      Type.Object(
        { google: Type.Optional(Type.Object({ thought_signature: Type.Optional(Type.String()) }, { additionalProperties: true })) },
        { additionalProperties: true, description: "Gemini's thought signature of the call, to send back with it (docs/playground.md)." },
      ),
    ),
  },
  { title: 'ChatToolCall', additionalProperties: true },
);

const Tool = Type.Object(
  {
    type: Type.Literal('function'),
    function: Type.Object(
      {
        name: Type.String({ description: '1 to 64 letters, digits, _ or -.' }),
        description: Type.Optional(Type.String({ maxLength: 100_000 })),
        parameters: Type.Optional(
          Type.Record(Type.String(), Type.Unknown(), { description: 'A JSON schema of type object; the default takes no arguments.' }),
        ),
        strict: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: true },
    ),
  },
  { title: 'ChatTool', additionalProperties: true },
);

const ChatCompletionBody = Type.Object(
  {
    model: Type.String({
      minLength: 1,
      maxLength: 300,
      description: '"provider:model", e.g. "openai:gpt-4o-mini" or "anthropic:claude-sonnet-4-5".',
    }),
    messages: Type.Array(
      Type.Object(
        {
          role: Type.Union([
            Type.Literal('system'),
            Type.Literal('developer'),
            Type.Literal('user'),
            Type.Literal('assistant'),
            Type.Literal('tool'),
          ]),
          // Required but for an assistant message with tool_calls (checked in playground/chat-request.ts). Null
          // comes first: with Ajv's type coercion a string branch before it would read null as "".
          content: Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength: 1_000_000 }), Type.Array(TextPart, { maxItems: 100 })])),
          tool_calls: Type.Optional(Type.Array(ToolCall, { maxItems: 128, description: 'Calls an assistant message made.' })),
          tool_call_id: Type.Optional(Type.String({ maxLength: 200, description: 'The call a tool message answers.' })),
        },
        { additionalProperties: true },
      ),
      { minItems: 1, maxItems: 500 },
    ),
    tools: Type.Optional(Type.Array(Tool, { maxItems: 128, description: 'Function tools the model may call (docs/playground.md).' })),
    tool_choice: Type.Optional(
      Type.Union([
        Type.Literal('auto'),
        Type.Literal('none'),
        Type.Literal('required'),
        Type.Object({ type: Type.Literal('function'), function: Type.Object({ name: Type.String() }) }),
      ]),
    ),
    stream: Type.Optional(Type.Boolean()),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    max_completion_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    stop: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 })])),
    response_format: Type.Optional(
      Type.Object(
        { type: Type.String({ description: 'text, json_object or json_schema (with json_schema: {name, schema, strict?})' }) },
        {
          additionalProperties: true,
          description:
            'OpenAI-compatible providers get it as sent; Anthropic a json_schema as its structured outputs (docs/playground.md).',
        },
      ),
    ),
  },
  { additionalProperties: true },
);

const ChatCompletion = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('chat.completion'),
    created: Type.Integer(),
    model: Type.String(),
    choices: Type.Array(
      Type.Object({
        index: Type.Integer(),
        message: Type.Object({
          role: Type.Literal('assistant'),
          content: Nullable(Type.String({ description: 'Null when the answer is tool calls only.' })),
          tool_calls: Type.Optional(Type.Array(ToolCall)),
        }),
        finish_reason: Nullable(Type.String()),
      }),
    ),
    usage: Nullable(Type.Object({ prompt_tokens: Type.Integer(), completion_tokens: Type.Integer(), total_tokens: Type.Integer() })),
  },
  { title: 'ChatCompletion', description: "OpenAI's chat completion; the run's trace id is in the x-sightline-trace-id header." },
);

const SecretStatus = Type.Object(
  {
    key: Type.String(),
    from_environment: Type.Boolean({ description: 'Set in the server environment (wins over a stored value).' }),
    stored: Type.Boolean({ description: 'Stored encrypted in the database.' }),
    updated_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'SecretStatus', description: 'A provider setting; its value is never returned.' },
);

/** A tool call as OpenAI writes it, with Gemini's thought signature where Google's OpenAI-compatible API puts it. */
const wireToolCall = (call: ToolCallOut) => ({
  id: call.id,
  type: 'function' as const,
  function: { name: call.name, arguments: call.arguments },
  ...(call.signature ? { extra_content: { google: { thought_signature: call.signature } } } : {}),
});

/**
 * Error answers of the OpenAI-compatible route also carry OpenAI's `{error: {message, type}}`,
 * so OpenAI's SDKs show the reason; `detail` stays, as on every route.
 */
async function openAiErrorShape(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
  try {
    const body = JSON.parse(payload) as { detail?: unknown };
    if (typeof body.detail !== 'string') return payload;
    const type = reply.statusCode >= 500 ? 'api_error' : reply.statusCode === 401 ? 'authentication_error' : 'invalid_request_error';
    return JSON.stringify({ ...body, error: { message: body.detail, type } });
  } catch {
    return payload;
  }
}

export async function playgroundRoutes(
  instance: FastifyInstance,
  { playground, secrets }: { playground: PlaygroundService; secrets: SecretsService },
) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/v1/chat/completions',
    {
      onSend: openAiErrorShape,
      schema: {
        tags: ['chat_completions'],
        operationId: 'createChatCompletion',
        summary: 'OpenAI-compatible chat completions against a configured provider, traced to the playground project',
        description:
          'With stream=true the answer is server-sent events of chat.completion.chunk objects ending with data: [DONE]. A provider ' +
          'refusal (bad key, unknown model) is 422 with its message; a provider that fails or cannot be reached is 503.',
        body: ChatCompletionBody,
        // Typed as unknown so the stream can be sent too; the document keeps the ChatCompletion shape.
        response: { 200: Type.Unsafe<unknown>({ ...ChatCompletion }), ...errors(422, 503) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      // Stop the provider call when the caller goes away (a closed playground tab).
      const signal = abortWhenCallerLeaves(reply);
      const tools = toolsOf(body.tools);
      const run = await playground.chat(
        {
          model: body.model,
          messages: messagesOf(body.messages),
          tools,
          parameters: {
            temperature: body.temperature,
            top_p: body.top_p,
            max_tokens: body.max_tokens ?? body.max_completion_tokens,
            stop: body.stop === undefined ? undefined : ([] as string[]).concat(body.stop),
            response_format: responseFormatOf(body.response_format),
            tool_choice: toolChoiceOf(body.tool_choice, tools),
          },
        },
        signal,
        // A provider's error message may describe its account or network: admins only (docs/playground.md, "Errors").
        {
          seesProviderMessages:
            request.principal.kind === 'anonymous' || (request.principal.kind === 'user' && request.principal.user.role === 'admin'),
        },
      );
      const id = `chatcmpl-${randomBytes(12).toString('hex')}`;
      const created = Math.floor(Date.now() / 1000);
      reply.header('x-sightline-trace-id', run.traceId);
      const usageOf = (done: Extract<ChatEvent, { type: 'done' }> | null) =>
        done?.promptTokens != null && done.completionTokens != null
          ? {
              prompt_tokens: done.promptTokens,
              completion_tokens: done.completionTokens,
              total_tokens: done.promptTokens + done.completionTokens,
            }
          : null;
      if (!body.stream) {
        let content = '';
        const calls = new ToolCallCollector();
        let done: Extract<ChatEvent, { type: 'done' }> | null = null;
        for await (const event of run.events) {
          if (event.type === 'delta') content += event.text;
          else if (event.type === 'tool_call') calls.add(event);
          else done = event;
        }
        const toolCalls = calls.get();
        const message = {
          role: 'assistant' as const,
          // OpenAI's shape: null content beside tool calls when the model wrote no text.
          content: content === '' && toolCalls.length > 0 ? null : content,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls.map(wireToolCall) } : {}),
        };
        return {
          id,
          object: 'chat.completion' as const,
          created,
          model: body.model,
          choices: [{ index: 0, message, finish_reason: done?.finishReason ?? null }],
          usage: usageOf(done),
        };
      }
      const chunk = (delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
      async function* sse() {
        yield chunk({ role: 'assistant', content: '' });
        try {
          for await (const event of run.events) {
            if (event.type === 'delta') yield chunk({ content: event.text });
            else if (event.type === 'tool_call') {
              // OpenAI's tool call chunks: the first piece of a call has its id, type and name; later ones add arguments.
              const piece = {
                index: event.index,
                ...(event.id ? { id: event.id, type: 'function' } : {}),
                function: { ...(event.name ? { name: event.name } : {}), arguments: event.arguments },
                ...(event.signature ? { extra_content: { google: { thought_signature: event.signature } } } : {}),
              };
              yield chunk({ tool_calls: [piece] });
            } else yield chunk({}, event.finishReason ?? 'stop', { usage: usageOf(event) });
          }
        } catch (error) {
          // Headers are gone: the failure travels as an event the OpenAI SDK raises as an error.
          yield `data: ${JSON.stringify({ error: { message: error instanceof Error ? error.message : String(error), type: 'api_error' } })}\n\n`;
        }
        yield 'data: [DONE]\n\n';
      }
      return reply.type('text/event-stream; charset=utf-8').header('cache-control', 'no-cache').send(Readable.from(sse()));
    },
  );

  app.put(
    '/v1/secrets',
    {
      schema: {
        tags: ['secrets'],
        operationId: 'upsertOrDeleteSecrets',
        summary: 'Store (encrypted) or delete provider keys and base URLs (admins)',
        description: 'A null value deletes the stored one. Values are never returned; environment variables of the same name win.',
        body: Type.Object({
          secrets: Type.Array(Type.Object({ key: Type.String({ minLength: 1, maxLength: 100 }), value: Nullable(Type.String()) }), {
            minItems: 1,
            maxItems: 50,
          }),
        }),
        response: {
          200: Type.Object({ data: Type.Object({ upserted_keys: Type.Array(Type.String()), deleted_keys: Type.Array(Type.String()) }) }),
          ...errors(422),
        },
      },
    },
    async (request) => {
      const result = await secrets.upsertOrDelete(request.body.secrets);
      return { data: { upserted_keys: result.upserted, deleted_keys: result.deleted } };
    },
  );

  app.get(
    '/v1/secrets',
    {
      schema: {
        tags: ['secrets'],
        operationId: 'listSecrets',
        summary: 'Provider settings: which are set, in the environment or stored (names only, admins)',
        response: { 200: Type.Object({ data: Type.Array(SecretStatus) }), ...errors() },
      },
    },
    async () => ({
      data: (await secrets.list()).map((status) => ({
        key: status.key,
        from_environment: status.fromEnvironment,
        stored: status.stored,
        updated_at: status.updatedAt,
      })),
    }),
  );
}
