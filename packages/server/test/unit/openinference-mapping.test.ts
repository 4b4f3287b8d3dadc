/**
 * GenAI and Vercel AI SDK spans mapped to OpenInference at ingest (docs/ingest.md,
 * "Conventions"), one generation of each convention at a time. The attribute sets are the ones
 * the instrumentations send (checked against the real ones in e2e/clients/genai-instrumentations.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Attributes } from '../../src/span-model/decoded-spans.js';
import { addDerivedAttributes, addOpenInferenceAttributes } from '../../src/span-model/conventions/openinference-mapping.js';
import { toSpanRows } from '../../src/span-model/span-rows.js';

/**
 * The attributes a reader sees added to a copy of the span's (null when ingest adds none), the
 * span's own left out: what ingest stores, with what a read derives from it.
 */
function map(attributes: Attributes, events: { name: string; attributes: Attributes }[] = []): Attributes | null {
  const span = { ...attributes };
  if (!addOpenInferenceAttributes(span, events)) return null;
  addDerivedAttributes(span, events);
  const added: Attributes = {};
  for (const key in span) if (!(key in attributes)) added[key] = span[key]!;
  // The span's own values are never replaced.
  for (const key in attributes) assert.equal(span[key], attributes[key], key);
  return added;
}

describe('OpenInference mapping of GenAI spans', () => {
  test('leaves OpenInference spans and spans of no GenAI convention alone', () => {
    assert.equal(map({ 'openinference.span.kind': 'LLM', 'gen_ai.system': 'openai', 'gen_ai.usage.input_tokens': 3 }), null);
    assert.equal(map({ 'http.request.method': 'GET', 'url.path': '/x', ai_score: 1, gender: 'n' }), null);
    assert.equal(map({}), null);
    // An `ai.` key without the SDK's operation name is someone else's attribute.
    assert.equal(map({ 'ai.custom': 'x' }), null);
  });

  test('GenAI 1.37 and later: operation, provider, models, usage, JSON messages, conversation', () => {
    const mapped = map({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.usage.cache_read.input_tokens': 4,
      'gen_ai.usage.reasoning.output_tokens': 2,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'Hello' }], finish_reason: 'stop' }]),
      'gen_ai.conversation.id': 'conversation-7',
    });
    assert.ok(mapped);
    assert.equal(mapped['openinference.span.kind'], 'LLM');
    assert.equal(mapped['llm.model_name'], 'gpt-4o-mini-2024-07-18');
    assert.equal(mapped['llm.provider'], 'openai');
    assert.equal(mapped['llm.token_count.prompt'], 12);
    assert.equal(mapped['llm.token_count.completion'], 5);
    assert.equal(mapped['llm.token_count.total'], 17);
    assert.equal(mapped['llm.token_count.prompt_details.cache_read'], 4);
    assert.equal(mapped['llm.token_count.completion_details.reasoning'], 2);
    assert.equal(mapped['llm.input_messages.0.message.role'], 'user');
    assert.equal(mapped['llm.input_messages.0.message.contents.0.message_content.text'], 'Hi');
    assert.equal(mapped['llm.output_messages.0.message.contents.0.message_content.text'], 'Hello');
    assert.equal(JSON.parse(String(mapped['llm.invocation_parameters'])).temperature, 0.2);
    assert.equal(mapped['session.id'], 'conversation-7');
    // The text people read, not a second copy of the messages' JSON (which the span keeps).
    assert.equal(mapped['input.value'], 'Hi');
    assert.equal(mapped['input.mime_type'], 'text/plain');
    assert.equal(mapped['output.value'], 'Hello');
  });

  test('1.37 JSON messages are stored once, as sent, and read as OpenInference messages with the system instructions and tools', () => {
    const own: Attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'Be brief.' }]),
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }] },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: '21 C' }] },
      ]),
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          parts: [
            { type: 'text', content: 'It is 21 C.' },
            { type: 'text', content: 'Sunny.' },
          ],
        },
      ]),
      'gen_ai.tool.definitions': JSON.stringify([{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }]),
    };
    const stored = { ...own };
    assert.equal(addOpenInferenceAttributes(stored, [])?.added, true);
    // The content is stored once, as sent: only what SQL reads is added.
    const added = Object.keys(stored).filter((key) => !(key in own));
    assert.deepEqual(added.sort(), ['llm.model_name', 'openinference.span.kind']);

    const read = map(own);
    assert.ok(read);
    assert.equal(read['input.value'], 'Weather in Paris?');
    assert.equal(read['output.value'], 'It is 21 C.\n\nSunny.');
    assert.equal(read['llm.input_messages.0.message.role'], 'system');
    assert.equal(read['llm.input_messages.0.message.contents.0.message_content.text'], 'Be brief.');
    assert.equal(read['llm.input_messages.1.message.role'], 'user');
    assert.equal(read['llm.input_messages.2.message.tool_calls.0.tool_call.function.name'], 'get_weather');
    assert.deepEqual(JSON.parse(String(read['llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments'])), { city: 'Paris' });
    assert.equal(read['llm.input_messages.3.message.role'], 'tool');
    assert.equal(read['llm.output_messages.0.message.contents.1.message_content.text'], 'Sunny.');
    // Tools in OpenAI's function form, as the playground and the span page read them.
    assert.deepEqual(JSON.parse(String(read['llm.tools.0.tool.json_schema'])), {
      type: 'function',
      function: { name: 'get_weather', parameters: { type: 'object' } },
    });
  });

  test('a read derives nothing over messages the span holds, and nothing from JSON it cannot read', () => {
    const openInference: Record<string, unknown> = {
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.content': 'mine',
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'theirs' }] }]),
    };
    addDerivedAttributes(openInference, []);
    assert.equal(openInference['llm.input_messages.0.message.content'], 'mine');
    assert.equal(openInference['llm.input_messages.0.message.contents.0.message_content.text'], undefined);

    const broken: Record<string, unknown> = { 'gen_ai.input.messages': '[{"role":', 'gen_ai.output.messages': '{"not":"a list"}' };
    addDerivedAttributes(broken, []);
    assert.deepEqual(
      Object.keys(broken).filter((key) => key.startsWith('llm.input_messages') || key.startsWith('llm.output_messages')),
      [],
    );
    // Such JSON is read as the span's input, as sent.
    const read = map({ 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': '[{"role":' });
    assert.equal(read?.['input.value'], '[{"role":');
    assert.equal(read?.['input.mime_type'], 'text/plain');
  });

  test('operation names give the span kind', () => {
    const kinds: [string, string][] = [
      ['chat', 'LLM'],
      ['text_completion', 'LLM'],
      ['generate_content', 'LLM'],
      ['embeddings', 'EMBEDDING'],
      ['execute_tool', 'TOOL'],
      ['invoke_agent', 'AGENT'],
      ['create_agent', 'AGENT'],
      ['retrieval', 'RETRIEVER'],
    ];
    for (const [operation, kind] of kinds) {
      assert.equal(map({ 'gen_ai.operation.name': operation })?.['openinference.span.kind'], kind, operation);
    }
  });

  test('a tool execution: name, call id, arguments and result', () => {
    const mapped = map({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'get_weather',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.call.arguments': '{"city":"Paris"}',
      'gen_ai.tool.call.result': '{"celsius":21}',
    });
    assert.equal(mapped?.['openinference.span.kind'], 'TOOL');
    assert.equal(mapped?.['tool.name'], 'get_weather');
    assert.equal(mapped?.['tool_call.id'], 'call_1');
    assert.equal(mapped?.['input.value'], '{"city":"Paris"}');
    assert.equal(mapped?.['output.value'], '{"celsius":21}');
    // Token totals belong to LLM spans only.
    assert.equal(map({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.usage.input_tokens': 3 })?.['llm.token_count.total'], undefined);
  });

  test('conventions before 1.27: gen_ai.system, prompt_tokens, indexed prompt and completion with tool calls', () => {
    const mapped = map({
      'gen_ai.system': 'az.ai.openai',
      'gen_ai.request.model': 'gpt-4',
      'gen_ai.usage.prompt_tokens': 30,
      'gen_ai.usage.completion_tokens': 4,
      'gen_ai.prompt.0.role': 'system',
      'gen_ai.prompt.0.content': 'Be brief',
      'gen_ai.prompt.1.role': 'user',
      'gen_ai.prompt.1.content': 'Weather in Paris?',
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.tool_calls.0.id': 'call_9',
      'gen_ai.completion.0.tool_calls.0.name': 'get_weather',
      'gen_ai.completion.0.tool_calls.0.arguments': '{"city":"Paris"}',
    });
    assert.ok(mapped);
    assert.equal(mapped['openinference.span.kind'], 'LLM');
    assert.equal(mapped['llm.provider'], 'azure');
    assert.equal(mapped['llm.model_name'], 'gpt-4');
    assert.equal(mapped['llm.token_count.prompt'], 30);
    assert.equal(mapped['llm.token_count.total'], 34);
    assert.equal(mapped['llm.input_messages.0.message.role'], 'system');
    assert.equal(mapped['llm.input_messages.1.message.content'], 'Weather in Paris?');
    assert.equal(mapped['llm.output_messages.0.message.tool_calls.0.tool_call.function.name'], 'get_weather');
    assert.equal(mapped['llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments'], '{"city":"Paris"}');
    assert.equal(mapped['llm.output_messages.0.message.tool_calls.0.tool_call.id'], 'call_9');
    assert.deepEqual(JSON.parse(String(mapped['input.value'])), [
      { role: 'system', content: 'Be brief' },
      { role: 'user', content: 'Weather in Paris?' },
    ]);
  });

  test('message events of 1.27 to 1.36 (span events or log records) become messages, in order', () => {
    const mapped = map({ 'gen_ai.system': 'openai', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini' }, [
      { name: 'gen_ai.system.message', attributes: { 'gen_ai.system': 'openai', content: 'Be brief' } },
      { name: 'gen_ai.user.message', attributes: { content: 'Weather?' } },
      {
        name: 'gen_ai.assistant.message',
        attributes: { tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      },
      { name: 'gen_ai.tool.message', attributes: { id: 'call_1', content: '{"celsius":21}' } },
      { name: 'gen_ai.choice', attributes: { index: 0, finish_reason: 'stop', message: { content: 'It is 21 °C.' } } },
    ]);
    assert.ok(mapped);
    assert.deepEqual(
      [0, 1, 2, 3].map((i) => mapped[`llm.input_messages.${i}.message.role`]),
      ['system', 'user', 'assistant', 'tool'],
    );
    assert.equal(mapped['llm.input_messages.2.message.tool_calls.0.tool_call.function.name'], 'get_weather');
    assert.equal(mapped['llm.input_messages.3.message.tool_call_id'], 'call_1');
    assert.equal(mapped['llm.output_messages.0.message.content'], 'It is 21 °C.');
    assert.equal(mapped['output.value'], 'It is 21 °C.');
    assert.equal(mapped['output.mime_type'], 'text/plain');
  });

  test('the 1.26 prompt and completion events, and the 1.37 operation-details event', () => {
    const old = map({ 'gen_ai.system': 'openai' }, [
      { name: 'gen_ai.content.prompt', attributes: { 'gen_ai.prompt': '[{"role":"user","content":"Hi"}]' } },
      { name: 'gen_ai.content.completion', attributes: { 'gen_ai.completion': 'Hello' } },
    ]);
    assert.equal(old?.['llm.input_messages.0.message.content'], 'Hi');
    assert.equal(old?.['output.value'], 'Hello');
    const details = map({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm' }, [
      {
        name: 'gen_ai.client.inference.operation.details',
        attributes: {
          'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }],
          'gen_ai.output.messages': [{ role: 'assistant', parts: [{ type: 'text', content: 'Yo' }] }],
        },
      },
    ]);
    assert.equal(details?.['llm.input_messages.0.message.contents.0.message_content.text'], 'Hi');
    assert.equal(details?.['llm.output_messages.0.message.contents.0.message_content.text'], 'Yo');
  });

  test('the span keeps its own attributes: a mapped key the span already has is not added', () => {
    const mapped = map({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'llm.model_name': 'mine', 'session.id': 's' });
    assert.equal(mapped?.['llm.model_name'], undefined);
    assert.equal(mapped?.['session.id'], undefined);
    assert.equal(mapped?.['openinference.span.kind'], 'LLM');
  });

  test('hostile values do not throw and map to nothing odd', () => {
    for (const value of ['{', '[', 'null', '[{"role":1}]', '[1,2]', 'x'.repeat(10_000)]) {
      const mapped = map({ 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': value, 'gen_ai.prompt.0.content': value }, [
        { name: 'gen_ai.choice', attributes: { index: 1e9, message: value } },
        { name: 'gen_ai.user.message', attributes: { content: { nested: [value] } } },
      ]);
      assert.equal(mapped?.['openinference.span.kind'], 'LLM');
    }
  });
});

describe('OpenInference mapping of Vercel AI SDK spans', () => {
  const doGenerate: Attributes = {
    'operation.name': 'ai.generateText.doGenerate weather-answer',
    'ai.operationId': 'ai.generateText.doGenerate',
    'ai.model.provider': 'openai.chat',
    'ai.model.id': 'gpt-4o-mini',
    'ai.telemetry.functionId': 'weather-answer',
    'ai.prompt.messages': JSON.stringify([{ role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] }]),
    'ai.response.text': 'Sunny.',
    'ai.usage.inputTokens': 7,
    'ai.usage.outputTokens': 3,
    'gen_ai.system': 'openai.chat',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.response.model': 'gpt-4o-mini',
    'gen_ai.usage.input_tokens': 7,
    'gen_ai.usage.output_tokens': 3,
  };

  test('the provider call is the LLM span: model, provider, tokens, messages, answer', () => {
    const mapped = map(doGenerate);
    assert.ok(mapped);
    assert.equal(mapped['openinference.span.kind'], 'LLM');
    assert.equal(mapped['llm.model_name'], 'gpt-4o-mini');
    assert.equal(mapped['llm.provider'], 'openai');
    assert.equal(mapped['llm.token_count.prompt'], 7);
    assert.equal(mapped['llm.token_count.completion'], 3);
    assert.equal(mapped['llm.input_messages.0.message.role'], 'user');
    assert.equal(mapped['llm.input_messages.0.message.contents.0.message_content.text'], 'Weather in Paris?');
    assert.equal(mapped['output.value'], 'Sunny.');
  });

  test('the v4 token names count too', () => {
    const v4: Attributes = { ...doGenerate, 'ai.usage.promptTokens': 9, 'ai.usage.completionTokens': 2 };
    for (const key of ['ai.usage.inputTokens', 'ai.usage.outputTokens', 'gen_ai.usage.input_tokens', 'gen_ai.usage.output_tokens'])
      delete v4[key];
    const mapped = map(v4);
    assert.equal(mapped?.['llm.token_count.prompt'], 9);
    assert.equal(mapped?.['llm.token_count.completion'], 2);
  });

  test('the outer call is an AGENT (or CHAIN) span carrying user and session from the telemetry metadata', () => {
    const mapped = map({
      'operation.name': 'ai.generateText weather-answer',
      'ai.operationId': 'ai.generateText',
      'ai.prompt': JSON.stringify({ prompt: 'Weather in Paris?' }),
      'ai.response.text': 'Sunny.',
      'ai.telemetry.metadata.userId': 'user-1',
      'ai.telemetry.metadata.sessionId': 'session-1',
    });
    assert.ok(mapped);
    assert.ok(['AGENT', 'CHAIN'].includes(String(mapped['openinference.span.kind'])));
    assert.equal(mapped['user.id'], 'user-1');
    assert.equal(mapped['session.id'], 'session-1');
    assert.equal(mapped['output.value'], 'Sunny.');
    const embed = map({ 'operation.name': 'ai.embed', 'ai.operationId': 'ai.embed', 'ai.value': '"x"' });
    assert.equal(embed?.['openinference.span.kind'], 'CHAIN');
  });

  test('a tool call is a TOOL span with its name, arguments and result', () => {
    const mapped = map({
      'operation.name': 'ai.toolCall',
      'ai.operationId': 'ai.toolCall',
      'ai.toolCall.name': 'get_weather',
      'ai.toolCall.id': 'call_1',
      'ai.toolCall.args': '{"city":"Paris"}',
      'ai.toolCall.result': '{"celsius":21}',
    });
    assert.equal(mapped?.['openinference.span.kind'], 'TOOL');
    assert.equal(mapped?.['tool.name'], 'get_weather');
    assert.equal(mapped?.['input.value'], '{"city":"Paris"}');
    assert.equal(mapped?.['output.value'], '{"celsius":21}');
  });

  test('an operation the package does not know is still a CHAIN span', () => {
    assert.equal(
      map({ 'operation.name': 'ai.someNewFunction', 'ai.operationId': 'ai.someNewFunction' })?.['openinference.span.kind'],
      'CHAIN',
    );
  });
});

describe('span rows of mapped spans', () => {
  test('kind, token columns, session and the original attributes', () => {
    const [row] = toSpanRows([
      {
        resourceAttributes: { 'service.name': 'genai-app' },
        spans: [
          {
            traceId: 'a'.repeat(32),
            spanId: 'b'.repeat(16),
            parentSpanId: null,
            name: 'chat gpt-4o-mini',
            kind: 3,
            startTimeUnixNano: 1_700_000_000_000_000_000n,
            endTimeUnixNano: 1_700_000_001_000_000_000n,
            statusCode: 0,
            statusMessage: '',
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.request.model': 'gpt-4o-mini',
              'gen_ai.usage.input_tokens': 12,
              'gen_ai.usage.output_tokens': 5,
              'gen_ai.conversation.id': 'c-1',
            },
            events: [],
          },
        ],
      },
    ] as Parameters<typeof toSpanRows>[0]);
    assert.ok(row);
    assert.equal(row.spanKind, 'LLM');
    assert.equal(row.tokenCountPrompt, 12);
    assert.equal(row.tokenCountCompletion, 5);
    assert.equal(row.tokenCountTotal, 17);
    assert.equal(row.sessionId, 'c-1');
    const stored = JSON.parse(row.attributes) as Record<string, unknown>;
    assert.equal(stored['gen_ai.request.model'], 'gpt-4o-mini');
    assert.equal(stored['llm.model_name'], 'gpt-4o-mini');
    // The counts are the row's columns, and derived as attributes when the span is read.
    assert.equal(stored['llm.token_count.prompt'], undefined);
  });
});
