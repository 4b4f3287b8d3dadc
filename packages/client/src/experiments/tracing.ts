/**
 * Task tracing: each task run is one CHAIN span `Task: <name>` in the experiment's project, as
 * phoenix-client records it, exported by register() from @sightline/otel on a provider of its
 * own (never the global one, so the caller's tracing set-up is left alone).
 */
import { OpenInferenceSpanKind, SemanticConventions } from '@arizeai/openinference-semantic-conventions';
import { SpanStatusCode, register } from '@sightline/otel';
import type { RunnerExample, TaskOutput } from './types.js';

type Provider = ReturnType<typeof register>;
type Tracer = ReturnType<Provider['getTracer']>;

export interface TaskTracing {
  tracer: Tracer | null;
  /** Exports what is buffered and stops the provider. */
  close(): Promise<void>;
}

export interface TracingSettings {
  enabled: boolean;
  projectName: string | null;
  baseUrl: string;
  headers: Readonly<Record<string, string>>;
  env?: Record<string, string | undefined> | undefined;
}

/** A tracer exporting to the experiment's project, or none when tracing is off or the experiment has no project. */
export function startTaskTracing(settings: TracingSettings): TaskTracing {
  if (!settings.enabled || settings.projectName === null) return { tracer: null, close: async () => {} };
  const provider = register({
    projectName: settings.projectName,
    endpoint: settings.baseUrl,
    headers: { ...settings.headers },
    global: false,
    batch: true,
    env: settings.env ?? process.env,
  });
  return {
    tracer: provider.getTracer('@sightline/client runner'),
    close: async () => {
      await provider.forceFlush();
      await provider.shutdown();
    },
  };
}

/** What one task run produced. */
export interface TaskOutcome {
  output: TaskOutput;
  error: string | null;
  traceId: string | null;
  startTime: string;
  endTime: string;
}

const mimeOf = (value: unknown) => (typeof value === 'string' ? 'text/plain' : 'application/json');
const asText = (value: unknown): string => {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return String(value);
  }
};

/** The message a thrown value is recorded with. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === 'string' ? error : asText(error) || 'Unknown error';
}

/** Runs the task once, in a span when there is a tracer; a throw becomes the outcome's error. */
export async function runTraced(
  tracer: Tracer | null,
  taskName: string,
  example: RunnerExample,
  execute: () => TaskOutput | Promise<TaskOutput>,
): Promise<TaskOutcome> {
  const attempt = async (traceId: string | null): Promise<TaskOutcome & { thrown: unknown }> => {
    const startTime = new Date().toISOString();
    let output: TaskOutput = null;
    let error: string | null = null;
    let thrown: unknown;
    try {
      output = (await execute()) ?? null;
    } catch (caught) {
      thrown = caught;
      error = errorMessage(caught);
    }
    return { output, error, traceId, startTime, endTime: new Date().toISOString(), thrown };
  };
  if (!tracer) {
    const { thrown: _thrown, ...outcome } = await attempt(null);
    return outcome;
  }
  return tracer.startActiveSpan(`Task: ${taskName}`, async (span) => {
    const { thrown, ...outcome } = await attempt(span.spanContext().traceId);
    span.setAttributes({
      [SemanticConventions.OPENINFERENCE_SPAN_KIND]: OpenInferenceSpanKind.CHAIN,
      [SemanticConventions.INPUT_VALUE]: asText(example.input),
      [SemanticConventions.INPUT_MIME_TYPE]: mimeOf(example.input),
      [SemanticConventions.OUTPUT_VALUE]: asText(outcome.output),
      [SemanticConventions.OUTPUT_MIME_TYPE]: mimeOf(outcome.output),
    });
    if (outcome.error !== null) {
      if (thrown instanceof Error) span.recordException(thrown);
      span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
    } else {
      span.setStatus({ code: SpanStatusCode.OK });
    }
    span.end();
    return outcome;
  });
}
