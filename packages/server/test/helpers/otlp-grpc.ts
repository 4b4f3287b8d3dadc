/** Raw OTLP/gRPC export clients: messages sent and answered as bytes, so tests control every byte. */
import * as grpc from '@grpc/grpc-js';

/** A client of one OTLP export service, with bytes in and out. */
export type RawExportClient = grpc.Client & {
  Export: (body: Buffer, metadata: grpc.Metadata, callback: (error: grpc.ServiceError | null, value?: Buffer) => void) => void;
};

const SERVICES = {
  trace: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
  logs: '/opentelemetry.proto.collector.logs.v1.LogsService/Export',
} as const;

const constructors = Object.fromEntries(
  Object.entries(SERVICES).map(([service, path]) => [
    service,
    grpc.makeGenericClientConstructor(
      {
        Export: {
          path,
          requestStream: false,
          responseStream: false,
          requestSerialize: (value: Buffer) => value,
          requestDeserialize: (value: Buffer) => value,
          responseSerialize: (value: Buffer) => value,
          responseDeserialize: (value: Buffer) => value,
        },
      },
      service,
    ),
  ]),
) as Record<keyof typeof SERVICES, grpc.ServiceClientConstructor>;

/** A client of the TraceService or LogsService at `address` (host:port), on its own channel. */
export function rawExportClient(service: keyof typeof SERVICES, address: string, options: grpc.ClientOptions = {}): RawExportClient {
  return new constructors[service](address, grpc.credentials.createInsecure(), options) as unknown as RawExportClient;
}
