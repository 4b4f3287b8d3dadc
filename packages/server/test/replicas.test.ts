/**
 * Two replicas on one PostgreSQL database (docs/deployment.md, "Several replicas"): two servers
 * in this process, each with its own credential cache, rate-limit store, span queue and writer,
 * as two `sightline serve` processes have; they share nothing but the database. A session opened
 * on one works on the other; a revocation, deletion or role change made on one is refused by the
 * other within the 5-second credential cache; the login lockout and the per-client limits hold
 * across both; and both ingest into one project at once with no span lost or stored twice.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { context, trace } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { CREDENTIAL_CACHE_MS } from '../src/auth/authenticator.js';
import type { RunningServer } from '../src/server.js';
import {
  ACCESS_COOKIE,
  ApiClient,
  AUTH_ENV,
  anonymous,
  bearerClient,
  CookieJar,
  createActiveUser,
  createPlainUser,
  createSystemKey,
  createUserKey,
  expectStatus,
  loginRequest,
  REFRESH_COOKIE,
  sessionOf,
  setupDefaultAdmin,
  unique,
  type TestUser,
} from './helpers/auth.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from './helpers/databases.js';
import { makeExporter } from './helpers/otel.js';
import { newSpanId, newTraceId, protobufExport, type SimpleSpan } from './helpers/otlp-bodies.js';
import { startServerOn } from './helpers/server.js';
import { rawExportClient, type RawExportClient } from './helpers/otlp-grpc.js';

/** ExportResultCode.SUCCESS of @opentelemetry/core. */
const EXPORT_SUCCESS = 0;

/** The credential cache's bound plus room for the polling request itself on a loaded machine. */
const WITHIN_MS = CREDENTIAL_CACHE_MS + 750;

/**
 * Polls `refused` every 100 ms until it holds; fails once `withinMs` has passed since `since`.
 * Resolves to the milliseconds it took.
 */
async function refusedWithin(what: string, since: number, withinMs: number, refused: () => Promise<boolean>): Promise<number> {
  for (;;) {
    if (await refused()) return Date.now() - since;
    const elapsed = Date.now() - since;
    assert.ok(elapsed <= withinMs, `${what}: still accepted ${elapsed} ms after the change on the other replica`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A member with a session on A, made with one password hash and one login (passwords are
 * scrypt, the costly part of these tests). Its password is still the one the admin set, so the
 * session may only read GET /v1/user, refresh and log out: enough to follow a session around.
 */
async function memberWithSession(admin: TestUser, base: string): Promise<{ id: string; email: string; password: string; jar: CookieJar }> {
  const password = `pw-${unique('member')}`;
  const user = await createPlainUser(sessionOf(base, admin), { password });
  const jar = new CookieJar();
  expectStatus(await loginRequest(base, user.email, password, jar), 204, 'login');
  return { id: user.id, email: user.email, password, jar };
}

/** A made-up client address, sent as X-Forwarded-For (both replicas trust the loopback proxy). */
let lastAddress = 0;
const clientAddress = () => `203.0.113.${++lastAddress}`;

/** Sends one export over gRPC without retries; resolves to the status code (0 = OK). */
function grpcExport(client: RawExportClient, body: Buffer, key: string): Promise<number> {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${key}`);
  return new Promise((resolve) => client.Export(body, metadata, (error) => resolve(error?.code ?? grpc.status.OK)));
}

/** Sends one export over HTTP without retries; resolves to the status code. */
async function httpExport(baseUrl: string, body: Buffer, key: string): Promise<number> {
  const response = await fetch(`${baseUrl}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${key}` },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

/** Spans recorded by the OpenTelemetry SDK, children of the given traces (round robin), for real exporters. */
async function sdkSpans(traceIds: string[], count: number, project: string): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': project }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('replicas-test');
  for (let index = 0; index < count; index++) {
    const parent = trace.setSpanContext(context.active(), {
      traceId: traceIds[index % traceIds.length]!,
      spanId: newSpanId(),
      traceFlags: 1,
    });
    tracer.startSpan(`sdk span ${index}`, { startTime: [1_763_769_600 + index, 0] }, parent).end([1_763_769_601 + index, 0]);
  }
  await provider.forceFlush();
  const spans = [...memory.getFinishedSpans()];
  await provider.shutdown();
  assert.equal(spans.length, count);
  return spans;
}

// PostgreSQL only: replicas share one PostgreSQL database; SQLite serves one machine (docs/deployment.md).
for (const _ of DIALECTS.filter((dialect) => dialect === 'postgres')) {
  describe('two replicas on one PostgreSQL database', () => {
    let database: TestDatabase;
    const replicas: RunningServer[] = [];
    let a: string;
    let b: string;
    let admin: TestUser;

    before(async () => {
      database = await createTestDatabase('postgres');
      // The per-client limit stays on: the tests that send many logins or resets claim their own
      // client address (X-Forwarded-For from the trusted loopback "balancer"), the rest stay far below 30.
      const env = { SERVICE_ENABLE_AUTH: 'true', SERVICE_SECRET: AUTH_ENV.SERVICE_SECRET!, SERVICE_TRUSTED_PROXIES: 'loopback' };
      // Both start together, as replicas of one deployment do: one migrates, one creates the default admin.
      replicas.push(...(await Promise.all([startServerOn(database, env), startServerOn(database, env)])));
      [a, b] = replicas.map((replica) => replica.url) as [string, string];
      admin = await setupDefaultAdmin(a);
    });

    after(async () => {
      await Promise.all(replicas.map((replica) => replica.close()));
      await database?.drop();
    });

    describe('changes made on one replica reach the other within 5 s', { concurrency: true }, () => {
      it('a session opened on A works on B; refreshed on B it works on A; logged out on A, B refuses it', async () => {
        const user = await memberWithSession(admin, a);
        expectStatus(await sessionOf(b, user).get('/v1/user'), 200, 'the session from A on B');
        const firstRefresh = user.jar.get(REFRESH_COOKIE);
        expectStatus(await sessionOf(b, user).post('/auth/refresh'), 204, 'refresh on B');
        assert.notEqual(user.jar.get(REFRESH_COOKIE), firstRefresh, 'B rotated the refresh token');
        expectStatus(await sessionOf(a, user).get('/v1/user'), 200, "B's new access token on A");
        expectStatus(await sessionOf(b, user).get('/v1/user'), 200, 'B caches it as valid');
        const access = user.jar.get(ACCESS_COOKIE)!;
        expectStatus(await sessionOf(a, user).post('/auth/logout'), 204, 'logout on A');
        const since = Date.now();
        expectStatus(await bearerClient(a, access).get('/v1/user'), 401, 'A refuses at once');
        await refusedWithin('the logged-out session on B', since, WITHIN_MS, async () => {
          return (await bearerClient(b, access).get('/v1/user')).status === 401;
        });
      });

      it('a refresh token rotated on A and replayed on B revokes the session on both', async () => {
        const user = await memberWithSession(admin, a);
        const stale = user.jar.clone();
        expectStatus(await sessionOf(a, user).post('/auth/refresh'), 204, 'refresh on A');
        expectStatus(await sessionOf(a, user).get('/v1/user'), 200, 'A caches the new access token');
        expectStatus(await new ApiClient(b, { jar: stale }).post('/auth/refresh'), 401, 'the replaced refresh token on B');
        const since = Date.now();
        expectStatus(await sessionOf(b, user).get('/v1/user'), 401, 'B refuses the session at once');
        await refusedWithin('the revoked session on A', since, WITHIN_MS, async () => {
          return (await sessionOf(a, user).get('/v1/user')).status === 401;
        });
        expectStatus(await sessionOf(a, user).post('/auth/refresh'), 401, 'nor can it be refreshed');
      });

      it('a user API key deleted on A is refused by B', async () => {
        const key = await createUserKey(sessionOf(a, admin));
        expectStatus(await bearerClient(b, key.key).get('/v1/projects'), 200, 'B caches the key as valid');
        expectStatus(await sessionOf(a, admin).delete(`/v1/user/api_keys/${key.id}`), 204);
        const since = Date.now();
        expectStatus(await bearerClient(a, key.key).get('/v1/projects'), 401, 'A refuses at once');
        await refusedWithin('the deleted user key on B', since, WITHIN_MS, async () => {
          return (await bearerClient(b, key.key).get('/v1/projects')).status === 401;
        });
      });

      it('a system API key deleted on A is refused by B, over HTTP and gRPC ingest', async () => {
        const key = await createSystemKey(sessionOf(a, admin));
        const body = protobufExport([{ traceId: newTraceId() }], { 'service.name': unique('revoked') });
        const client = rawExportClient('trace', `127.0.0.1:${replicas[1]!.grpcPort}`);
        try {
          assert.equal(await grpcExport(client, body, key.key), grpc.status.OK, 'B accepts the key over gRPC');
          assert.equal(await httpExport(b, body, key.key), 200, 'and over HTTP');
          expectStatus(await sessionOf(a, admin).delete(`/v1/system/api_keys/${key.id}`), 204);
          const since = Date.now();
          await refusedWithin('the deleted system key on B (gRPC)', since, WITHIN_MS, async () => {
            return (await grpcExport(client, body, key.key)) === grpc.status.UNAUTHENTICATED;
          });
          assert.equal(await httpExport(b, body, key.key), 401, 'and over HTTP');
        } finally {
          client.close();
        }
      });

      it('a user deleted on A loses its session and its key on B', async () => {
        const user = await createActiveUser(a, sessionOf(a, admin), 'member');
        expectStatus(await sessionOf(b, user).get('/v1/user'), 200, 'B caches the session');
        expectStatus(await bearerClient(b, user.key).get('/v1/user'), 200, 'and the key');
        expectStatus(await sessionOf(a, admin).delete(`/v1/users/${user.id}`), 204);
        const since = Date.now();
        await Promise.all([
          refusedWithin("the deleted user's session on B", since, WITHIN_MS, async () => {
            return (await sessionOf(b, user).get('/v1/user')).status === 401;
          }),
          refusedWithin("the deleted user's key on B", since, WITHIN_MS, async () => {
            return (await bearerClient(b, user.key).get('/v1/user')).status === 401;
          }),
        ]);
        expectStatus(await loginRequest(b, user.email, user.password), 401, 'nor can it log in on B');
      });

      it('a role changed on A applies on B: an admin made member loses the admin routes there', async () => {
        const user = await createActiveUser(a, sessionOf(a, admin), 'admin');
        const onB = bearerClient(b, user.key);
        expectStatus(await onB.get('/v1/users'), 200, 'B caches the admin');
        expectStatus(await sessionOf(a, admin).patch(`/v1/users/${user.id}`, { role: 'member' }), 200);
        const since = Date.now();
        expectStatus(await bearerClient(a, user.key).get('/v1/users'), 403, 'A refuses at once');
        await refusedWithin('the demoted admin on B', since, WITHIN_MS, async () => (await onB.get('/v1/users')).status === 403);
        expectStatus(await onB.get('/v1/user'), 200, 'the key itself still works, as a member');
      });
    });

    it('the login lockout holds across replicas: failures on A and B add up, also when sent at once', async () => {
      // From an address of its own, so that these 19 logins leave the per-client limit of the others alone.
      const from = { 'x-forwarded-for': clientAddress() };
      const loginFrom = (base: string, email: string, password: string) => anonymous(base).post('/auth/login', { email, password }, from);
      const password = `pw-${unique('locked')}`;
      const user = await createPlainUser(sessionOf(a, admin), { password });
      for (let attempt = 1; attempt <= 5; attempt++) {
        expectStatus(await loginFrom(attempt % 2 ? a : b, user.email, 'wrong password'), 401, `failure ${attempt}`);
      }
      expectStatus(await loginFrom(a, user.email, password), 429, 'the right password on A while locked');
      expectStatus(await loginFrom(b, user.email, password), 429, 'and on B');

      const target = await createPlainUser(sessionOf(a, admin), { password });
      const guesses = await Promise.all(Array.from({ length: 12 }, (_, index) => loginFrom(index % 2 ? a : b, target.email, 'wrong')));
      const statuses = guesses.map((response) => response.status);
      assert.equal(statuses.filter((status) => status === 401).length, 5, `exactly 5 guesses were checked: ${statuses.join(' ')}`);
      assert.equal(statuses.filter((status) => status === 429).length, 7, `the others were refused: ${statuses.join(' ')}`);
    });

    it('the per-client limit of the auth routes holds across replicas, per forwarded client address', async () => {
      // The two password reset routes: they share the store, and its bucket per route and client, with
      // /auth/login (limited on one server in auth/login-protection.test.ts) but answer without hashing a password.
      for (const path of ['/auth/password-reset', '/auth/password-reset-email']) {
        const client = clientAddress();
        const send = (base: string, from = client) => anonymous(base).post(path, {}, { 'x-forwarded-for': from });
        const first30 = await Promise.all(Array.from({ length: 30 }, (_, index) => send(index % 2 ? a : b)));
        const statuses = new Set(first30.map((response) => response.status));
        assert.ok(!statuses.has(429), `${path}: none of the first 30 requests is limited: ${[...statuses].join(' ')}`);
        for (const base of [a, b]) {
          const limited = expectStatus(await send(base), 429, `${path}: the 31st request from ${client} on ${base === a ? 'A' : 'B'}`);
          const retryAfter = Number(limited.headers.get('retry-after'));
          assert.ok(retryAfter >= 1 && retryAfter <= 60, `${path}: Retry-After ${retryAfter} within 1..60`);
        }
        assert.notEqual((await send(b, clientAddress())).status, 429, `${path}: another client address is not limited`);
      }
      // The balancer's own requests (no X-Forwarded-For) count as its own address.
      assert.notEqual((await anonymous(a).post('/auth/password-reset', {})).status, 429, 'the loopback address is not limited');
    });

    it('both replicas ingest into one new project at once, over HTTP and gRPC: every span stored once', async () => {
      const key = (await createSystemKey(sessionOf(a, admin))).key;
      const project = unique('replicated');
      // 12 traces whose spans arrive through all four channels, so traces are upserted by both replicas at once.
      const traceIds = Array.from({ length: 12 }, () => newTraceId());
      const exports: SimpleSpan[][] = Array.from({ length: 40 }, (_, exportIndex) =>
        Array.from({ length: 50 }, (_, index) => ({
          traceId: traceIds[(exportIndex * 50 + index) % traceIds.length],
          spanId: newSpanId(),
          start: String(1_763_769_600_000_000_000n + BigInt(exportIndex * 50 + index)),
        })),
      );
      const bodies = exports.map((spans) => protobufExport(spans, { 'service.name': project }));
      const grpcClients = replicas.map((replica) => rawExportClient('trace', `127.0.0.1:${replica.grpcPort}`));
      // Real OTLP exporters as well: the SDK's protobuf exporter to A, its gRPC exporter to B.
      const sdk = await sdkSpans(traceIds, 200, project);
      const headers = { authorization: `Bearer ${key}` };
      const exporters = [
        makeExporter('http-protobuf', a, `http://127.0.0.1:${replicas[1]!.grpcPort}`, headers),
        makeExporter('grpc', a, `http://127.0.0.1:${replicas[1]!.grpcPort}`, headers),
      ];
      try {
        const channels = [
          (body: Buffer) => httpExport(a, body, key),
          (body: Buffer) => grpcExport(grpcClients[0]!, body, key),
          (body: Buffer) => httpExport(b, body, key),
          (body: Buffer) => grpcExport(grpcClients[1]!, body, key),
        ];
        const [statuses, sdkResults] = await Promise.all([
          Promise.all(bodies.map((body, index) => channels[index % channels.length]!(body))),
          Promise.all(
            exporters.map(
              (exporter, index) =>
                new Promise<number>((resolve) =>
                  exporter.export(sdk.slice(index * 100, index * 100 + 100), (result) => resolve(result.code)),
                ),
            ),
          ),
        ]);
        // 200 from HTTP and 0 (OK) from gRPC, each at the first try: no request of either replica failed.
        assert.deepEqual(
          statuses.map((status, index) => (index % 2 === 0 ? status === 200 : status === grpc.status.OK)),
          statuses.map(() => true),
          `every export accepted at once: ${statuses.join(' ')}`,
        );
        assert.deepEqual(sdkResults, [EXPORT_SUCCESS, EXPORT_SUCCESS], 'the SDK exporters succeeded');
        // Re-sending a tenth of the exports to the other replica stores nothing twice.
        const resent = await Promise.all(bodies.slice(0, 4).map((body, index) => channels[(index + 2) % channels.length]!(body)));
        assert.deepEqual(resent, [200, grpc.status.OK, 200, grpc.status.OK], 're-sent exports are accepted');
      } finally {
        for (const client of grpcClients) client.close();
        await Promise.all(exporters.map((exporter) => exporter.shutdown()));
      }

      const expected = new Set([...exports.flat().map((span) => span.spanId!), ...sdk.map((span) => span.spanContext().spanId)]);
      const db = replicas[0]!.database.db;
      const stored = await db
        .selectFrom('spans')
        .innerJoin('projects', 'projects.id', 'spans.project_id')
        .select('spans.span_id')
        .where('projects.name', '=', project)
        .execute();
      const storedIds = stored.map((row) => row.span_id);
      assert.equal(storedIds.length, expected.size, `${expected.size} spans sent, ${storedIds.length} stored`);
      assert.equal(new Set(storedIds).size, storedIds.length, 'no span stored twice');
      assert.deepEqual(
        storedIds.filter((id) => !expected.has(id)),
        [],
        'only the spans sent',
      );
      const projects = await db.selectFrom('projects').select('id').where('name', '=', project).execute();
      assert.equal(projects.length, 1, 'the project exists once');
      const traces = await db.selectFrom('traces').select('trace_id').where('project_id', '=', projects[0]!.id).execute();
      assert.deepEqual(traces.map((row) => row.trace_id).sort(), [...traceIds].sort(), 'each trace exists once');
    });

    it('a project deleted on A is recreated by the next export B accepts', async () => {
      const key = (await createSystemKey(sessionOf(a, admin))).key;
      const project = unique('deleted-elsewhere');
      const body = () => protobufExport([{ traceId: newTraceId() }], { 'service.name': project });
      assert.equal(await httpExport(b, body(), key), 200, 'B creates the project and caches its id');
      expectStatus(await sessionOf(a, admin).delete(`/v1/projects/${project}`), 204, 'A deletes it');
      // B's writer still holds the old id: its first write fails the foreign key and drops the cache
      // (503 with Retry-After, which exporters retry); the retry recreates the project (docs/api.md).
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 2 && statuses.at(-1) !== 200; attempt++) statuses.push(await httpExport(b, body(), key));
      assert.equal(statuses.at(-1), 200, `B accepts the export within two tries: ${statuses.join(' ')}`);
      assert.ok(
        statuses.every((status) => status === 200 || status === 503),
        `only 200 and 503: ${statuses.join(' ')}`,
      );
      const listed = expectStatus(await bearerClient(a, key).get(`/v1/projects/${project}`), 200, 'the project exists again');
      assert.equal(listed.body.data.name, project);
    });
  });
}
