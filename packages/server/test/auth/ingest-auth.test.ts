/**
 * The ingest gate with authentication on, through the three real OTLP exporters (HTTP protobuf,
 * HTTP JSON, gRPC): valid system and user keys are stored; a missing, wrong, expired or deleted
 * key is refused (HTTP 401, gRPC UNAUTHENTICATED) and nothing is stored.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, it } from 'node:test';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { context, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { describeEachDialect } from '../helpers/server.js';
import { EXPORTER_KINDS, makeExporter, type ExporterKind } from '../helpers/otel.js';
import { jsonExport, protobufExport, newSpanId, newTraceId } from '../helpers/otlp-bodies.js';
import { storedSpans } from '../helpers/stored.js';
import {
  AUTH_ENV,
  anonymous,
  bearerClient,
  createActiveUser,
  createSystemKey,
  createUserKey,
  expectStatus,
  oneSpanExport,
  sessionOf,
  setupDefaultAdmin,
  type TestUser,
} from '../helpers/auth.js';

/** ExportResultCode of @opentelemetry/core. */
const SUCCESS = 0;
const FAILED = 1;

/** Finished spans of a fresh two-span trace, recorded in memory (nothing is sent yet). */
async function recordSpans(label: string): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': `ingest-auth-${label}` }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('ingest-auth');
  const root = tracer.startSpan(`${label} root`);
  tracer.startSpan(`${label} child`, {}, trace.setSpan(context.active(), root)).end();
  root.end();
  await provider.forceFlush();
  const spans = [...memory.getFinishedSpans()];
  await provider.shutdown();
  assert.equal(spans.length, 2);
  return spans;
}

/** Sends the spans once through the exporter and returns the SDK's export result. */
async function exportOnce(exporter: SpanExporter, spans: ReadableSpan[]): Promise<{ code: number; error?: Error & { code?: number } }> {
  try {
    return await new Promise((resolve) => exporter.export(spans, (result) => resolve(result)));
  } finally {
    await exporter.shutdown();
  }
}

describeEachDialect(
  'ingest gate with API keys',
  (server) => {
    let admin: TestUser;
    const keys = {} as Record<'system' | 'user' | 'expired' | 'deletedUser' | 'deletedSystem', string>;
    let expiresAt = 0;

    before(async () => {
      const { url } = server();
      admin = await setupDefaultAdmin(url);
      const root = sessionOf(url, admin);
      keys.system = (await createSystemKey(root)).key;
      const member = await createActiveUser(url, root, 'member');
      keys.user = member.key;
      const deletedUser = await createUserKey(sessionOf(url, member));
      const deletedSystem = await createSystemKey(root);
      keys.deletedUser = deletedUser.key;
      keys.deletedSystem = deletedSystem.key;
      // Expires a couple of seconds from now; the refused tests wait for it.
      expiresAt = Date.now() + 3000;
      keys.expired = (await createSystemKey(root, { expires_at: new Date(expiresAt).toISOString() })).key;
      // Every key works before it expires or is deleted (and its answer may now be cached).
      for (const key of [keys.expired, keys.system, keys.user, keys.deletedUser, keys.deletedSystem]) {
        const { body } = oneSpanExport('warm-up');
        expectStatus(await bearerClient(url, key).post('/v1/traces', body), 200, 'key before expiry or deletion');
      }
      expectStatus(await sessionOf(url, member).delete(`/v1/user/api_keys/${deletedUser.id}`), 204);
      expectStatus(await root.delete(`/v1/system/api_keys/${deletedSystem.id}`), 204);
    });

    const waitForExpiry = async () => {
      const left = expiresAt + 250 - Date.now();
      if (left > 0) await sleep(left);
    };

    const exporterWith = (kind: ExporterKind, key: string | undefined) => {
      const { url, grpcUrl } = server();
      return makeExporter(kind, url, grpcUrl, key === undefined ? {} : { authorization: `Bearer ${key}` });
    };

    describe('accepted', () => {
      for (const kind of EXPORTER_KINDS) {
        for (const which of ['system', 'user'] as const) {
          it(`${kind}: a valid ${which} key → spans stored`, async () => {
            const spans = await recordSpans(`${kind}-${which}`);
            const result = await exportOnce(exporterWith(kind, keys[which]), spans);
            assert.equal(result.code, SUCCESS, `export succeeded: ${result.error?.message ?? ''}`);
            const stored = await storedSpans(server().server.database, [spans[0]!.spanContext().traceId]);
            assert.equal(stored.size, 2);
            for (const span of spans) assert.equal(stored.get(span.spanContext().spanId)?.name, span.name);
          });
        }
      }
    });

    describe('refused', () => {
      const cases: [string, () => string | undefined][] = [
        ['no key', () => undefined],
        ['an unknown key', () => `sk-sl-${'x'.repeat(43)}`],
        ['a key with one character changed', () => `${keys.system.slice(0, -1)}${keys.system.endsWith('A') ? 'B' : 'A'}`],
        ['a deleted user key', () => keys.deletedUser],
        ['a deleted system key', () => keys.deletedSystem],
        ['an expired key', () => keys.expired],
      ];
      for (const [label, key] of cases) {
        for (const kind of EXPORTER_KINDS) {
          it(`${kind}: ${label} → ${kind === 'grpc' ? 'UNAUTHENTICATED' : '401'}, nothing stored`, async () => {
            if (key() === keys.expired) await waitForExpiry();
            const spans = await recordSpans(`${kind}-refused`);
            const result = await exportOnce(exporterWith(kind, key()), spans);
            assert.equal(result.code, FAILED, 'the export failed');
            assert.equal(result.error?.code, kind === 'grpc' ? GrpcStatus.UNAUTHENTICATED : 401, `error: ${result.error?.message}`);
            const stored = await storedSpans(server().server.database, [spans[0]!.spanContext().traceId]);
            assert.equal(stored.size, 0, 'nothing stored');
          });
        }
      }

      it('HTTP status codes, raw: protobuf and JSON bodies, any header-name case', async () => {
        await waitForExpiry();
        const { url, server: running } = server();
        const send = async (key: string | undefined, contentType: 'json' | 'protobuf', headerName = 'authorization') => {
          const traceId = newTraceId();
          const spanId = newSpanId();
          const headers: Record<string, string> = {
            'content-type': contentType === 'json' ? 'application/json' : 'application/x-protobuf',
          };
          if (key !== undefined) headers[headerName] = `Bearer ${key}`;
          const spans = [{ traceId, spanId }];
          const body =
            contentType === 'json'
              ? JSON.stringify(jsonExport(spans, { 'service.name': 'raw' }))
              : protobufExport(spans, { 'service.name': 'raw' });
          const response = await fetch(`${url}/v1/traces`, { method: 'POST', headers, body });
          const stored = (await storedSpans(running.database, [traceId])).has(spanId);
          return { status: response.status, stored, response };
        };
        for (const contentType of ['json', 'protobuf'] as const) {
          for (const [key, expected] of [
            [keys.system, 200],
            [keys.user, 200],
            [undefined, 401],
            [`sk-sl-${'y'.repeat(43)}`, 401],
            [keys.expired, 401],
            [keys.deletedUser, 401],
            [keys.deletedSystem, 401],
          ] as const) {
            const { status, stored, response } = await send(key, contentType);
            assert.equal(status, expected, `${contentType} with ${key?.slice(0, 12) ?? 'no key'}`);
            assert.equal(stored, expected === 200, 'stored only when accepted');
            if (expected === 401) {
              assert.equal(response.headers.get('www-authenticate'), 'Bearer');
              assert.equal(typeof ((await response.json()) as { detail: unknown }).detail, 'string');
            }
          }
          assert.equal((await send(keys.system, contentType, 'Authorization')).status, 200, 'capitalised header name');
          assert.equal((await send(keys.system, contentType, 'AUTHORIZATION')).status, 200, 'upper-case header name');
        }
        // Only the Bearer scheme carries a key.
        expectStatus(await anonymous(url).post('/v1/traces', oneSpanExport().body, { authorization: 'Basic Zm9vOmJhcg==' }), 401);
      });
    });
  },
  AUTH_ENV,
);
