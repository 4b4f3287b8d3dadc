/** Real OpenTelemetry SDK set-ups that export to a test server. */
import { context, trace, SpanStatusCode, type Span } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { Metadata } from '@grpc/grpc-js';

export type ExporterKind = 'http-protobuf' | 'http-json' | 'grpc';
export const EXPORTER_KINDS: readonly ExporterKind[] = ['http-protobuf', 'http-json', 'grpc'];

/** A real OTLP exporter of the kind, pointed at the server; `headers` are sent on every export. */
export function makeExporter(kind: ExporterKind, httpBase: string, grpcUrl: string, headers: Record<string, string> = {}): SpanExporter {
  if (kind === 'http-protobuf') return new ProtoExporter({ url: `${httpBase}/v1/traces`, headers });
  if (kind === 'http-json') return new JsonExporter({ url: `${httpBase}/v1/traces`, headers });
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(headers)) metadata.set(key, value);
  return new GrpcExporter({ url: grpcUrl, metadata });
}

export interface ExportResult {
  /** What the SDK recorded, to compare with what the server stored. */
  spans: ReadableSpan[];
}

/**
 * Records a small LLM application trace (a CHAIN root with an LLM child that has an event and
 * an ERROR child tool span) and sends it through `exporter`; resolves after the export finished.
 */
export async function exportSampleTrace(exporter: SpanExporter, resource: Record<string, string>, label: string): Promise<ExportResult> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes(resource),
    spanProcessors: [new SimpleSpanProcessor(memory), new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('sightline-test');
  // Times with nanosecond digits that a double cannot hold: they must survive exactly.
  const base = 1_763_769_600;
  const root = tracer.startSpan(`${label} agent`, {
    startTime: [base, 123_456_789],
    attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': 'What is the weather?', 'session.id': 'session-1' },
  });
  const rootContext = trace.setSpan(context.active(), root);
  const llm: Span = tracer.startSpan(
    `${label} llm`,
    {
      startTime: [base, 223_456_789],
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'gpt-4o-mini',
        'llm.token_count.prompt': 120,
        'llm.token_count.completion': 30,
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'What is the weather? 🌦 ünïcödé',
        'llm.invocation_parameters': '{"temperature":0.2}',
        'llm.temperature': 0.25,
        'llm.streaming': true,
        'tag.tags': ['a', 'b'],
        'llm.scores': [1.5, 2.5],
      },
    },
    rootContext,
  );
  llm.addEvent('first token', { 'token.index': 0 }, [base, 323_456_789]);
  llm.end([base + 1, 999_999_999]);
  const tool = tracer.startSpan(
    `${label} tool`,
    { startTime: [base + 2, 1], attributes: { 'openinference.span.kind': 'tool' } },
    rootContext,
  );
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'tool failed' });
  tool.recordException(new Error('boom'), [base + 2, 5]);
  tool.end([base + 2, 7]);
  root.setStatus({ code: SpanStatusCode.OK });
  root.end([base + 3, 0]);
  await provider.forceFlush();
  const finished = [...memory.getFinishedSpans()];
  await provider.shutdown();
  return { spans: finished };
}

/** Exact nanoseconds of an SDK HrTime. */
export function hrToNanos([seconds, nanos]: [number, number]): bigint {
  return BigInt(seconds) * 1_000_000_000n + BigInt(nanos);
}
