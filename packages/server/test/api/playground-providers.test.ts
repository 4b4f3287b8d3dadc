/**
 * The playground's tools (docs/playground.md, "Tools") through each provider's real SDK against
 * a stand-in speaking that provider's wire format (test/helpers/standin-providers.ts), driven by
 * the real `openai` SDK on Sightline's OpenAI-compatible route: a tool call streams back, its
 * result continues the conversation, each provider receives its own shapes (OpenAI's `tools` and
 * `tool` messages, Anthropic's `tool_use` and `tool_result` blocks), and the runs' spans carry
 * the tools and tool calls in OpenInference's attributes. Requests no provider could take are
 * refused with a sentence, before any provider is called. On both databases.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import OpenAI from 'openai';
import { call, expectStatus } from '../helpers/auth.js';
import { describeEachDialect } from '../helpers/server.js';
import {
  STANDIN_KEYS,
  STANDIN_THOUGHT_SIGNATURE,
  STANDIN_TOOL_ARGUMENTS,
  startStandinProviders,
  type StandinProviders,
} from '../helpers/standin-providers.js';

const WEATHER_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
  required: ['city'],
};
const WEATHER_TOOL = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'The weather in a city', parameters: WEATHER_SCHEMA },
};
const QUESTION = { role: 'user' as const, content: 'What is the weather in Paris?' };
const FORECAST_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, sky: { type: 'string', enum: ['sunny', 'cloudy'] }, high: { type: 'number' } },
  required: ['city', 'sky', 'high'],
  additionalProperties: false,
};
const FORECAST_FORMAT = { type: 'json_schema' as const, json_schema: { name: 'forecast', schema: FORECAST_SCHEMA, strict: true } };

interface Shapes {
  provider: 'openai' | 'anthropic' | 'google';
  model: string;
  /** Whether the provider streams a call's arguments in pieces (Gemini sends each call whole). */
  argumentsInPieces: boolean;
  /** The tools as the provider received them. */
  tools(body: any): unknown;
  /** The tool choice as the provider received it. */
  toolChoice(body: any): unknown;
  /** The assistant's call and the tool's result as the provider received them. */
  callAndResult(body: any): unknown;
  expectedCallAndResult(callId: string, result: string): unknown;
  expectedToolChoice: unknown;
  /** The response format as the provider received it. */
  responseFormat(body: any): unknown;
  expectedResponseFormat: unknown;
}

const SHAPES: Shapes[] = [
  {
    provider: 'openai',
    model: 'openai:gpt-standin',
    argumentsInPieces: true,
    tools: (body) => body.tools,
    toolChoice: (body) => body.tool_choice,
    callAndResult: (body) => body.messages.slice(1),
    expectedCallAndResult: (callId, result) => [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: callId, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(STANDIN_TOOL_ARGUMENTS) } },
        ],
      },
      { role: 'tool', tool_call_id: callId, content: result },
    ],
    expectedToolChoice: { type: 'function', function: { name: 'get_weather' } },
    responseFormat: (body) => body.response_format,
    expectedResponseFormat: { type: 'json_schema', json_schema: { name: 'forecast', schema: FORECAST_SCHEMA, strict: true } },
  },
  {
    provider: 'anthropic',
    model: 'anthropic:claude-standin',
    argumentsInPieces: true,
    tools: (body) =>
      body.tools.map((tool: any) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
      })),
    toolChoice: (body) => body.tool_choice,
    callAndResult: (body) => body.messages.slice(1),
    expectedCallAndResult: (callId, result) => [
      { role: 'assistant', content: [{ type: 'tool_use', id: callId, name: 'get_weather', input: STANDIN_TOOL_ARGUMENTS }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content: result }] },
    ],
    expectedToolChoice: { type: 'tool', name: 'get_weather' },
    responseFormat: (body) => body.output_config,
    expectedResponseFormat: { format: { type: 'json_schema', schema: FORECAST_SCHEMA } },
  },
  {
    provider: 'google',
    model: 'google:gemini-standin',
    argumentsInPieces: false,
    tools: (body) =>
      body.tools[0].functionDeclarations.map((declared: any) => ({
        type: 'function',
        function: { name: declared.name, description: declared.description, parameters: declared.parametersJsonSchema },
      })),
    toolChoice: (body) => body.toolConfig,
    callAndResult: (body) => body.contents.slice(1),
    // The call had no id from Gemini: Sightline's own id is not sent back; its thought signature is.
    expectedCallAndResult: (_callId, result) => [
      {
        role: 'model',
        parts: [{ functionCall: { name: 'get_weather', args: STANDIN_TOOL_ARGUMENTS }, thoughtSignature: STANDIN_THOUGHT_SIGNATURE }],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: result } } }] },
    ],
    expectedToolChoice: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
    responseFormat: (body) => ({
      responseMimeType: body.generationConfig.responseMimeType,
      responseJsonSchema: body.generationConfig.responseJsonSchema,
    }),
    expectedResponseFormat: { responseMimeType: 'application/json', responseJsonSchema: FORECAST_SCHEMA },
  },
];

describeEachDialect(
  'playground: tools through each provider',
  (server) => {
    let standins: StandinProviders;
    const sdk = () => new OpenAI({ baseURL: `${server().url}/v1`, apiKey: 'unused-without-sign-in', maxRetries: 0 });
    const spanOf = async (traceId: string) => {
      const answer = expectStatus(await call(server().url, null, 'GET', `/v1/projects/playground/traces/${traceId}`), 200);
      return answer.body.data.spans[0] as { attributes: Record<string, unknown>; status_code: string };
    };

    before(async () => {
      standins = await startStandinProviders();
      const secrets = [
        { key: 'OPENAI_API_KEY', value: STANDIN_KEYS.openai },
        { key: 'OPENAI_BASE_URL', value: `${standins.url}/openai` },
        { key: 'ANTHROPIC_API_KEY', value: STANDIN_KEYS.anthropic },
        { key: 'ANTHROPIC_BASE_URL', value: `${standins.url}/anthropic` },
        { key: 'GEMINI_API_KEY', value: STANDIN_KEYS.gemini },
        { key: 'GEMINI_BASE_URL', value: `${standins.url}/gemini` },
      ];
      expectStatus(await call(server().url, null, 'PUT', '/v1/secrets', { body: { secrets } }), 200);
    });
    after(async () => {
      await standins?.close();
    });

    for (const shape of SHAPES) {
      it(`${shape.provider}: a tool call streams back, its result continues the conversation, both runs traced`, async () => {
        // 1. Tools offered: the model's call streams back as OpenAI's tool call chunks.
        const { data: stream, response } = await sdk()
          .chat.completions.create({
            model: shape.model,
            messages: [QUESTION],
            tools: [WEATHER_TOOL],
            tool_choice: { type: 'function', function: { name: 'get_weather' } },
            stream: true,
          })
          .withResponse();
        const calls: { id: string; name: string; arguments: string; signature?: string }[] = [];
        let argumentPieces = 0;
        let finishReason: string | null = null;
        for await (const chunk of stream) {
          for (const piece of chunk.choices[0]?.delta.tool_calls ?? []) {
            calls[piece.index] ??= { id: '', name: '', arguments: '' };
            const known = calls[piece.index]!;
            if (piece.id) known.id = piece.id;
            // Gemini's thought signature, where Google's OpenAI-compatible API puts it (not in the SDK's types).
            const signature = (piece as { extra_content?: { google?: { thought_signature?: string } } }).extra_content?.google
              ?.thought_signature;
            if (signature) known.signature = signature;
            if (piece.function?.name) known.name = piece.function.name;
            if (piece.function?.arguments) {
              known.arguments += piece.function.arguments;
              argumentPieces += 1;
            }
          }
          finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
        }
        assert.equal(calls.length, 1);
        const [made] = calls;
        assert.equal(made!.name, 'get_weather');
        assert.deepEqual(JSON.parse(made!.arguments), STANDIN_TOOL_ARGUMENTS);
        if (shape.argumentsInPieces) assert.ok(argumentPieces >= 2, 'the arguments arrive in pieces, as the provider streams them');
        assert.equal(made!.signature, shape.provider === 'google' ? STANDIN_THOUGHT_SIGNATURE : undefined);
        assert.equal(finishReason, 'tool_calls');
        const first = standins.requests.at(-1)!;
        assert.deepEqual(shape.tools(first.body), [WEATHER_TOOL], `${shape.provider} received the tool in its own shape`);
        assert.deepEqual(shape.toolChoice(first.body), shape.expectedToolChoice);

        const firstSpan = await spanOf(response.headers.get('x-sightline-trace-id')!);
        assert.deepEqual(JSON.parse(String(firstSpan.attributes['llm.tools.0.tool.json_schema'])), WEATHER_TOOL);
        const output = 'llm.output_messages.0.message.tool_calls.0.tool_call';
        assert.equal(firstSpan.attributes[`${output}.function.name`], 'get_weather');
        assert.deepEqual(JSON.parse(String(firstSpan.attributes[`${output}.function.arguments`])), STANDIN_TOOL_ARGUMENTS);
        assert.equal(firstSpan.attributes[`${output}.id`], made!.id);

        // 2. The result goes back: the conversation goes on (not streamed this time).
        const result = '21 °C and sunny';
        const { data: answer, response: second } = await sdk()
          .chat.completions.create({
            model: shape.model,
            messages: [
              QUESTION,
              {
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    id: made!.id,
                    type: 'function',
                    function: { name: made!.name, arguments: made!.arguments },
                    // Sent back as it came, as a client of Google's OpenAI-compatible API does.
                    ...(made!.signature ? { extra_content: { google: { thought_signature: made!.signature } } } : {}),
                  } as OpenAI.ChatCompletionMessageToolCall,
                ],
              },
              { role: 'tool', tool_call_id: made!.id, content: result },
            ],
            tools: [WEATHER_TOOL],
          })
          .withResponse();
        assert.equal(answer.choices[0]!.message.content, `Result noted: ${result}`);
        assert.equal(answer.choices[0]!.finish_reason, 'stop');
        assert.deepEqual(shape.callAndResult(standins.requests.at(-1)!.body), shape.expectedCallAndResult(made!.id, result));

        const secondSpan = await spanOf(second.headers.get('x-sightline-trace-id')!);
        const input = 'llm.input_messages';
        assert.equal(secondSpan.attributes[`${input}.1.message.tool_calls.0.tool_call.function.name`], 'get_weather');
        assert.equal(secondSpan.attributes[`${input}.2.message.role`], 'tool');
        assert.equal(secondSpan.attributes[`${input}.2.message.tool_call_id`], made!.id);
        assert.equal(secondSpan.attributes[`${input}.2.message.content`], result);
        assert.equal(secondSpan.attributes['llm.output_messages.0.message.content'], `Result noted: ${result}`);
      });
    }

    it('a JSON schema response format reaches each provider in its shape; the answer streams as JSON text', async () => {
      for (const shape of SHAPES) {
        const stream = await sdk().chat.completions.create({
          model: shape.model,
          messages: [QUESTION],
          response_format: FORECAST_FORMAT,
          stream: true,
        });
        let text = '';
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        assert.deepEqual(JSON.parse(text), { city: 'text', sky: 'sunny', high: 1 }, shape.provider);
        assert.deepEqual(shape.responseFormat(standins.requests.at(-1)!.body), shape.expectedResponseFormat, shape.provider);
      }
      const spans = expectStatus(await call(server().url, null, 'GET', '/v1/projects/playground/spans?limit=50'), 200).body.data as any[];
      const traced = spans.find((span) => String(span.attributes['llm.invocation_parameters']).includes('forecast'));
      assert.deepEqual(JSON.parse(traced.attributes['llm.invocation_parameters']).response_format, FORECAST_FORMAT);
    });

    it("google: JSON mode; an evaluator's judge through generateContent; Gemini's refusal read from its JSON error body", async () => {
      const answer = await sdk().chat.completions.create({
        model: 'google:gemini-standin',
        messages: [{ role: 'system', content: 'Be brief.' }, QUESTION],
        response_format: { type: 'json_object' },
        temperature: 0.3,
        max_tokens: 64,
      });
      assert.equal(answer.choices[0]!.message.content, `Echo: ${QUESTION.content}`);
      // Output tokens as billed: the answer's and the thinking's.
      assert.deepEqual(answer.usage, { prompt_tokens: 17, completion_tokens: 8, total_tokens: 25 });
      const sent = standins.requests.at(-1)!;
      assert.match(sent.path, /^\/gemini\/v1beta\/models\/gemini-standin:streamGenerateContent\?alt=sse$/);
      assert.deepEqual(sent.body.systemInstruction, { parts: [{ text: 'Be brief.' }], role: 'user' });
      assert.deepEqual(sent.body.contents, [{ role: 'user', parts: [{ text: QUESTION.content }] }]);
      assert.deepEqual(
        [sent.body.generationConfig.responseMimeType, sent.body.generationConfig.temperature, sent.body.generationConfig.maxOutputTokens],
        ['application/json', 0.3, 64],
      );

      const judged = expectStatus(
        await call(server().url, null, 'POST', '/v1/evaluators/try', {
          body: {
            definition: {
              type: 'llm_judge',
              model: 'google:gemini-judge',
              template: 'Is this correct: {{output}}',
              labels: [
                { label: 'correct', score: 1 },
                { label: 'wrong', score: 0 },
              ],
            },
            item: { output: 'Paris' },
          },
        }),
        200,
      ).body.data;
      assert.deepEqual([judged.label, judged.score, judged.answer], ['correct', 1, 'Echo: Is this correct: Paris']);
      assert.match(standins.requests.at(-1)!.path, /^\/gemini\/v1beta\/models\/gemini-judge:generateContent$/, 'the judge is not streamed');

      const missing = await call(server().url, null, 'POST', '/v1/chat/completions', {
        body: { model: 'google:missing-model', messages: [QUESTION] },
      });
      expectStatus(missing, 422);
      // Without sign-in whoever calls is the operator, who sees the provider's own message.
      assert.equal(missing.body.detail, 'google answered 404: models/missing-model is not found for API version v1beta (NOT_FOUND)');
    });

    it('refuses response formats a provider cannot take, before calling it', async () => {
      const calledBefore = standins.requests.length;
      const cases: [string, string, unknown, RegExp][] = [
        [
          'openai:gpt-standin',
          'a json_schema without a name',
          { type: 'json_schema', json_schema: { schema: FORECAST_SCHEMA } },
          /^response_format\.json_schema\.name must be 1 to 64 letters/,
        ],
        [
          'openai:gpt-standin',
          'a json_schema without json_schema',
          { type: 'json_schema' },
          /^response_format of type json_schema needs json_schema/,
        ],
        [
          'anthropic:claude-standin',
          'a schema that is not a JSON schema',
          { type: 'json_schema', json_schema: { name: 'forecast', schema: { type: 'object', required: 'city' } } },
          /^response_format\.json_schema\.schema\/required must be array/,
        ],
        [
          'anthropic:claude-standin',
          'JSON mode without a schema',
          { type: 'json_object' },
          /^anthropic has no JSON mode without a schema: use a response_format of type json_schema/,
        ],
        [
          'anthropic:claude-standin',
          'a type it does not know',
          { type: 'regex' },
          /^anthropic takes a response_format of type text or json_schema \(got "regex"\)/,
        ],
      ];
      for (const [model, what, format, expected] of cases) {
        const answer = await call(server().url, null, 'POST', '/v1/chat/completions', {
          body: { model, messages: [QUESTION], response_format: format },
        });
        expectStatus(answer, 422, what);
        assert.match(answer.body.detail, expected, what);
      }
      assert.equal(standins.requests.length, calledBefore, 'no provider was called');
    });

    it('refuses tool requests no provider could take, naming what is wrong, before calling any', async () => {
      const calledBefore = standins.requests.length;
      const assistantCall = (id: string, args = '{"city": "Paris"}') => ({
        role: 'assistant',
        content: null,
        tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: args } }],
      });
      const cases: [string, Record<string, unknown>, RegExp][] = [
        [
          'a parameters schema that is not a JSON schema',
          {
            tools: [
              {
                type: 'function',
                function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'strin' } } } },
              },
            ],
          },
          /^tools\[0\] \(get_weather\): parameters\/properties\/city\/type must be equal to one of the allowed values/,
        ],
        [
          'parameters not of type object',
          { tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'string' } } }] },
          /^tools\[0\] \(get_weather\): parameters must be a JSON schema of "type": "object"/,
        ],
        [
          'a tool name with a space',
          { tools: [{ type: 'function', function: { name: 'get weather' } }] },
          /^tools\[0\]\.function\.name must be 1 to 64 letters, digits, _ or - \(got "get weather"\)/,
        ],
        ['two tools of one name', { tools: [WEATHER_TOOL, WEATHER_TOOL] }, /^tools\[1\]: two tools are named "get_weather"/],
        [
          'a tool choice naming no offered tool',
          { tools: [WEATHER_TOOL], tool_choice: { type: 'function', function: { name: 'get_time' } } },
          /^tool_choice names the tool "get_time", which is not among the tools offered \(get_weather\)/,
        ],
        ['a tool choice without tools', { tool_choice: 'required' }, /^tool_choice needs tools/],
        [
          'a tool result without a matching call',
          { messages: [QUESTION, { role: 'tool', tool_call_id: 'call_nowhere', content: 'sunny' }] },
          /^messages\[1\] is a tool result for "call_nowhere", but no assistant message before it made a tool call with that id/,
        ],
        [
          'a tool result without tool_call_id',
          { messages: [QUESTION, assistantCall('call_1'), { role: 'tool', content: 'sunny' }] },
          /^messages\[2\] is a tool result without tool_call_id/,
        ],
        [
          'a call left unanswered',
          { messages: [QUESTION, assistantCall('call_1'), { role: 'user', content: 'and?' }] },
          /^messages\[1\] calls the tool get_weather \(id "call_1"\) and no tool message answers it before messages\[2\]/,
        ],
        [
          'arguments that are not a JSON object',
          { messages: [QUESTION, assistantCall('call_1', '[1, 2]'), { role: 'tool', tool_call_id: 'call_1', content: 'x' }] },
          /^messages\[1\]\.tool_calls\[0\]\.function\.arguments must be a JSON object as text/,
        ],
        [
          'a call id used twice',
          {
            messages: [
              QUESTION,
              assistantCall('call_1'),
              { role: 'tool', tool_call_id: 'call_1', content: 'x' },
              assistantCall('call_1'),
              { role: 'tool', tool_call_id: 'call_1', content: 'y' },
            ],
          },
          /^messages\[3\] repeats the tool call id "call_1" of messages\[1\]/,
        ],
        ['a user message without content', { messages: [{ role: 'user' }] }, /^messages\[0\] \(user\) has no content/],
      ];
      for (const { model } of SHAPES) {
        for (const [what, change, expected] of cases) {
          const body = { model, messages: [QUESTION], ...change };
          const answer = await call(server().url, null, 'POST', '/v1/chat/completions', { body });
          expectStatus(answer, 422, `${model}: ${what}`);
          assert.match(answer.body.detail, expected, `${model}: ${what}`);
          assert.equal(answer.body.error.message, answer.body.detail, "OpenAI's error shape carries the same sentence");
        }
      }
      assert.equal(standins.requests.length, calledBefore, 'no provider was called');
    });
  },
  // Provider keys are stored encrypted under SERVICE_SECRET (on PostgreSQL it is required).
  { SERVICE_ALLOW_PRIVATE_PROVIDER_URLS: 'true', SERVICE_SECRET: 'playground-providers-test-secret-0123456789' },
);
