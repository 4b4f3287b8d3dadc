/**
 * Crash safety and SIGTERM drain (docs/deployment.md, "Shutdown and crashes"), on the built
 * `sightline serve` and `sightline monitor serve` in child processes, on both databases.
 *
 * Each service is first killed with SIGKILL under sustained traffic and restarted on the same
 * database: every id answered 200 must be stored. The restarted process then gets SIGTERM under
 * the same traffic, with requests caught half-sent: it stops taking connections, answers those
 * requests 200/OK, stores exactly the acknowledged ids and exits 0 within the bound. A drain that
 * cannot finish exits 1 once the bound has passed. (One process lifetime serves both halves:
 * each start of the server costs about a second of CPU.)
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '@sightline/common/testing';
import { loadMonitorConfig, withSpaces } from '@sightline/monitor';
import { connectionRefused, halfSentGrpc, halfSentHttp } from './helpers/in-flight.js';
import {
  grpcExport,
  httpExport,
  logBody,
  logRecord,
  runLoadFor,
  spanExport,
  startLoad,
  type Tally,
  type TraceClient,
  traceClient,
} from './helpers/load.js';
import { createService, type Service, type ServiceProcess } from './helpers/processes.js';

/** Load after the first acknowledgements, before the signal. */
const LOAD_MS = 400;
const BOUND_MS = 10_000;

/** Ids in `acked` that are not in `stored`. */
function missing(acked: string[], stored: Iterable<string>): string[] {
  const present = new Set(stored);
  return acked.filter((id) => !present.has(id));
}

const alive = (running: ServiceProcess | undefined): running is ServiceProcess =>
  running !== undefined && running.child.exitCode === null && running.child.signalCode === null;

/** True once new connections are refused (polled until `capMs`): the process handles the signal at its own pace. */
async function refusedWithin(url: string, capMs: number): Promise<boolean> {
  const deadline = Date.now() + capMs;
  while (!(await connectionRefused(url))) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/**
 * What a client may see while the server drains: an answer (200, or 503 for a request that
 * arrived after the drain began), a refused connection, or a reset of a kept-alive connection
 * the server closed while idle (the request never reached it).
 */
const DRAIN_OUTCOMES =
  /^(http 200|http 503( without Retry-After)?|grpc OK|grpc UNAVAILABLE|grpc RESOURCE_EXHAUSTED|ECONNREFUSED|ECONNRESET \(reused socket\)|socket hang up \(reused socket\))$/;

/** Checks the tally against what the database holds after the drain: exactly the acknowledged ids. */
function assertExactlyAcknowledgedStored(tally: Tally, stored: Set<string>, what: string): void {
  for (const detail of tally.details.keys()) assert.match(detail, DRAIN_OUTCOMES, `${what}: unexpected outcome`);
  assert.deepEqual(
    tally.acked.filter((id) => !stored.has(id)),
    [],
    `${what}: every acknowledged id is stored`,
  );
  // A request that got no 200 was never processed: had it been, the drain would have answered it.
  assert.deepEqual(
    [...tally.refused, ...tally.errored].filter((id) => stored.has(id)),
    [],
    `${what}: nothing unacknowledged is stored`,
  );
}

async function exitWithin(running: ServiceProcess, signalledAt: number): Promise<{ code: number | null; ms: number }> {
  const exit = await running.exited;
  return { code: exit.code, ms: Date.now() - signalledAt };
}

for (const dialect of DIALECTS) {
  describe(`sightline serve: SIGKILL, restart, SIGTERM [${dialect}]`, () => {
    let service: Service;
    let running: ServiceProcess | undefined;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const clients: TraceClient[] = [];
    // A fresh set of gRPC channels per phase: a channel that saw the kill backs off before reconnecting.
    const channels = (count: number) => {
      const fresh = Array.from({ length: count }, () => traceClient(service.grpcPort));
      clients.push(...fresh);
      return fresh;
    };
    before(async () => {
      service = await createService('serve', dialect);
      running = await service.start();
    });
    after(async () => {
      if (alive(running)) running.child.kill('SIGKILL');
      agent.destroy();
      for (const client of clients) client.close();
      await service?.drop();
    });

    it('SIGKILL during OTLP/HTTP and OTLP/gRPC ingest: after a restart every acknowledged span is stored', async () => {
      const grpc = channels(3);
      const httpLoad = startLoad(5, () => httpExport(agent, service.url, 40));
      const grpcLoad = startLoad(grpc.length, (worker) => grpcExport(grpc[worker]!, 40));
      await runLoadFor([httpLoad, grpcLoad], 100, LOAD_MS);
      running!.child.kill('SIGKILL');
      assert.equal((await running!.exited).signal, 'SIGKILL');
      const [httpTally, grpcTally] = await Promise.all([httpLoad.stop(), grpcLoad.stop()]);
      assert.ok(httpTally.acked.length > 0 && grpcTally.acked.length > 0, 'both transports had spans acknowledged before the kill');

      running = await service.start();
      const stored = await service.column('spans', 'span_id');
      assert.deepEqual(missing(httpTally.acked, stored), [], 'no span acknowledged over OTLP/HTTP is lost');
      assert.deepEqual(missing(grpcTally.acked, stored), [], 'no span acknowledged over OTLP/gRPC is lost');
    });

    it('SIGTERM under load: in-flight requests answered, exactly the acknowledged spans stored, exit 0 within the bound', async () => {
      assert.ok(alive(running), 'the restarted server runs');
      const grpc = channels(3);
      const httpLoad = startLoad(5, () => httpExport(agent, service.url, 40));
      const grpcLoad = startLoad(grpc.length, (worker) => grpcExport(grpc[worker]!, 40));
      await runLoadFor([httpLoad, grpcLoad], 100, LOAD_MS);
      const slowHttp = spanExport(20);
      const slowGrpc = spanExport(20);
      const inFlightHttp = await halfSentHttp(service.url, '/v1/traces', 'application/x-protobuf', slowHttp.body);
      const inFlightGrpc = await halfSentGrpc(service.grpcPort, slowGrpc.body);

      const signalledAt = Date.now();
      running.child.kill('SIGTERM');
      assert.equal(await refusedWithin(service.url, 5_000), true, 'no new HTTP connection is accepted while draining');
      const [httpAnswer, grpcStatus] = await Promise.all([inFlightHttp.finish(), inFlightGrpc.finish()]);
      assert.equal(httpAnswer.status, 200, 'the HTTP request in flight at SIGTERM is answered 200');
      assert.equal(grpcStatus, '0', 'the gRPC call in flight at SIGTERM is answered OK');
      const exit = await exitWithin(running, signalledAt);
      assert.equal(exit.code, 0, running.stderr());
      assert.ok(exit.ms < BOUND_MS, `exited after ${exit.ms} ms, within SERVICE_SHUTDOWN_TIMEOUT_SECONDS`);

      const [httpTally, grpcTally] = await Promise.all([httpLoad.stop(), grpcLoad.stop()]);
      assert.ok(httpTally.acked.length > 0 && grpcTally.acked.length > 0, 'both transports had spans acknowledged');
      const stored = new Set(await service.column('spans', 'span_id'));
      assertExactlyAcknowledgedStored(httpTally, stored, 'OTLP/HTTP');
      assertExactlyAcknowledgedStored(grpcTally, stored, 'OTLP/gRPC');
      assert.deepEqual(missing([...slowHttp.ids, ...slowGrpc.ids], stored), [], 'the spans of the in-flight requests are stored');
    });
  });

  describe(`sightline monitor serve: SIGKILL, restart, SIGTERM [${dialect}]`, () => {
    let service: Service;
    let running: ServiceProcess | undefined;
    let space: { api_key: string; space_key: string };
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const logLoad = () => startLoad(8, () => logRecord(agent, service.url, space.api_key, space.space_key));
    before(async () => {
      service = await createService('monitor', dialect);
      space = await withSpaces(loadMonitorConfig(service.env), (spaces) => spaces.createSpace('crash and drain'));
      running = await service.start();
    });
    after(async () => {
      if (alive(running)) running.child.kill('SIGKILL');
      agent.destroy();
      await service?.drop();
    });

    it('SIGKILL during /v1/log traffic: after a restart every acknowledged record is stored', async () => {
      const load = logLoad();
      await runLoadFor([load], 20, LOAD_MS);
      running!.child.kill('SIGKILL');
      assert.equal((await running!.exited).signal, 'SIGKILL');
      const tally = await load.stop();
      assert.ok(tally.acked.length > 0, 'records were acknowledged before the kill');

      running = await service.start();
      const stored = await service.column('monitor_records', 'prediction_id');
      assert.deepEqual(missing(tally.acked, stored), [], 'no acknowledged record is lost');
    });

    it('SIGTERM under load: the in-flight request answered, exactly the acknowledged records stored, exit 0 within the bound', async () => {
      assert.ok(alive(running), 'the restarted service runs');
      const load = logLoad();
      await runLoadFor([load], 20, LOAD_MS);
      const slowId = randomUUID();
      const inFlight = await halfSentHttp(service.url, '/v1/log', 'application/json', logBody(space.space_key, slowId), {
        authorization: space.api_key,
      });

      const signalledAt = Date.now();
      running.child.kill('SIGTERM');
      assert.equal(await refusedWithin(service.url, 5_000), true, 'no new connection is accepted while draining');
      assert.equal((await inFlight.finish()).status, 200, 'the request in flight at SIGTERM is answered 200');
      const exit = await exitWithin(running, signalledAt);
      assert.equal(exit.code, 0, running.stderr());
      assert.ok(exit.ms < BOUND_MS, `exited after ${exit.ms} ms, within MONITOR_SHUTDOWN_TIMEOUT_SECONDS`);

      const tally = await load.stop();
      assert.ok(tally.acked.length > 0, 'records were acknowledged');
      const stored = new Set(await service.column('monitor_records', 'prediction_id'));
      assertExactlyAcknowledgedStored(tally, stored, '/v1/log');
      assert.ok(stored.has(slowId), 'the record of the in-flight request is stored');
    });
  });
}

// The bound is the process's, the same on both databases: SQLite is enough.
describe('SIGTERM drain that cannot finish', () => {
  for (const [kind, variable] of [
    ['serve', 'SERVICE_SHUTDOWN_TIMEOUT_SECONDS'],
    ['monitor', 'MONITOR_SHUTDOWN_TIMEOUT_SECONDS'],
  ] as const) {
    it(`${kind}: exits 1 once ${variable} has passed`, async () => {
      const service = await createService(kind, 'sqlite', { [variable]: '1' });
      let running: ServiceProcess | undefined;
      try {
        running = await service.start();
        // A request whose body never completes keeps the drain waiting.
        const stuck = await halfSentHttp(
          service.url,
          kind === 'serve' ? '/v1/traces' : '/v1/log',
          'application/json',
          Buffer.alloc(64, 0x20),
        );
        const signalledAt = Date.now();
        running.child.kill('SIGTERM');
        const exit = await exitWithin(running, signalledAt);
        stuck.abandon();
        assert.equal(exit.code, 1);
        assert.ok(exit.ms >= 900 && exit.ms < 9_000, `exited after ${exit.ms} ms, about 1 s`);
        assert.match(running.stderr(), new RegExp(`not stopped after 1 s \\(${variable}\\)`));
      } finally {
        if (running && running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
        await service.drop();
      }
    });
  }
});
