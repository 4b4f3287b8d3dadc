/** `POST /v1/traces` and `POST /v1/logs`: OTLP/HTTP with protobuf or JSON bodies, optionally gzip or deflate compressed. */
import { Transform } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InvalidInputError, TooLargeError, UnsupportedError } from '@sightline/common';
import { decodeJsonExport, decodeJsonLogsExport } from './decode-json.js';
import { decodeProtobufExport, decodeProtobufLogsExport } from './decode-protobuf.js';
import type { BodyAdmission } from './inflight-bytes.js';
import type { IngestService } from './ingest-service.js';
import { OtlpDecodeError } from '../span-model/decoded-spans.js';
import { ExportLogsServiceResponse, ExportTraceServiceResponse } from './otlp-schema.js';
import type { DecodedResourceLogs } from '../span-model/log-records.js';
import type { LogsIngestResult } from '../spans/span-log-events-service.js';

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const PROTOBUF_TYPES = ['application/x-protobuf', 'application/protobuf'];
const EMPTY_PROTOBUF_RESPONSE = Buffer.from(ExportTraceServiceResponse.encode({}).finish());

/** Where an export of log records goes (spans/span-log-events-service.ts). */
export type IngestLogs = (resources: DecodedResourceLogs[]) => Promise<LogsIngestResult>;

/** Registers the OTLP/HTTP trace and log routes in their own scope, with their own body parsers. */
export async function otlpHttpRoutes(
  app: FastifyInstance,
  options: { ingest: IngestService; ingestLogs: IngestLogs; maxBodyBytes: number },
) {
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

  // Each request's share of the in-flight byte budget, taken before its body is read and given
  // back once it is answered (docs/ingest.md, "Overload").
  const admissions = new WeakMap<FastifyRequest, BodyAdmission>();
  app.addHook('onRequest', async (request, reply) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    // An oversized body is refused with 413 by the body parser, unread: it needs no budget.
    const admission = await options.ingest.admitWhenRoom(declared <= options.maxBodyBytes ? declared : 0);
    admissions.set(request, admission);
    reply.raw.once('close', admission.release);
  });
  app.addHook('preParsing', async (request, _reply, payload) => {
    const admission = admissions.get(request);
    if (admission === undefined || request.headers['content-length'] !== undefined) return payload;
    // A body without Content-Length (chunked) is counted as it arrives.
    return payload.pipe(
      new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          try {
            admission.grow(chunk.length);
            callback(null, chunk);
          } catch (error) {
            callback(error as Error);
          }
        },
      }),
    );
  });

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
      const isJson = isJsonBody(request);
      const header = request.headers['x-project-name'];
      // A full queue or unavailable storage throws UnavailableError: 503 with Retry-After (docs/ingest.md).
      // The body and its decoded spans are only ever temporaries here, never variables of this
      // handler: a variable would stay alive until the commit answers, long enough to be promoted
      // to V8's old generation, which is what made the server's memory grow with load.
      await options.ingest.ingest(
        await decodeBody(request, admissions, options.maxBodyBytes, (raw) =>
          isJson ? decodeJsonExport(raw.toString('utf8')) : decodeProtobufExport(raw),
        ),
        Array.isArray(header) ? header[0] : header,
      );
      if (isJson) return reply.type('application/json').send('{}');
      return reply.type('application/x-protobuf').send(EMPTY_PROTOBUF_RESPONSE);
    },
  );

  app.post(
    '/v1/logs',
    {
      bodyLimit: options.maxBodyBytes,
      schema: {
        summary: 'Receive log records (OTLP/HTTP)',
        description:
          'OpenTelemetry OTLP/HTTP log export. Body: ExportLogsServiceRequest as application/x-protobuf or application/json, ' +
          'optionally with Content-Encoding gzip or deflate. A record that names a span (trace and span id) becomes an event of ' +
          'that span, whether the span arrives before or after it; GenAI event records (gen_ai.user.message, gen_ai.choice, …) ' +
          'also give the span its messages. Records that name no span are refused and counted in partial_success. Answers 200 ' +
          'once the records are durably stored (docs/ingest.md, "Logs").',
        tags: ['traces'],
        operationId: 'addLogs',
      },
    },
    async (request, reply) => {
      const isJson = isJsonBody(request);
      const result = await options.ingestLogs(
        await decodeBody(request, admissions, options.maxBodyBytes, (raw) =>
          isJson ? decodeJsonLogsExport(raw.toString('utf8')) : decodeProtobufLogsExport(raw),
        ),
      );
      const partialSuccess = result.rejected > 0 ? { rejectedLogRecords: result.rejected, errorMessage: result.message } : undefined;
      if (isJson) {
        const body = partialSuccess
          ? { partialSuccess: { rejectedLogRecords: String(result.rejected), errorMessage: result.message } }
          : {};
        return reply.type('application/json').send(JSON.stringify(body));
      }
      return reply
        .type('application/x-protobuf')
        .send(partialSuccess ? Buffer.from(ExportLogsServiceResponse.encode({ partialSuccess }).finish()) : EMPTY_PROTOBUF_RESPONSE);
    },
  );
}

/** True when the body is OTLP/JSON (else protobuf: the parsers took no other type). */
function isJsonBody(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** The request's body, decompressed and decoded by `decode`; 400 when it is not an export. */
async function decodeBody<T>(
  request: FastifyRequest,
  admissions: WeakMap<FastifyRequest, BodyAdmission>,
  maxBodyBytes: number,
  decode: (raw: Buffer) => T,
): Promise<T> {
  const body = request.body as Buffer;
  request.body = undefined;
  const raw = await decompress(body, request.headers['content-encoding'], maxBodyBytes);
  if (raw !== body) admissions.get(request)?.grow(raw.length);
  try {
    return decode(raw);
  } catch (error) {
    if (error instanceof OtlpDecodeError) throw new InvalidInputError(error.message, true);
    throw error;
  }
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
