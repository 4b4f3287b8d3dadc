/**
 * Fuzz of trace ingest (docs/security.md, "Fuzzing"): real OTLP bodies, encoded by the
 * OpenTelemetry SDK's own serializers, mutated at the byte, protobuf-wire and JSON levels (bit
 * flips, truncation, corrupt length prefixes, huge and overlong varints, deep nesting), sent over
 * OTLP/HTTP and OTLP/gRPC with real and forged credentials. Each loop stops by itself after a
 * count or FUZZ_SECONDS. Rules: no 5xx, no gRPC INTERNAL/UNKNOWN/UNAVAILABLE, no answer but 401
 * to a forged credential, the process stays up and a valid export afterwards is stored.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import http2 from 'node:http2';
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { after, before, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { describeEachDialect } from '../helpers/server.js';
import { AUTH_ENV, createSystemKey, sessionOf, setupDefaultAdmin } from '../helpers/auth.js';
import { exportSampleTrace } from '../helpers/otel.js';
import { newTraceId, protobufExport } from '../helpers/otlp-bodies.js';
import { storedSpans } from '../helpers/stored.js';
import {
  assertNoFailures,
  damageJsonText,
  deepProtobufExport,
  describeSummary,
  fuzzLoop,
  mutateBytes,
  mutateJson,
  mutateProtobuf,
  preview,
  rawRequest,
  type Rng,
} from '../helpers/fuzz.js';

const FILE = 'packages/server/test/fuzz/otlp-fuzz.test.ts';
const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

/** Header values a client can send (no control characters) that a server must survive. */
const ODD_PROJECTS = ['', ' ', 'x'.repeat(4000), '__proto__', "'; DROP TABLE projects; --", '%00', 'caf\u00e9', 'a/b/../c', '<b>'];

type Credential = { header: string | undefined; forged: boolean };

/** A real key, or one of the ways a credential is forged or mangled. */
function credential(rng: Rng, key: string): Credential {
  if (!rng.chance(0.12)) return { header: `Bearer ${key}`, forged: false };
  const tampered = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
  const jwtNone = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"1","typ":"access","jti":"x","sid":"x"}').toString('base64url')}.`;
  const header = rng.pick([
    `Bearer ${tampered}`,
    `Bearer ${key.slice(0, 12)}`,
    `Bearer sk-sl-${randomBytes(24).toString('base64url')}`,
    `Bearer ${jwtNone}`,
    `Bearer ${key} extra`,
    `Basic ${Buffer.from(`admin:${key}`).toString('base64')}`,
    `bearer  ${'A'.repeat(8000)}`,
    key,
    'Bearer',
    '',
  ]);
  return { header, forged: true };
}

describeEachDialect(
  'fuzz: OTLP ingest',
  (server) => {
    let key: string;
    let protoBodies: Buffer[];
    let jsonBodies: Record<string, unknown>[];
    let agent: http.Agent;

    before(async () => {
      const admin = await setupDefaultAdmin(server().url);
      key = (await createSystemKey(sessionOf(server().url, admin))).key;
      const { spans } = await exportSampleTrace(new InMemorySpanExporter(), { 'service.name': 'fuzz' }, 'fuzz');
      protoBodies = [Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!), protobufExport([{ name: 'plain' }, { name: 'two' }])];
      jsonBodies = [JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(spans)!).toString())];
      agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    });
    after(() => agent.destroy());

    /** Sends one OTLP/HTTP case and judges the answer. */
    const sendHttp = async (body: Buffer, contentType: string, encoding: string | undefined, auth: Credential, project?: string) => {
      const headers: Record<string, string> = { 'content-type': contentType };
      if (auth.header !== undefined) headers.authorization = auth.header;
      if (encoding !== undefined) headers['content-encoding'] = encoding;
      if (project !== undefined) headers['x-project-name'] = project;
      const answer = await rawRequest(new URL(server().url), agent, 'POST', '/v1/traces', headers, body);
      const what = `${answer.status} ${preview(answer.body, 200)} for ${contentType} ${encoding ?? ''} auth=${preview(auth.header, 40)} body ${preview(body)}`;
      if (auth.forged && answer.status < 300) return { outcome: 'forgery accepted', failure: `forged credential accepted: ${what}` };
      if (![200, 400, 401, 413, 415].includes(answer.status)) return { outcome: String(answer.status), failure: what };
      if (answer.status === 401 && !auth.forged) return { outcome: '401', failure: `real key refused: ${what}` };
      if (answer.status !== 200 && !contentType.includes('protobuf') && typeof JSON.parse(answer.body).detail !== 'string') {
        return { outcome: String(answer.status), failure: `no detail: ${what}` };
      }
      return { outcome: String(answer.status), note: what };
    };

    /** Content type, compression and credential games shared by both body formats. */
    const framing = (rng: Rng, body: Buffer, contentType: string) => {
      let encoding: string | undefined;
      if (rng.chance(0.1)) {
        encoding = rng.pick(['gzip', 'deflate']);
        body = encoding === 'gzip' ? zlib.gzipSync(body) : zlib.deflateSync(body);
        if (rng.chance(0.3)) body = mutateBytes(rng, body);
      } else if (rng.chance(0.03)) {
        encoding = rng.pick(['br', 'gzip, deflate', 'identity', 'x-gzip', 'GZIP']);
      }
      if (rng.chance(0.04))
        contentType = rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'application/grpc', 'multipart/form-data']);
      return { body, contentType, encoding, auth: credential(rng, key), project: rng.chance(0.1) ? rng.pick(ODD_PROJECTS) : undefined };
    };

    it('OTLP/HTTP protobuf: mutated, truncated, corrupt and deeply nested bodies', { timeout: 60_000 }, async (context) => {
      const summary = await fuzzLoop({
        name: 'otlp-http-protobuf',
        maxCases: 5000,
        generate: (rng) => {
          let body: Buffer;
          const roll = rng.next();
          if (roll < 0.08) body = deepProtobufExport(rng.pick([60, 101, 1000, 20_000]), rng.pick(['array', 'kvlist'] as const));
          else if (roll < 0.1) body = rng.bytes(rng.int(256));
          else if (roll < 0.2) body = rng.pick(protoBodies);
          else {
            body = rng.pick(protoBodies);
            const rounds = 1 + rng.int(3);
            for (let i = 0; i < rounds; i++) body = rng.chance(0.6) ? mutateProtobuf(rng, body) : mutateBytes(rng, body);
          }
          return framing(rng, body, 'application/x-protobuf');
        },
        run: (c) => sendHttp(c.body, c.contentType, c.encoding, c.auth, c.project),
      });
      context.diagnostic(describeSummary(summary));
      assertNoFailures(summary, FILE);
      assert.ok((summary.outcomes['200'] ?? 0) > 0 && (summary.outcomes['400'] ?? 0) > 0, describeSummary(summary));
    });

    it('OTLP/HTTP JSON: mutated trees, damaged text, numbers and nesting JSON cannot hold', { timeout: 60_000 }, async (context) => {
      const summary = await fuzzLoop({
        name: 'otlp-http-json',
        maxCases: 5000,
        generate: (rng) => {
          const tree = structuredClone(rng.pick(jsonBodies));
          const rounds = rng.chance(0.15) ? 0 : 1 + rng.int(3);
          for (let i = 0; i < rounds; i++) mutateJson(rng, tree);
          let text = JSON.stringify(tree);
          if (rng.chance(0.05)) {
            let value = '{"stringValue":"bottom"}';
            for (let depth = rng.pick([99, 100, 101, 5000]); depth > 0; depth--) value = `{"arrayValue":{"values":[${value}]}}`;
            text = text.replace(/\{"stringValue":"[^"]*"\}/, value);
          }
          const body = rng.chance(0.15) ? damageJsonText(rng, text) : Buffer.from(text);
          return framing(rng, body, rng.chance(0.9) ? 'application/json' : 'application/json; charset=utf-8');
        },
        run: (c) => sendHttp(c.body, c.contentType, c.encoding, c.auth, c.project),
      });
      context.diagnostic(describeSummary(summary));
      assertNoFailures(summary, FILE);
      assert.ok((summary.outcomes['200'] ?? 0) > 0 && (summary.outcomes['400'] ?? 0) > 0, describeSummary(summary));
    });

    it('OTLP/gRPC: mutated messages with real and forged metadata', { timeout: 60_000 }, async (context) => {
      const client = new grpc.Client(`127.0.0.1:${server().server.grpcPort}`, grpc.credentials.createInsecure());
      const call = (body: Buffer, metadata: grpc.Metadata) =>
        new Promise<grpc.ServiceError | null>((resolve) =>
          client.makeUnaryRequest(
            EXPORT_PATH,
            (value: Buffer) => value,
            (value: Buffer) => value,
            body,
            metadata,
            { deadline: Date.now() + 20_000 },
            (error) => resolve(error),
          ),
        );
      try {
        const summary = await fuzzLoop({
          name: 'otlp-grpc',
          maxCases: 5000,
          generate: (rng) => {
            let body = rng.pick(protoBodies);
            if (rng.chance(0.06)) body = deepProtobufExport(rng.pick([60, 101, 1000, 20_000]), rng.pick(['array', 'kvlist'] as const));
            else if (rng.chance(0.85))
              for (let i = 1 + rng.int(3); i > 0; i--) body = rng.chance(0.6) ? mutateProtobuf(rng, body) : mutateBytes(rng, body);
            return { body, auth: credential(rng, key), project: rng.chance(0.1) ? rng.pick(ODD_PROJECTS) : undefined };
          },
          run: async ({ body, auth, project }) => {
            const metadata = new grpc.Metadata();
            if (auth.header !== undefined && auth.header !== '') metadata.set('authorization', auth.header);
            // gRPC metadata values are printable ASCII (grpc-js refuses to send anything else).
            if (project !== undefined && project !== '') metadata.set('x-project-name', project.replace(/[^ -~]/g, '?'));
            const error = await call(body, metadata);
            const code = error?.code ?? grpc.status.OK;
            const what = `${grpc.status[code]} ${error?.details ?? ''} auth=${preview(auth.header, 40)} body ${preview(body)}`;
            if (auth.forged && code === grpc.status.OK)
              return { outcome: 'forgery accepted', failure: `forged credential accepted: ${what}` };
            const allowed = [grpc.status.OK, grpc.status.INVALID_ARGUMENT, grpc.status.RESOURCE_EXHAUSTED, grpc.status.UNAUTHENTICATED];
            if (!allowed.includes(code)) return { outcome: grpc.status[code]!, failure: what };
            if (code === grpc.status.UNAUTHENTICATED && !auth.forged)
              return { outcome: 'UNAUTHENTICATED', failure: `real key refused: ${what}` };
            return { outcome: grpc.status[code]!, note: what };
          },
        });
        context.diagnostic(describeSummary(summary));
        assertNoFailures(summary, FILE);
        assert.ok((summary.outcomes.OK ?? 0) > 0 && (summary.outcomes.INVALID_ARGUMENT ?? 0) > 0, describeSummary(summary));
      } finally {
        client.close();
      }
    });

    it('OTLP/gRPC: broken length-prefixed frames on a raw HTTP/2 stream', { timeout: 60_000 }, async (context) => {
      const session = http2.connect(`http://127.0.0.1:${server().server.grpcPort}`);
      session.on('error', () => {}); // a refused stream may end the session; the loop reconnects below
      let current = session;
      try {
        const summary = await fuzzLoop({
          name: 'otlp-grpc-frames',
          maxCases: 400,
          seconds: 1,
          concurrency: 2,
          generate: (rng) => {
            const message = mutateBytes(rng, rng.pick(protoBodies));
            const prefix = Buffer.alloc(5);
            prefix[0] = rng.chance(0.3) ? rng.pick([1, 2, 0x80, 0xff]) : 0;
            prefix.writeUInt32BE(
              rng.pick([message.length, message.length + 1, Math.max(0, message.length - 1), 0, 0xffffffff, 1 << 30]),
              1,
            );
            const frame = Buffer.concat([prefix, message]);
            const encoding = rng.chance(0.2) ? rng.pick(['gzip', 'deflate', 'snappy', 'identity']) : undefined;
            return { frame: rng.chance(0.2) ? frame.subarray(0, rng.int(frame.length)) : frame, encoding };
          },
          run: ({ frame, encoding }) =>
            new Promise((resolve) => {
              if (current.closed || current.destroyed) {
                current = http2.connect(`http://127.0.0.1:${server().server.grpcPort}`);
                current.on('error', () => {});
              }
              const headers: http2.OutgoingHttpHeaders = {
                ':method': 'POST',
                ':path': EXPORT_PATH,
                'content-type': 'application/grpc',
                te: 'trailers',
                authorization: `Bearer ${key}`,
              };
              if (encoding) headers['grpc-encoding'] = encoding;
              const stream = current.request(headers);
              let status: string | undefined;
              const timer = setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), 5000);
              stream.on('response', (response) => {
                if (response['grpc-status'] !== undefined) status = String(response['grpc-status']);
              });
              stream.on('trailers', (trailers) => {
                status = String(trailers['grpc-status']);
              });
              stream.on('data', () => {});
              stream.on('error', () => {});
              stream.on('close', () => {
                clearTimeout(timer);
                // A frame that never completes may be cut off by the client's timer: the server waited, as it should.
                resolve({ outcome: status === undefined ? 'no status' : `grpc ${status}` });
              });
              stream.end(frame);
            }),
        });
        context.diagnostic(describeSummary(summary));
        assertNoFailures(summary, FILE);
      } finally {
        current.close();
        session.close();
      }
    });

    it('is still up and storing spans after the fuzzing', async () => {
      assert.equal((await fetch(`${server().url}/healthz`)).status, 200);
      const traceId = newTraceId();
      const response = await fetch(`${server().url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${key}` },
        body: protobufExport([{ traceId, name: 'after the fuzz' }]),
      });
      assert.equal(response.status, 200);
      const stored = await storedSpans(server().server.database, [traceId]);
      assert.deepEqual(
        [...stored.values()].map((span) => span.name),
        ['after the fuzz'],
      );
    });
  },
  AUTH_ENV,
);
