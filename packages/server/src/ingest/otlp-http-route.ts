/** `POST /v1/traces`: OTLP/HTTP with protobuf or JSON bodies, optionally gzip or deflate compressed. */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { InvalidInputError, TooLargeError, UnsupportedError } from '@sightline/common';
import { decodeJsonExport } from './decode-json.js';
import { decodeProtobufExport } from './decode-protobuf.js';
import type { IngestService } from './ingest-service.js';
import { OtlpDecodeError, type DecodedResourceSpans } from './otlp-model.js';
import { ExportTraceServiceResponse } from './otlp-schema.js';

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const PROTOBUF_TYPES = ['application/x-protobuf', 'application/protobuf'];
const EMPTY_PROTOBUF_RESPONSE = Buffer.from(ExportTraceServiceResponse.encode({}).finish());

/** Registers the OTLP/HTTP trace route in its own scope, with its own body parsers. */
export async function otlpHttpRoutes(app: FastifyInstance, options: { ingest: IngestService; maxBodyBytes: number }) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    [...PROTOBUF_TYPES, 'application/json'],
    { parseAs: 'buffer', bodyLimit: options.maxBodyBytes },
    (_request, body, done) => done(null, body),
  );
  app.addContentTypeParser('*', (request, _payload, done) =>
    done(
      new UnsupportedError(
        `unsupported content type "${request.headers['content-type'] ?? ''}": OTLP/HTTP accepts application/x-protobuf or application/json`,
      ),
      undefined,
    ),
  );

  app.post(
    '/v1/traces',
    {
      bodyLimit: options.maxBodyBytes,
      schema: {
        summary: 'Receive spans (OTLP/HTTP)',
        description:
          'OpenTelemetry OTLP/HTTP trace export. Body: ExportTraceServiceRequest as application/x-protobuf or application/json, ' +
          'optionally with Content-Encoding gzip or deflate. Answers 200 with an ExportTraceServiceResponse in the same encoding ' +
          'once the spans are durably stored; 503 with Retry-After when the write queue is full. ' +
          'Header x-project-name overrides the project.',
        tags: ['traces'],
        operationId: 'addTraces',
      },
    },
    async (request, reply) => {
      const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      const isJson = contentType === 'application/json';
      const raw = await decompress(request.body as Buffer, request.headers['content-encoding'], options.maxBodyBytes);
      let resources: DecodedResourceSpans[];
      try {
        resources = isJson ? decodeJsonExport(raw.toString('utf8')) : decodeProtobufExport(raw);
      } catch (error) {
        if (error instanceof OtlpDecodeError) throw new InvalidInputError(error.message, true);
        throw error;
      }
      const header = request.headers['x-project-name'];
      // A full queue or unavailable storage throws UnavailableError: 503 with Retry-After (docs/ingest.md).
      await options.ingest.ingest(resources, Array.isArray(header) ? header[0] : header);
      if (isJson) return reply.type('application/json').send('{}');
      return reply.type('application/x-protobuf').send(EMPTY_PROTOBUF_RESPONSE);
    },
  );
}

async function decompress(body: Buffer, encodingHeader: string | undefined, limit: number): Promise<Buffer> {
  const encoding = (encodingHeader ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return body;
  const inflater = encoding === 'gzip' || encoding === 'x-gzip' ? gunzip : encoding === 'deflate' ? inflate : null;
  if (inflater === null) throw new UnsupportedError(`unsupported Content-Encoding "${encoding}": use gzip, deflate or none`);
  try {
    return await inflater(body, { maxOutputLength: limit });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new TooLargeError(`decompressed body is larger than the limit of ${limit} bytes`);
    }
    throw new InvalidInputError(`body is not valid ${encoding} data: ${(error as Error).message}`, true);
  }
}
