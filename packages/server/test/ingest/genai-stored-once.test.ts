/**
 * GenAI spans of conventions 1.37 and later are stored with their content once, as sent, and read
 * mapped in full (docs/ingest.md, "Conventions"): the span list, one trace's spans and the sessions
 * list show the OpenInference messages, values and parameters that ingest did not store.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachDialect } from '../helpers/server.js';
import { newSpanId, newTraceId, request, sendSpans } from '../helpers/query.js';
import { storedSpans } from '../helpers/stored.js';

const QUESTION = 'Which clause covers early termination of the contract?';
const ANSWER = 'Clause 14.2 covers early termination, with ninety days of notice.';

function chatAttributes() {
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.request.temperature': 0.2,
    'gen_ai.usage.input_tokens': 120,
    'gen_ai.usage.output_tokens': 30,
    'gen_ai.conversation.id': 'conversation-42',
    'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'You answer questions about contracts.' }]),
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: QUESTION }] }]),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: ANSWER }], finish_reason: 'stop' }]),
    'gen_ai.tool.definitions': JSON.stringify([{ type: 'function', name: 'find_clause', parameters: { type: 'object' } }]),
  };
}

describeEachDialect('GenAI spans stored once', (server) => {
  it('stores what SQL reads, and every read shows the span mapped in full', async () => {
    const project = 'genai-stored-once';
    const traceId = newTraceId();
    const spanId = newSpanId();
    const start = BigInt(Date.now() - 5_000) * 1_000_000n;
    await sendSpans(server().url, project, [{ traceId, spanId, name: 'chat gpt-4o-mini', start, attributes: chatAttributes() }]);

    const stored = (await storedSpans(server().server.database, [traceId])).get(spanId);
    assert.ok(stored);
    assert.equal(stored.span_kind, 'LLM');
    assert.equal(stored.llm_token_count_total, 150);
    assert.equal(stored.attributes['llm.model_name'], 'gpt-4o-mini');
    assert.equal(stored.attributes['session.id'], 'conversation-42');
    const expanded = Object.keys(stored.attributes).filter((key) =>
      /^(llm\.(input|output)_messages|llm\.tools|input\.|output\.)/.test(key),
    );
    assert.deepEqual(expanded, [], 'the content is stored once, under its own names');

    const list = await request(server().url, 'GET', `/v1/projects/${project}/spans?limit=10`);
    assert.equal(list.status, 200);
    const [span] = list.body.data as { attributes: Record<string, unknown> }[];
    assert.ok(span);
    const attributes = span.attributes;
    assert.equal(attributes['input.value'], QUESTION);
    assert.equal(attributes['output.value'], ANSWER);
    assert.equal(attributes['llm.input_messages.0.message.role'], 'system');
    assert.equal(attributes['llm.input_messages.1.message.contents.0.message_content.text'], QUESTION);
    assert.equal(attributes['llm.output_messages.0.message.contents.0.message_content.text'], ANSWER);
    assert.equal(JSON.parse(String(attributes['llm.invocation_parameters'])).temperature, 0.2);
    assert.equal(JSON.parse(String(attributes['llm.tools.0.tool.json_schema'])).function.name, 'find_clause');
    // The originals are kept.
    assert.equal(attributes['gen_ai.input.messages'], chatAttributes()['gen_ai.input.messages']);

    // A trace with all its spans (the trace page) reads the same way.
    const trace = await request(server().url, 'GET', `/v1/projects/${project}/traces/${traceId}`);
    assert.equal(trace.status, 200, trace.text);
    const traceSpan = (trace.body.data.spans as { context: { span_id: string }; attributes: Record<string, unknown> }[]).find(
      (item) => item.context.span_id === spanId,
    );
    assert.equal(traceSpan?.attributes['llm.input_messages.1.message.role'], 'user');

    // The sessions list's first input and last output come from the messages too.
    const sessions = await request(server().url, 'GET', `/v1/projects/${project}/sessions`);
    assert.equal(sessions.status, 200);
    const session = (sessions.body.data as { session_id: string; first_input: string | null; last_output: string | null }[]).find(
      (item) => item.session_id === 'conversation-42',
    );
    assert.ok(session, JSON.stringify(sessions.body));
    assert.equal(session.first_input, QUESTION);
    assert.equal(session.last_output, ANSWER);
  });
});
