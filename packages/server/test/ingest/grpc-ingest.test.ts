/** OTLP/gRPC: malformed messages, gzip, project metadata. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { describeEachDialect } from '../helpers/server.js';
import { newTraceId, protobufExport } from '../helpers/otlp-bodies.js';
import { storedSpans } from '../helpers/stored.js';
import { rawExportClient } from '../helpers/otlp-grpc.js';

function exportRaw(address: string, body: Buffer, metadata = new grpc.Metadata(), options: grpc.ClientOptions = {}) {
  const client = rawExportClient('trace', address, options);
  return new Promise<{ error: grpc.ServiceError | null; value?: Buffer }>((resolve) =>
    client.Export(body, metadata, (error, value) => {
      client.close();
      resolve({ error, value });
    }),
  );
}

describeEachDialect('OTLP/gRPC ingest', (server) => {
  const address = () => `127.0.0.1:${server().server.grpcPort}`;

  it('answers INVALID_ARGUMENT with a message for a malformed message', async () => {
    const { error } = await exportRaw(address(), Buffer.from([0x0a, 0xff, 0xff, 0x01]));
    assert.equal(error?.code, grpc.status.INVALID_ARGUMENT);
    assert.match(error?.details ?? '', /malformed OTLP protobuf body/);
  });

  it('answers INVALID_ARGUMENT for ids of the wrong length', async () => {
    const { error } = await exportRaw(address(), protobufExport([{ traceId: 'abcdef' }]));
    assert.equal(error?.code, grpc.status.INVALID_ARGUMENT);
    assert.match(error?.details ?? '', /traceId must be 16 bytes, got 3/);
  });

  it('answers INVALID_ARGUMENT for span times after 2262, and keeps answering', async () => {
    // A time past a BIGINT of nanoseconds once threw outside the call's promise: no answer at all.
    const { error } = await exportRaw(address(), protobufExport([{ end: '9259166755328058625' }]));
    assert.equal(error?.code, grpc.status.INVALID_ARGUMENT, error?.details);
    assert.match(error?.details ?? '', /start and end times must be before 2262-04-12/);
    const traceId = newTraceId();
    assert.equal((await exportRaw(address(), protobufExport([{ traceId }]))).error, null);
    assert.equal((await storedSpans(server().server.database, [traceId])).size, 1);
  });

  it('accepts gzip-compressed messages and the x-project-name metadata', async () => {
    const traceId = newTraceId();
    const metadata = new grpc.Metadata();
    metadata.set('x-project-name', 'grpc-project');
    const { error, value } = await exportRaw(address(), protobufExport([{ traceId }]), metadata, {
      'grpc.default_compression_algorithm': grpc.compressionAlgorithms.gzip,
    });
    assert.equal(error, null);
    assert.equal(value?.length, 0);
    const stored = await storedSpans(server().server.database, [traceId]);
    assert.deepEqual(
      [...stored.values()].map((row) => row.project),
      ['grpc-project'],
    );
  });
});
