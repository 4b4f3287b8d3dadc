/**
 * bench/overload: many real OpenTelemetry exporters against a deliberately small ingest queue.
 *
 *   npm run bench:overload [-- --exporters 200 --seconds 60 --spans 50 --queue 2000 --queue-wait 2000]
 *
 * Starts the built server (SQLite, auth off) with SERVICE_INGEST_MAX_QUEUED_SPANS=--queue and
 * SERVICE_INGEST_QUEUE_WAIT_MS=--queue-wait (0: refuse at once when the queue is full), then
 * runs --exporters OTLP/HTTP protobuf exporters (@opentelemetry/exporter-trace-otlp-proto, with
 * their own retry of 429/502/503/504 and Retry-After) in this process, each exporting batches of
 * --spans new spans back to back for --seconds. Every HTTP answer the exporters receive is
 * counted through node:diagnostics_channel (status, and whether a 503 carried Retry-After).
 * After the load: seconds until a single export gets a 200, spans the exporters reported
 * exported against spans stored, and the server's peak RSS. See docs/deployment.md ("Overload").
 */
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import SQLite from 'better-sqlite3';
import { freePort, startServerProcess } from '../ingest/server-process.js';
import { buildServer, log, machine, ROOT, round, sourceState } from '../shared.js';

const { values } = parseArgs({
  options: {
    exporters: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '60' },
    spans: { type: 'string', default: '50' },
    queue: { type: 'string', default: '2000' },
    'queue-wait': { type: 'string', default: '2000' },
    'skip-build': { type: 'boolean', default: false },
  },
});
const positive = (name: string, value: string | undefined) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new Error(`--${name}: expected a positive whole number, got "${value}"`);
  return number;
};
const EXPORTERS = positive('exporters', values.exporters);
const SECONDS = positive('seconds', values.seconds);
const SPANS = positive('spans', values.spans);
const QUEUE = positive('queue', values.queue);
const QUEUE_WAIT_MS = Number(values['queue-wait']);
if (!Number.isInteger(QUEUE_WAIT_MS) || QUEUE_WAIT_MS < 0)
  throw new Error(`--queue-wait: expected milliseconds, 0 or more, got "${values['queue-wait']}"`);
const PROJECT = 'overload-bench';
/** ExportResultCode.SUCCESS of @opentelemetry/core (a transitive package, not imported). */
const EXPORT_SUCCESS = 0;

/** Answers the exporters received, by status; 503s with and without Retry-After. */
const answers: Record<string, number> = {};
diagnostics.subscribe('http.client.response.finish', (message) => {
  const { response } = message as { response: IncomingMessage };
  let key = String(response.statusCode);
  if (response.statusCode === 503 || response.statusCode === 429)
    key += response.headers['retry-after'] ? ' (Retry-After)' : ' (no Retry-After)';
  answers[key] = (answers[key] ?? 0) + 1;
});

/** Ends `count` new spans of one trace and returns them (fresh ids, so none is a re-send). */
function newSpans(provider: BasicTracerProvider, count: number): ReadableSpan[] {
  const tracer = provider.getTracer('overload-bench');
  const spans: ReadableSpan[] = [];
  const root = tracer.startSpan('request', { attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': 'x'.repeat(200) } });
  for (let index = 1; index < count; index++) {
    const span = tracer.startSpan(`llm ${index}`, {
      attributes: { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o-mini', 'output.value': 'y'.repeat(300) },
    });
    span.end();
    spans.push(span as unknown as ReadableSpan);
  }
  root.end();
  spans.push(root as unknown as ReadableSpan);
  return spans;
}

const exportOnce = (exporter: SpanExporter, spans: ReadableSpan[]) =>
  new Promise<boolean>((resolve) => exporter.export(spans, (result) => resolve(result.code === EXPORT_SUCCESS)));

async function main(): Promise<void> {
  if (!values['skip-build']) buildServer();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sightline-bench-overload-'));
  const port = await freePort();
  const server = await startServerProcess({
    root: ROOT,
    port,
    logFile: path.join(workDir, 'server.log'),
    cpuProfileDir: null,
    startTimeoutMs: 60_000,
    env: {
      SERVICE_HOST: '127.0.0.1',
      SERVICE_PORT: String(port),
      SERVICE_GRPC_PORT: String(await freePort()),
      SERVICE_WORKING_DIR: workDir,
      SERVICE_ENABLE_AUTH: 'false',
      SERVICE_INGEST_MAX_QUEUED_SPANS: String(QUEUE),
      SERVICE_INGEST_QUEUE_WAIT_MS: String(QUEUE_WAIT_MS),
    },
  });
  try {
    const url = `http://127.0.0.1:${port}/v1/traces`;
    const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'openinference.project.name': PROJECT }) });
    let exported = 0;
    let failedExports = 0;
    let stop = false;
    const exporters = Array.from({ length: EXPORTERS }, () => new OTLPTraceExporter({ url, timeoutMillis: 30_000 }));
    log(`${EXPORTERS} exporters × ${SPANS} spans per export for ${SECONDS} s; queue ${QUEUE} spans, wait for room ${QUEUE_WAIT_MS} ms`);
    const started = performance.now();
    const loops = exporters.map(async (exporter) => {
      while (!stop) {
        const spans = newSpans(provider, SPANS);
        if (await exportOnce(exporter, spans)) exported += spans.length;
        else failedExports++;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    stop = true;
    const stopped = performance.now();
    // Recovery: one export alone, repeated until it gets a 200 at once.
    const probe = new OTLPTraceExporter({ url, timeoutMillis: 30_000 });
    await Promise.all(loops);
    const drained = performance.now();
    let recoveredMs: number | null = null;
    for (let attempt = 0; attempt < 600 && recoveredMs === null; attempt++) {
      const before = answers['200'] ?? 0;
      const ok = await exportOnce(probe, newSpans(provider, 1));
      if (ok) exported += 1;
      if (ok && (answers['200'] ?? 0) === before + 1) recoveredMs = performance.now() - drained;
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await Promise.all([...exporters, probe].map((exporter) => exporter.shutdown()));
    const peakRssMb = server.maxRssKb / 1024;
    await server.stop(30_000);
    const database = new SQLite(path.join(workDir, 'sightline.db'), { readonly: true });
    const stored = Number(database.prepare('SELECT count(*) FROM spans').pluck().get());
    database.close();
    const result = {
      benchmark: 'overload',
      at: new Date().toISOString(),
      machine: machine(),
      source: sourceState(),
      options: { exporters: EXPORTERS, seconds: SECONDS, spansPerExport: SPANS, queueSpans: QUEUE, queueWaitMs: QUEUE_WAIT_MS },
      answers,
      exportedSpans: exported,
      failedExports,
      storedSpans: stored,
      spansPerSecond: Math.round(exported / ((stopped - started) / 1000)),
      drainSeconds: round((drained - stopped) / 1000, 2),
      recoveryMs: recoveredMs === null ? null : round(recoveredMs, 1),
      peakRssMb: round(peakRssMb, 0),
    };
    const resultsDir = path.join(ROOT, 'bench/results');
    fs.mkdirSync(resultsDir, { recursive: true });
    const out = path.join(resultsDir, `overload-${result.at.replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
    const unexpected = Object.keys(answers).filter((key) => key !== '200' && key !== '503 (Retry-After)');
    process.stdout.write(
      [
        `answers        ${JSON.stringify(answers)}${unexpected.length ? `  UNEXPECTED: ${unexpected.join(', ')}` : ''}`,
        `exported       ${exported} spans (${result.spansPerSecond} spans/s); exports given up by the SDK after its retries: ${failedExports}`,
        `stored         ${stored} spans: ${stored === exported ? 'every exported span is stored' : stored > exported ? `${stored - exported} more than reported exported (exports given up after the server stored them)` : `${exported - stored} MISSING`}`,
        `after the load the last exports finished in ${result.drainSeconds} s; a lone export got a 200 ${recoveredMs === null ? 'never' : `${result.recoveryMs} ms later`}`,
        `server peak RSS ${result.peakRssMb} MB`,
        `result         ${path.relative(ROOT, out)}`,
        '',
      ].join('\n'),
    );
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
