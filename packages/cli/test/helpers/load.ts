/**
 * Sustained load for the process tests: N workers each sending one request at a time (OTLP/HTTP
 * protobuf, OTLP/gRPC, or monitor /v1/log), every request with fresh ids, so that after a crash
 * or a drain the test knows exactly which ids were acknowledged, refused or lost in transit.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { ExportTraceServiceRequest } from '@sightline/server';

/** How one request ended: `ok` (200 / OK), `refused` (503 / RESOURCE_EXHAUSTED / UNAVAILABLE answered by the server), or `error`. */
export interface Outcome {
  kind: 'ok' | 'refused' | 'error';
  /** e.g. `http 200`, `http 503`, `grpc RESOURCE_EXHAUSTED`, `ECONNRESET (reused socket)`. */
  detail: string;
}

/** The ids of every request by how it ended, and a count per detail. */
export interface Tally {
  acked: string[];
  refused: string[];
  errored: string[];
  details: Map<string, number>;
}

/** A request the load sends: the ids it carries and how to send it. */
export interface LoadRequest {
  ids: string[];
  send(): Promise<Outcome>;
}

export interface Load {
  tally: Tally;
  /** Stops starting requests and waits for the ones in flight to end. */
  stop(): Promise<Tally>;
}

/** Starts `workers` loops, each sending what `next(worker)` builds, one request at a time. */
export function startLoad(workers: number, next: (worker: number) => LoadRequest, stopAfterMs = 30_000): Load {
  const tally: Tally = { acked: [], refused: [], errored: [], details: new Map() };
  let stopped = false;
  const deadline = Date.now() + stopAfterMs;
  const loop = async (worker: number) => {
    while (!stopped && Date.now() < deadline) {
      const request = next(worker);
      const outcome = await request.send();
      tally.details.set(outcome.detail, (tally.details.get(outcome.detail) ?? 0) + 1);
      (outcome.kind === 'ok' ? tally.acked : outcome.kind === 'refused' ? tally.refused : tally.errored).push(...request.ids);
      // A refused or failed request backs off a little, as exporters do, instead of spinning.
      if (outcome.kind !== 'ok') await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const loops = Array.from({ length: workers }, (_, worker) => loop(worker));
  return {
    tally,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      return tally;
    },
  };
}

/**
 * Waits until every load has `count` acknowledged ids (at most `capMs`), then `thenMs` more, so a
 * slow machine still has traffic acknowledged and in flight when the test strikes.
 */
export async function runLoadFor(loads: Load[], count: number, thenMs: number, capMs = 20_000): Promise<void> {
  const deadline = Date.now() + capMs;
  while (loads.some((load) => load.tally.acked.length < count) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await new Promise((resolve) => setTimeout(resolve, thenMs));
}

/** An OTLP protobuf export of `spans` spans of one new trace; `padding` bytes of attribute text per span. */
export function spanExport(spans: number, padding = 0): { ids: string[]; body: Buffer } {
  const traceId = randomBytes(16);
  const ids: string[] = [];
  const message = ExportTraceServiceRequest.fromObject({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'process-test' } }] },
        scopeSpans: [
          {
            spans: Array.from({ length: spans }, (_, i) => {
              const spanId = randomBytes(8);
              ids.push(spanId.toString('hex'));
              return {
                traceId,
                spanId,
                name: `span ${i}`,
                kind: 1,
                startTimeUnixNano: '1763769600000000001',
                endTimeUnixNano: '1763769600500000001',
                attributes: padding > 0 ? [{ key: 'input.value', value: { stringValue: 'x'.repeat(padding) } }] : [],
              };
            }),
          },
        ],
      },
    ],
  });
  return { ids, body: Buffer.from(ExportTraceServiceRequest.encode(message).finish()) };
}

/** An OTLP/HTTP protobuf request over a keep-alive agent. */
export function httpExport(agent: http.Agent, url: string, spans: number, padding = 0): LoadRequest {
  const { ids, body } = spanExport(spans, padding);
  return { ids, send: () => post(agent, `${url}/v1/traces`, 'application/x-protobuf', body) };
}

/** A /v1/log body: one prediction record with the given id. */
export function logBody(spaceKey: string, predictionId: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      space_key: spaceKey,
      model_id: 'process-model',
      prediction_id: predictionId,
      prediction: {
        timestamp: new Date(Date.now() - 60_000).toISOString(),
        model_version: 'v1',
        label: { score_categorical: { score_category: { category: 'fraud', score: 0.5 } } },
        features: { amount: { double: 12.5 } },
      },
      environment_params: { production: {} },
    }),
  );
}

/** A monitor /v1/log request with one record of a new prediction id. */
export function logRecord(agent: http.Agent, url: string, apiKey: string, spaceKey: string): LoadRequest {
  const predictionId = randomUUID();
  const body = logBody(spaceKey, predictionId);
  return { ids: [predictionId], send: () => post(agent, `${url}/v1/log`, 'application/json', body, { authorization: apiKey }) };
}

function post(agent: http.Agent, url: string, contentType: string, body: Buffer, headers: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const request = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': contentType, 'content-length': body.length, ...headers } },
      (response) => {
        response.resume();
        response.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ kind: 'error', detail: `response ${error.code ?? error.message}` }),
        );
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          // A 503 without Retry-After is recorded apart, so tests can refuse it.
          const retry = status === 503 && response.headers['retry-after'] === undefined ? ' without Retry-After' : '';
          resolve({ kind: status === 200 ? 'ok' : status === 503 ? 'refused' : 'error', detail: `http ${status}${retry}` });
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ kind: 'error', detail: `${error.code ?? error.message}${request.reusedSocket ? ' (reused socket)' : ''}` }),
    );
    request.end(body);
  });
}

const TraceServiceClient = grpc.makeGenericClientConstructor(
  {
    Export: {
      path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
      requestStream: false,
      responseStream: false,
      requestSerialize: (value: Buffer) => value,
      requestDeserialize: (value: Buffer) => value,
      responseSerialize: (value: Buffer) => value,
      responseDeserialize: (value: Buffer) => value,
    },
  },
  'TraceService',
);

/** A gRPC TraceService client on its own channel. */
export type TraceClient = grpc.Client & {
  Export(
    body: Buffer,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: (error: grpc.ServiceError | null, value?: Buffer) => void,
  ): void;
};

/** A client of the OTLP/gRPC port. */
export function traceClient(port: number): TraceClient {
  return new TraceServiceClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as TraceClient;
}

/** An OTLP/gRPC export on the client's channel. */
export function grpcExport(client: TraceClient, spans: number, padding = 0): LoadRequest {
  const { ids, body } = spanExport(spans, padding);
  return {
    ids,
    send: () =>
      new Promise((resolve) =>
        client.Export(body, new grpc.Metadata(), { deadline: Date.now() + 20_000 }, (error) => {
          if (error === null) return resolve({ kind: 'ok', detail: 'grpc OK' });
          const name = grpc.status[error.code] ?? String(error.code);
          const refused = error.code === grpc.status.RESOURCE_EXHAUSTED || error.code === grpc.status.UNAVAILABLE;
          resolve({ kind: refused ? 'refused' : 'error', detail: `grpc ${name}` });
        }),
      ),
  };
}
