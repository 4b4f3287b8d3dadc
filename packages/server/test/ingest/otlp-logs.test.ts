/**
 * OTLP log records (docs/ingest.md, "Logs"), sent by OpenTelemetry's own log SDK and exporters
 * over OTLP/HTTP protobuf, JSON and gRPC: records that name a span become its events, whether
 * the span was stored before or after them; GenAI event records give an LLM span its messages;
 * records that name no span are refused and counted in the answer.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import { context, trace } from '@opentelemetry/api';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter as GrpcLogExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { describeEachDialect } from '../helpers/server.js';
import { AUTH_ENV } from '../helpers/auth.js';
import { newTraceId } from '../helpers/otlp-bodies.js';
import { rawExportClient } from '../helpers/otlp-grpc.js';
import { request } from '../helpers/query.js';

type LogExporterKind = 'http-protobuf' | 'http-json' | 'grpc';

function logExporter(kind: LogExporterKind, httpBase: string, grpcUrl: string, headers: Record<string, string> = {}): LogRecordExporter {
  if (kind === 'http-protobuf') return new ProtoLogExporter({ url: `${httpBase}/v1/logs`, headers });
  if (kind === 'http-json') return new JsonLogExporter({ url: `${httpBase}/v1/logs`, headers });
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(headers)) metadata.set(key, value);
  return new GrpcLogExporter({ url: grpcUrl, metadata });
}

/** Emits the records through a real LoggerProvider and waits until the exporter has sent them. */
async function emitLogs(
  exporter: LogRecordExporter,
  records: {
    traceId?: string;
    spanId?: string;
    eventName?: string;
    body: unknown;
    attributes?: Record<string, string>;
    severity?: string;
  }[],
): Promise<void> {
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'logs-test' }),
    // Batched, as apps send them: one export keeps the records' order (docs/ingest.md, "Logs").
    processors: [new BatchLogRecordProcessor({ exporter })],
  });
  const logger = provider.getLogger('logs-test');
  for (const record of records) {
    const spanContext =
      record.traceId && record.spanId
        ? trace.setSpanContext(context.active(), { traceId: record.traceId, spanId: record.spanId, traceFlags: 1 })
        : undefined;
    logger.emit({
      context: spanContext,
      eventName: record.eventName,
      body: record.body as never,
      attributes: record.attributes,
      severityNumber: SeverityNumber.INFO,
      severityText: record.severity,
    });
  }
  await provider.forceFlush();
  await provider.shutdown();
}

/** An OTLP/JSON export of one span of the project, ending now. */
function spanExport(project: string, traceId: string, spanId: string, name: string, attributes: Record<string, string | number>) {
  const now = BigInt(Date.now()) * 1_000_000n;
  const span = {
    traceId,
    spanId,
    name,
    kind: 3,
    startTimeUnixNano: String(now - 1_000_000_000n),
    endTimeUnixNano: String(now),
    attributes: Object.entries(attributes).map(([key, value]) => ({
      key,
      value: typeof value === 'number' ? { intValue: value } : { stringValue: value },
    })),
  };
  return JSON.stringify({
    resourceSpans: [
      { resource: { attributes: [{ key: 'service.name', value: { stringValue: project } }] }, scopeSpans: [{ spans: [span] }] },
    ],
  });
}

/** Stores an LLM span of GenAI conventions 1.27-1.36, whose messages come as log records. */
async function sendGenAiSpan(url: string, project: string, traceId: string, spanId: string): Promise<void> {
  const body = spanExport(project, traceId, spanId, 'chat gpt-4o-mini', {
    'gen_ai.operation.name': 'chat',
    'gen_ai.system': 'openai',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.usage.input_tokens': 21,
    'gen_ai.usage.output_tokens': 4,
  });
  const stored = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  assert.equal(stored.status, 200, await stored.text());
}

const GENAI_RECORDS = (traceId: string, spanId: string) => [
  {
    traceId,
    spanId,
    eventName: 'gen_ai.system.message',
    body: { content: 'Answer in one word.' },
    attributes: { 'gen_ai.system': 'openai' },
  },
  { traceId, spanId, eventName: 'gen_ai.user.message', body: { content: 'Capital of France?' }, attributes: { 'gen_ai.system': 'openai' } },
  {
    traceId,
    spanId,
    eventName: 'gen_ai.choice',
    body: { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Paris' } },
  },
];

/** Polls the span until `check` passes (the span-log-events job runs at once after an export, and every second). */
async function spanWhen(url: string, project: string, spanId: string, check: (span: Record<string, any>) => boolean) {
  let last: Record<string, any> | undefined;
  for (let attempt = 0; attempt < 100; attempt++) {
    const answer = await request(url, 'GET', `/v1/projects/${project}/spans?limit=100`);
    last = (answer.body.data as Record<string, any>[] | undefined)?.find((span) => span.context.span_id === spanId);
    if (last && check(last)) return last;
    await sleep(100);
  }
  assert.fail(`span ${spanId} never passed the check; last seen: ${JSON.stringify(last)?.slice(0, 2000)}`);
}

describeEachDialect('OTLP log records', (server) => {
  const url = () => server().url;
  const grpcUrl = () => `http://127.0.0.1:${server().server.grpcPort}`;

  for (const kind of ['http-protobuf', 'http-json', 'grpc'] as const) {
    it(`GenAI event records sent after their span give it events and messages (${kind})`, async () => {
      const project = `logs-after-${kind}`;
      const traceId = newTraceId();
      const spanId = traceId.slice(0, 16);
      await sendGenAiSpan(url(), project, traceId, spanId);
      await emitLogs(logExporter(kind, url(), grpcUrl()), GENAI_RECORDS(traceId, spanId));
      const span = await spanWhen(url(), project, spanId, (span) => span.attributes['llm.output_messages.0.message.content'] !== undefined);
      assert.equal(span.span_kind, 'LLM');
      assert.equal(span.attributes['llm.model_name'], 'gpt-4o-mini');
      assert.equal(span.attributes['llm.input_messages.0.message.role'], 'system');
      assert.equal(span.attributes['llm.input_messages.1.message.content'], 'Capital of France?');
      assert.equal(span.attributes['llm.output_messages.0.message.content'], 'Paris');
      assert.equal(span.attributes['output.value'], 'Paris');
      assert.deepEqual(
        span.events.map((event: { name: string }) => event.name),
        ['gen_ai.system.message', 'gen_ai.user.message', 'gen_ai.choice'],
      );
      assert.equal(span.events[1].attributes.content, 'Capital of France?');
      // The span's own attributes are kept as sent.
      assert.equal(span.attributes['gen_ai.request.model'], 'gpt-4o-mini');
    });
  }

  it('records sent before their span wait for it', async () => {
    const project = 'logs-before';
    const traceId = newTraceId();
    const spanId = traceId.slice(16);
    await emitLogs(logExporter('http-protobuf', url(), grpcUrl()), GENAI_RECORDS(traceId, spanId));
    // The job runs meanwhile and finds no span: the records wait.
    await sleep(1500);
    await sendGenAiSpan(url(), project, traceId, spanId);
    const span = await spanWhen(url(), project, spanId, (span) => span.events.length === 3);
    assert.equal(span.attributes['llm.input_messages.1.message.content'], 'Capital of France?');
    assert.equal(span.attributes['llm.output_messages.0.message.content'], 'Paris');
  });

  it('a record of no GenAI event becomes a plain event of its span, with its body and severity', async () => {
    const project = 'logs-plain';
    const traceId = newTraceId();
    const spanId = traceId.slice(8, 24);
    const body = spanExport(project, traceId, spanId, 'handle request', {});
    assert.equal(
      (await fetch(`${url()}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status,
      200,
    );
    await emitLogs(logExporter('http-json', url(), grpcUrl()), [
      { traceId, spanId, body: 'cache miss for user 7', severity: 'WARN', attributes: { 'cache.key': 'user:7' } },
    ]);
    const span = await spanWhen(url(), project, spanId, (span) => span.events.length === 1);
    assert.equal(span.events[0].name, 'log');
    assert.deepEqual(span.events[0].attributes, { 'cache.key': 'user:7', body: 'cache miss for user 7', 'log.severity': 'WARN' });
    // No GenAI convention: the span is not turned into anything else.
    assert.equal(span.span_kind, 'UNKNOWN');
  });

  it('refuses records that name no span, counted in partial_success, and keeps the rest', async () => {
    const traceId = newTraceId();
    const record = (ids: boolean) => ({
      timeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
      body: { stringValue: 'x' },
      ...(ids ? { traceId, spanId: traceId.slice(0, 16) } : {}),
    });
    const answer = await fetch(`${url()}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [record(false), record(true), record(false)] }] }] }),
    });
    assert.equal(answer.status, 200);
    const json = (await answer.json()) as { partialSuccess: { rejectedLogRecords: string; errorMessage: string } };
    assert.equal(json.partialSuccess.rejectedLogRecords, '2');
    assert.match(json.partialSuccess.errorMessage, /^2 log records named no span/);
    // All zeros is no id either (OTLP's invalid id).
    const zeros = await fetch(`${url()}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resourceLogs: [{ scopeLogs: [{ logRecords: [{ ...record(false), traceId: '0'.repeat(32), spanId: '0'.repeat(16) }] }] }],
      }),
    });
    assert.equal(((await zeros.json()) as { partialSuccess: { rejectedLogRecords: string } }).partialSuccess.rejectedLogRecords, '1');
    const whole = await fetch(`${url()}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [record(true)] }] }] }),
    });
    assert.deepEqual(await whole.json(), {});
  });

  it('answers malformed and unsupported bodies with a 4xx naming the problem', async () => {
    const post = (type: string, body: string | Uint8Array) =>
      fetch(`${url()}/v1/logs`, { method: 'POST', headers: { 'content-type': type }, body }).then(async (response) => ({
        status: response.status,
        text: await response.text(),
      }));
    const bad = await post('application/json', '{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"xyz","spanId":"00"}]}]}]}');
    assert.equal(bad.status, 400);
    assert.match(bad.text, /traceId must be 32 hex characters/);
    const notJson = await post('application/json', '{');
    assert.equal(notJson.status, 400);
    assert.match(notJson.text, /invalid JSON body/);
    const badProto = await post('application/x-protobuf', new Uint8Array([0x0a, 0xff, 0xff, 0x01]));
    assert.equal(badProto.status, 400);
    assert.match(badProto.text, /malformed OTLP protobuf body/);
    const plain = await post('text/plain', 'x');
    assert.equal(plain.status, 415);
    assert.match(plain.text, /application\/x-protobuf or application\/json/);
    const severity = await post('application/json', '{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityNumber":"LOUD"}]}]}]}');
    assert.equal(severity.status, 400);
    assert.match(severity.text, /severityNumber must be one of SEVERITY_NUMBER_UNSPECIFIED/);
  });
});

describeEachDialect(
  'OTLP log records with authentication on',
  (server) => {
    it('need an API key, over HTTP and gRPC', async () => {
      const noKey = await fetch(`${server().url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(noKey.status, 401);
      const client = rawExportClient('logs', `127.0.0.1:${server().server.grpcPort}`);
      const error = await new Promise<grpc.ServiceError | null>((resolve) =>
        client.Export(Buffer.alloc(0), new grpc.Metadata(), (failure) => resolve(failure)),
      );
      client.close();
      assert.equal(error?.code, grpc.status.UNAUTHENTICATED);
    });
  },
  AUTH_ENV,
);
