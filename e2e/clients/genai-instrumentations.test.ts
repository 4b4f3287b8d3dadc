/**
 * The instrumentations most TypeScript apps use, each against a stand-in of OpenAI's API on
 * loopback, exporting to a real server with authentication on (docs/ingest.md, "Conventions"):
 * the Vercel AI SDK's telemetry (ai 6 with @ai-sdk/openai 3, and ai 5 with @ai-sdk/openai 2) and
 * OpenTelemetry's own instrumentation-openai with content capture (spans, and messages as OTLP
 * log records). Each must show an LLM span with its model, token counts, readable messages and a
 * cost on its trace, through the same REST API the UI reads.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createOpenAI } from '@ai-sdk/openai';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs';
import { register } from '@sightline/otel';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { createOpenAI as createOpenAIv2 } from 'ai-sdk-openai-v2';
import { streamText as streamTextV5 } from 'ai-v5';
import { AUTH_ENV, setupDefaultAdmin, type TestUser } from '../../packages/server/test/helpers/auth.js';
import { describeEachDialect } from '../../packages/server/test/helpers/server.js';
import { STANDIN_OPENAI_KEY, STANDIN_TOOL_ARGUMENTS, startStandinOpenAI, type StandinOpenAI } from '../ui/standin-openai.js';

/**
 * One instrumentation for the process: it patches `openai` when the module is first required, and
 * a module is required once per process however many suites (one per database) use it; enabling
 * it again patches the loaded module again.
 */
const openaiInstrumentation = new OpenAIInstrumentation({ captureMessageContent: true, enabled: false });

/** gpt-4o-mini in the built-in price table (USD per token). */
const MINI = { prompt: 0.15 / 1e6, completion: 0.6 / 1e6 };

type Span = {
  name: string;
  span_kind: string;
  parent_id: string | null;
  context: { trace_id: string; span_id: string };
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
};

describeEachDialect(
  'GenAI instrumentations against a stand-in model',
  (server) => {
    let admin: TestUser;
    let standin: StandinOpenAI;
    before(async () => {
      admin = await setupDefaultAdmin(server().url);
      standin = await startStandinOpenAI();
      // What a registered tracer provider sets up: the AI SDK's spans find their parent in the active context.
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    });
    after(async () => {
      context.disable();
      await standin.close();
    });

    const headers = () => ({ authorization: `Bearer ${admin.key}` });
    const get = async (path: string) => {
      const response = await fetch(`${server().url}${path}`, { headers: headers() });
      assert.equal(response.status, 200, `${path}: ${response.status}`);
      return (await response.json()) as { data: any };
    };
    /** The trace's spans, polled until `count` have arrived and `ready` holds (log records join their span within a second). */
    const traceSpans = async (project: string, traceId: string, count: number, ready: (spans: Span[]) => boolean = () => true) => {
      let spans: Span[] = [];
      for (let attempt = 0; attempt < 100; attempt++) {
        spans = (await get(`/v1/projects/${project}/spans?limit=100&trace_id=${traceId}`)).data;
        if (spans.length >= count && ready(spans)) return spans;
        await sleep(100);
      }
      assert.fail(`trace ${traceId}: ${spans.length} spans, wanted ${count}: ${JSON.stringify(spans).slice(0, 3000)}`);
    };
    /** The trace's cost once the cost job has priced its LLM spans. */
    const traceCost = async (project: string, traceId: string, expected: number) => {
      let cost: number | null = null;
      for (let attempt = 0; attempt < 100; attempt++) {
        cost = (await get(`/v1/projects/${project}/traces/${traceId}`)).data.cost_total;
        if (cost !== null && Math.abs(cost - expected) < 1e-12) return cost;
        await sleep(100);
      }
      assert.fail(`trace ${traceId} cost ${cost}, expected ${expected}`);
    };
    const tokens = (span: Span) => ({
      prompt: Number(span.attributes['llm.token_count.prompt']),
      completion: Number(span.attributes['llm.token_count.completion']),
    });
    const expectedCost = (llmSpans: Span[]) =>
      llmSpans.reduce((sum, span) => sum + tokens(span).prompt * MINI.prompt + tokens(span).completion * MINI.completion, 0);

    it('the Vercel AI SDK 6: generateText with a tool round trip', async () => {
      const project = 'ai-sdk-6';
      const provider = register({ projectName: project, endpoint: server().url, apiKey: admin.key, batch: false, global: false });
      const openai = createOpenAI({ baseURL: standin.url, apiKey: STANDIN_OPENAI_KEY });
      const result = await generateText({
        model: openai.chat('gpt-4o-mini'),
        prompt: 'Weather in Paris?',
        tools: {
          get_weather: tool({
            description: 'The weather in a city',
            inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
            execute: async ({ city }) => ({ city, celsius: 21 }),
          }),
        },
        stopWhen: stepCountIs(3),
        experimental_telemetry: {
          isEnabled: true,
          functionId: 'weather-answer',
          metadata: { userId: 'user-7', sessionId: 'session-7' },
          tracer: provider.getTracer('ai'),
        },
      });
      await provider.shutdown();
      assert.match(result.text, /^Echo: /);

      const spans = await traceSpans(project, (await get(`/v1/projects/${project}/spans?limit=1`)).data[0].context.trace_id, 4);
      const byName = (name: string) => spans.filter((span) => span.name === name);
      const [root] = byName('ai.generateText');
      const calls = byName('ai.generateText.doGenerate');
      const [toolCall] = byName('ai.toolCall');
      assert.ok(root && toolCall, spans.map((span) => span.name).join(', '));
      assert.ok(['AGENT', 'CHAIN'].includes(root.span_kind));
      assert.equal(root.attributes['user.id'], 'user-7');
      assert.equal(root.attributes['session.id'], 'session-7');
      assert.equal(calls.length, 2, 'two provider calls: the tool call, then the answer');
      for (const call of calls) {
        assert.equal(call.span_kind, 'LLM');
        assert.equal(call.attributes['llm.model_name'], 'gpt-4o-mini');
        assert.equal(call.attributes['llm.provider'], 'openai');
      }
      assert.deepEqual(
        calls.map(tokens).sort((a, b) => a.prompt - b.prompt),
        [
          { prompt: 12, completion: 4 },
          { prompt: 20, completion: 6 },
        ].sort((a, b) => a.prompt - b.prompt),
      );
      const first = calls.find((call) => tokens(call).prompt === 20)!;
      const text = (span: Span, at: string) =>
        span.attributes[`${at}.message.content`] ?? span.attributes[`${at}.message.contents.0.message_content.text`];
      assert.equal(first.attributes['llm.input_messages.0.message.role'], 'user');
      assert.equal(text(first, 'llm.input_messages.0'), 'Weather in Paris?');
      assert.equal(first.attributes['llm.output_messages.0.message.tool_calls.0.tool_call.function.name'], 'get_weather');
      // The arguments as JSON, not JSON text encoded again.
      assert.deepEqual(
        JSON.parse(String(first.attributes['llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments'])),
        STANDIN_TOOL_ARGUMENTS,
      );
      const second = calls.find((call) => tokens(call).prompt === 12)!;
      assert.equal(second.attributes['output.value'], result.text);
      assert.equal(toolCall.span_kind, 'TOOL');
      assert.equal(toolCall.attributes['tool.name'], 'get_weather');
      assert.deepEqual(JSON.parse(String(toolCall.attributes['input.value'])), STANDIN_TOOL_ARGUMENTS);
      assert.deepEqual(JSON.parse(String(toolCall.attributes['output.value'])), { city: 'Paris', celsius: 21 });
      await traceCost(project, root.context.trace_id, expectedCost(calls));
      // The session shows on the sessions page, under the AI SDK's sessionId.
      const sessions = (await get(`/v1/projects/${project}/sessions`)).data as { session_id: string }[];
      assert.ok(sessions.some((session) => session.session_id === 'session-7'));
    });

    it('the Vercel AI SDK 5: streamText', async () => {
      const project = 'ai-sdk-5';
      const provider = register({ projectName: project, endpoint: server().url, apiKey: admin.key, batch: false, global: false });
      const openai = createOpenAIv2({ baseURL: standin.url, apiKey: STANDIN_OPENAI_KEY });
      const stream = streamTextV5({
        model: openai.chat('gpt-4o-mini'),
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Say hello' }],
        experimental_telemetry: { isEnabled: true, functionId: 'hello', tracer: provider.getTracer('ai') },
      });
      const answer = await stream.text;
      await stream.consumeStream();
      await provider.shutdown();
      assert.equal(answer, 'Echo: Say hello');

      const traceId = (await get(`/v1/projects/${project}/spans?limit=1`)).data[0].context.trace_id;
      const spans = await traceSpans(project, traceId, 2);
      const call = spans.find((span) => span.name === 'ai.streamText.doStream');
      assert.ok(call, spans.map((span) => span.name).join(', '));
      assert.equal(call.span_kind, 'LLM');
      assert.equal(call.attributes['llm.model_name'], 'gpt-4o-mini');
      assert.deepEqual(tokens(call), { prompt: 12, completion: 3 });
      assert.equal(call.attributes['llm.input_messages.0.message.role'], 'system');
      assert.equal(call.attributes['output.value'], 'Echo: Say hello');
      await traceCost(project, traceId, expectedCost([call]));
    });

    it("OpenTelemetry's instrumentation-openai: the span, and its messages as log records", async () => {
      const project = 'otel-openai';
      const tracerProvider = register({ projectName: project, endpoint: server().url, apiKey: admin.key, batch: false, global: false });
      const loggerProvider = new LoggerProvider({
        // Batched, as apps send them: the records of one call share a timestamp, and one export keeps their order.
        processors: [
          new BatchLogRecordProcessor({ exporter: new OTLPLogExporter({ url: `${server().url}/v1/logs`, headers: headers() }) }),
        ],
      });
      openaiInstrumentation.setTracerProvider(tracerProvider);
      openaiInstrumentation.setLoggerProvider(loggerProvider);
      openaiInstrumentation.enable();
      try {
        // The instrumentation patches `openai` as it is first required (after it is enabled).
        const { OpenAI } = createRequire(import.meta.url)('openai') as typeof import('openai');
        const client = new OpenAI({ baseURL: standin.url, apiKey: STANDIN_OPENAI_KEY });
        const completion = await client.chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [
            { role: 'system', content: 'Answer in one line.' },
            { role: 'user', content: 'What is OTLP?' },
          ],
        });
        assert.equal(completion.choices[0]?.message.content, 'Echo: What is OTLP?');
      } finally {
        openaiInstrumentation.disable();
        await tracerProvider.shutdown();
        await loggerProvider.shutdown();
      }

      const traceId = (await get(`/v1/projects/${project}/spans?limit=1`)).data[0].context.trace_id;
      const [span] = await traceSpans(
        project,
        traceId,
        1,
        ([only]) => only?.attributes['llm.output_messages.0.message.content'] !== undefined,
      );
      assert.ok(span);
      assert.equal(span.name, 'chat gpt-4o-mini');
      assert.equal(span.span_kind, 'LLM');
      assert.equal(span.attributes['llm.model_name'], 'gpt-4o-mini');
      assert.deepEqual(tokens(span), { prompt: 12, completion: 4 });
      assert.equal(span.attributes['llm.input_messages.0.message.content'], 'Answer in one line.');
      assert.equal(span.attributes['llm.input_messages.1.message.content'], 'What is OTLP?');
      assert.equal(span.attributes['llm.output_messages.0.message.content'], 'Echo: What is OTLP?');
      assert.deepEqual(
        span.events.map((event) => event.name),
        ['gen_ai.system.message', 'gen_ai.user.message', 'gen_ai.choice'],
      );
      await traceCost(project, traceId, expectedCost([span]));
    });
  },
  AUTH_ENV,
);
