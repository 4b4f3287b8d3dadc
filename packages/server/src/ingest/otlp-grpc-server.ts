/** OTLP/gRPC TraceService and LogsService on their own port, sharing the ingest services with OTLP/HTTP. */
import * as grpc from '@grpc/grpc-js';
import { decodeProtobufExport, decodeProtobufLogsExport } from './decode-protobuf.js';
import type { BodyAdmission } from './inflight-bytes.js';
import type { IngestService } from './ingest-service.js';
import type { IngestLogs } from './otlp-http-route.js';
import { OtlpDecodeError } from '../span-model/decoded-spans.js';
import { ExportLogsServiceResponse, ExportTraceServiceResponse } from './otlp-schema.js';
import { DomainError } from '@sightline/common';
import { grpcStatusOf } from './grpc-status.js';

const EMPTY_RESPONSE = Buffer.from(ExportTraceServiceResponse.encode({}).finish());
/** Streams one client connection may have open at once (exporters send one export at a time per connection). */
const MAX_CONCURRENT_STREAMS = 32;

// Messages stay raw bytes here so a malformed one becomes INVALID_ARGUMENT, not a transport error.
const exportService = (path: string): grpc.ServiceDefinition => ({
  Export: {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: (value: Buffer) => value,
    requestDeserialize: (bytes: Buffer) => bytes,
    responseSerialize: (value: Buffer) => value,
    responseDeserialize: (bytes: Buffer) => bytes,
  },
});
const traceService = exportService('/opentelemetry.proto.collector.trace.v1.TraceService/Export');
const logsService = exportService('/opentelemetry.proto.collector.logs.v1.LogsService/Export');

/** One export: decodes the message and stores what it holds; resolves to the response's bytes. */
type ExportCall = (request: Buffer, metadata: grpc.Metadata) => Promise<Buffer>;

export interface GrpcServerHandle {
  port: number;
  close(): Promise<void>;
}

export interface GrpcServerOptions {
  host: string;
  port: number;
  maxMessageBytes: number;
  /** How long close() lets calls in flight finish before cancelling them. */
  drainTimeoutMs: number;
  ingest: IngestService;
  ingestLogs: IngestLogs;
  /** With auth on: checks the `authorization` metadata; throws a DomainError (ForbiddenError) when not allowed. */
  authorize?: (authorization: string | undefined) => Promise<'ok' | 'unauthenticated'>;
  onError?: (error: unknown) => void;
}

/** Starts the gRPC server; resolves with the bound port. */
export async function startOtlpGrpcServer(options: GrpcServerOptions): Promise<GrpcServerHandle> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': options.maxMessageBytes,
    'grpc.max_send_message_length': 1024 * 1024,
    // grpc-js reads a whole message before the handler sees it: bound how many one connection
    // may have on the way at once (docs/ingest.md, "Overload").
    'grpc.max_concurrent_streams': MAX_CONCURRENT_STREAMS,
  });
  const unary =
    (exportCall: ExportCall): grpc.handleUnaryCall<Buffer, Buffer> =>
    (call, reply) => {
      // The message's bytes count against the in-flight budget until the call is answered.
      let admission: BodyAdmission;
      try {
        admission = options.ingest.admit(call.request.length);
      } catch (error) {
        if (error instanceof DomainError) return reply({ code: grpcStatusOf(error), details: error.message }, null);
        throw error;
      }
      const callback: grpc.sendUnaryData<Buffer> = (error, value) => {
        admission.release();
        reply(error, value);
      };
      const fail = (code: grpc.status, details: string) => callback({ code, details }, null);
      const run = () => {
        let answered: Promise<Buffer>;
        try {
          answered = exportCall(call.request, call.metadata);
        } catch (error) {
          // Every call is answered, so its bytes leave the in-flight budget (this runs inside a .then when auth is on).
          answered = Promise.reject(error);
        }
        answered.then(
          (response) => callback(null, response),
          (error: unknown) => {
            if (error instanceof OtlpDecodeError) return fail(grpc.status.INVALID_ARGUMENT, error.message);
            if (error instanceof DomainError) return fail(grpcStatusOf(error), error.message);
            options.onError?.(error);
            fail(grpc.status.INTERNAL, 'internal error');
          },
        );
      };
      if (options.authorize) {
        const header = call.metadata.get('authorization')[0];
        options.authorize(typeof header === 'string' ? header : undefined).then(
          (verdict) => (verdict === 'ok' ? run() : fail(grpc.status.UNAUTHENTICATED, 'a valid API key is required')),
          (error: unknown) => {
            if (error instanceof DomainError) return fail(grpcStatusOf(error), error.message);
            options.onError?.(error);
            fail(grpc.status.UNAVAILABLE, 'could not check the credential; retry later');
          },
        );
        return;
      }
      run();
    };
  const exportSpans: ExportCall = async (request, metadata) => {
    const header = metadata.get('x-project-name')[0];
    await options.ingest.ingest(decodeProtobufExport(request), typeof header === 'string' ? header : undefined);
    return EMPTY_RESPONSE;
  };
  const exportLogs: ExportCall = async (request) => {
    const result = await options.ingestLogs(decodeProtobufLogsExport(request));
    if (result.rejected === 0) return EMPTY_RESPONSE;
    const partialSuccess = { rejectedLogRecords: result.rejected, errorMessage: result.message };
    return Buffer.from(ExportLogsServiceResponse.encode({ partialSuccess }).finish());
  };
  server.addService(traceService, { Export: unary(exportSpans) });
  server.addService(logsService, { Export: unary(exportLogs) });
  const address = options.host.includes(':') ? `[${options.host}]:${options.port}` : `${options.host}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, boundPort) => (error ? reject(error) : resolve(boundPort))),
  );
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.forceShutdown(), options.drainTimeoutMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
