/**
 * register(): one call that sets up OpenTelemetry tracing for a Node.js application and exports
 * its spans to a Sightline server over OTLP/HTTP (protobuf). Reads SERVICE_COLLECTOR_ENDPOINT,
 * SERVICE_API_KEY and SERVICE_PROJECT_NAME when the options leave them out.
 */
import { SEMRESATTRS_PROJECT_NAME } from '@arizeai/openinference-semantic-conventions';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { DEFAULT_ENDPOINT, tracesUrl } from './endpoint.js';

export { tracesUrl } from './endpoint.js';
export { trace, context, SpanStatusCode, SpanKind } from '@opentelemetry/api';

export interface RegisterOptions {
  /** Project the spans belong to; default SERVICE_PROJECT_NAME, else "default". */
  projectName?: string;
  /** Server base URL or full traces URL; default SERVICE_COLLECTOR_ENDPOINT, else http://127.0.0.1:6006. */
  endpoint?: string;
  /** API key sent as `authorization: Bearer <key>`; default SERVICE_API_KEY. */
  apiKey?: string;
  /** Extra headers for every export (an explicit `authorization` wins over apiKey). */
  headers?: Record<string, string>;
  /** Batch spans (default, for production) or send each span as it ends (tests, scripts). */
  batch?: boolean;
  /** Install as the global tracer provider with context propagation (default true). */
  global?: boolean;
  /** Replace the default exporting processor entirely. */
  spanProcessors?: SpanProcessor[];
  /** Environment to read defaults from (default process.env). */
  env?: Record<string, string | undefined>;
}

/** The resolved export settings, exposed for diagnostics and tests. */
export interface ExportSettings {
  url: string;
  projectName: string;
  headers: Record<string, string>;
}

/** Works out URL, project and headers from the options and the environment. */
export function exportSettings(options: RegisterOptions = {}): ExportSettings {
  const env = options.env ?? process.env;
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.headers ?? {})) headers[key.toLowerCase()] = value;
  const apiKey = options.apiKey ?? env.SERVICE_API_KEY;
  if (apiKey && headers.authorization === undefined) headers.authorization = `Bearer ${apiKey}`;
  return {
    url: tracesUrl(options.endpoint ?? env.SERVICE_COLLECTOR_ENDPOINT ?? DEFAULT_ENDPOINT),
    projectName: options.projectName ?? env.SERVICE_PROJECT_NAME ?? 'default',
    headers,
  };
}

/** Sets up tracing; call `shutdown()` (or `forceFlush()`) on the result before the process exits. */
export function register(options: RegisterOptions = {}): NodeTracerProvider {
  const settings = exportSettings(options);
  const exporter = new OTLPTraceExporter({ url: settings.url, headers: settings.headers });
  const processor = options.batch === false ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [SEMRESATTRS_PROJECT_NAME]: settings.projectName }),
    spanProcessors: options.spanProcessors ?? [processor],
  });
  if (options.global !== false) provider.register();
  return provider;
}
