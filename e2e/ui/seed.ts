/**
 * Realistic demo traces for screenshots and explorer tests: an LLM support agent (retrieval, a
 * chat completion with messages and token counts, sometimes a tool call or an error) spread over
 * the last hours, sent through a real OTLP/HTTP exporter with an API key.
 */
import { context, trace, SpanStatusCode } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';

const QUESTIONS = [
  'Where is my order #4471? It was due yesterday.',
  'How do I reset the password of my account?',
  'Can I change the delivery address after checkout?',
  'What is your refund policy for opened items?',
  'My invoice shows the wrong VAT number, can you fix it?',
  'Do you ship to Norway, and how long does it take?',
];
const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-3-5-sonnet'];

/** A deterministic pseudo-random sequence, so screenshots look the same on every run. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

export interface SeedOptions {
  baseUrl: string;
  apiKey: string;
  project: string;
  traces: number;
  /** Traces start within this many hours before now. */
  hours: number;
  seed?: number;
}

export async function seedTraces({ baseUrl, apiKey, project, traces, hours, seed = 7 }: SeedOptions): Promise<void> {
  const rand = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)]!;
  const exporter = new OTLPTraceExporter({ url: `${baseUrl}/v1/traces`, headers: { authorization: `Bearer ${apiKey}` } });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': project, 'openinference.project.name': project }),
    spanProcessors: [new BatchSpanProcessor(exporter, { maxExportBatchSize: 512, scheduledDelayMillis: 50 })],
  });
  const tracer = provider.getTracer('sightline-demo');
  const now = Date.now();
  for (let index = 0; index < traces; index++) {
    const start = now - rand() * hours * 3_600_000;
    const question = pick(QUESTIONS);
    const model = pick(MODELS);
    const failed = rand() < 0.08;
    const usesTool = rand() < 0.4;
    const prompt = 300 + Math.floor(rand() * 1500);
    const completion = 40 + Math.floor(rand() * 400);
    const answer = question.includes('order')
      ? 'Your order #4471 left our warehouse this morning and should arrive tomorrow before noon.'
      : 'Here is how to do that: open Settings, choose the section you need and follow the steps. Let me know if anything is unclear!';

    const root = tracer.startSpan('support-agent', {
      startTime: start,
      attributes: {
        'openinference.span.kind': 'AGENT',
        'input.value': question,
        'input.mime_type': 'text/plain',
        'session.id': `session-${Math.floor(rand() * 20)}`,
        'user.id': `user-${Math.floor(rand() * 50)}`,
      },
    });
    const rootContext = trace.setSpan(context.active(), root);
    let cursor = start + 5 + rand() * 20;

    const retrieval = tracer.startSpan(
      'vector-search',
      {
        startTime: cursor,
        attributes: {
          'openinference.span.kind': 'RETRIEVER',
          'input.value': question,
          'retrieval.documents.0.document.id': 'kb-112',
          'retrieval.documents.0.document.content':
            'Orders ship within 2 business days. Tracking links are emailed when a parcel leaves the warehouse.',
          'retrieval.documents.0.document.score': 0.82 + rand() * 0.1,
          'retrieval.documents.1.document.id': 'kb-078',
          'retrieval.documents.1.document.content': 'Passwords can be reset from the sign-in page with "Forgot your password?".',
          'retrieval.documents.1.document.score': 0.61 + rand() * 0.1,
        },
      },
      rootContext,
    );
    cursor += 40 + rand() * 160;
    retrieval.end(cursor);

    if (usesTool) {
      const tool = tracer.startSpan(
        'lookup_order',
        {
          startTime: cursor + 2,
          attributes: {
            'openinference.span.kind': 'TOOL',
            'tool.name': 'lookup_order',
            'tool.description': 'Finds an order and its shipping status',
            'tool.parameters': '{"order_id": "4471"}',
            'input.value': '{"order_id": "4471"}',
            'input.mime_type': 'application/json',
            'output.value': '{"status": "shipped", "carrier": "DHL", "eta": "tomorrow"}',
            'output.mime_type': 'application/json',
          },
        },
        rootContext,
      );
      cursor += 60 + rand() * 300;
      if (failed) {
        tool.recordException(Object.assign(new Error('order service timed out after 5000 ms'), { name: 'TimeoutError' }), cursor - 1);
        tool.setStatus({ code: SpanStatusCode.ERROR, message: 'order service timed out after 5000 ms' });
      } else tool.setStatus({ code: SpanStatusCode.OK });
      tool.end(cursor);
    }

    const llm = tracer.startSpan(
      'ChatCompletion',
      {
        startTime: cursor + 3,
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': model,
          'llm.provider': model.startsWith('claude') ? 'anthropic' : 'openai',
          'llm.invocation_parameters': JSON.stringify({ temperature: 0.2, max_tokens: 800 }),
          'llm.input_messages.0.message.role': 'system',
          'llm.input_messages.0.message.content':
            'You are a friendly support agent for an online shop. Answer briefly and cite the knowledge base.',
          'llm.input_messages.1.message.role': 'user',
          'llm.input_messages.1.message.content': question,
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.content': answer,
          'llm.token_count.prompt': prompt,
          'llm.token_count.completion': completion,
          'llm.token_count.total': prompt + completion,
          'input.value': question,
          'output.value': answer,
        },
      },
      rootContext,
    );
    cursor += 350 + rand() * (model === 'gpt-4o-mini' ? 900 : 2600);
    llm.setStatus({ code: SpanStatusCode.OK });
    llm.end(cursor);

    root.setAttribute('output.value', failed ? 'Sorry, I could not look up your order right now.' : answer);
    root.setStatus(failed ? { code: SpanStatusCode.ERROR, message: 'tool call failed' } : { code: SpanStatusCode.OK });
    root.end(cursor + 4);
  }
  await provider.forceFlush();
  await provider.shutdown();
}
