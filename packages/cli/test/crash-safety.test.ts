/**
 * Crash safety (docs/deployment.md, "Shutdown and crashes"): the process is killed with SIGKILL
 * in the middle of sustained traffic, restarted on the same database, and every span or record
 * whose request was answered 200 must be there. Requests in flight at the kill may or may not
 * be stored; their clients got no answer and retry.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { DIALECTS } from '@sightline/common/testing';
import { loadMonitorConfig, withSpaces } from '@sightline/monitor';
import { grpcExport, httpExport, logRecord, runLoadFor, startLoad, traceClient } from './helpers/load.js';
import { createService, type ServiceProcess } from './helpers/processes.js';

/** Load after the first acknowledgements, before the kill. */
const LOAD_MS = 500;

/** Ids in `acked` that are not in `stored`. */
function missing(acked: string[], stored: string[]): string[] {
  const present = new Set(stored);
  return acked.filter((id) => !present.has(id));
}

/** Kills the process with SIGKILL and checks that it died of it. */
async function kill(running: ServiceProcess): Promise<void> {
  running.child.kill('SIGKILL');
  assert.equal((await running.exited).signal, 'SIGKILL');
}

/** Stops the restarted process the normal way. */
async function stop(running: ServiceProcess): Promise<void> {
  running.child.kill('SIGTERM');
  const exit = await running.exited;
  assert.equal(exit.code, 0, `the restarted process stopped with ${JSON.stringify(exit)}: ${running.stderr()}`);
}

for (const dialect of DIALECTS) {
  describe(`SIGKILL under load, then restart [${dialect}]`, () => {
    it('sightline serve: every span acknowledged over OTLP/HTTP or OTLP/gRPC is stored', async () => {
      const service = await createService('serve', dialect);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
      const clients = Array.from({ length: 3 }, () => traceClient(service.grpcPort));
      let running: ServiceProcess | undefined;
      try {
        running = await service.start();
        const httpLoad = startLoad(5, () => httpExport(agent, service.url, 40));
        const grpcLoad = startLoad(clients.length, (worker) => grpcExport(clients[worker]!, 40));
        await runLoadFor([httpLoad, grpcLoad], 100, LOAD_MS);
        await kill(running);
        const [httpTally, grpcTally] = await Promise.all([httpLoad.stop(), grpcLoad.stop()]);
        assert.ok(httpTally.acked.length > 0 && grpcTally.acked.length > 0, 'both transports had spans acknowledged before the kill');

        running = await service.start();
        const after = httpExport(agent, service.url, 3);
        assert.equal((await after.send()).detail, 'http 200', 'the restarted server takes spans again');
        const stored = await service.column('spans', 'span_id');
        assert.deepEqual(missing(httpTally.acked, stored), [], 'no span acknowledged over OTLP/HTTP is lost');
        assert.deepEqual(missing(grpcTally.acked, stored), [], 'no span acknowledged over OTLP/gRPC is lost');
        assert.deepEqual(missing(after.ids, stored), []);
        await stop(running);
      } finally {
        if (running && running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
        agent.destroy();
        for (const client of clients) client.close();
        await service.drop();
      }
    });

    it('sightline monitor serve: every record acknowledged on /v1/log is stored', async () => {
      const service = await createService('monitor', dialect);
      const space = await withSpaces(loadMonitorConfig(service.env), (spaces) => spaces.createSpace('crash'));
      const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
      let running: ServiceProcess | undefined;
      try {
        running = await service.start();
        const load = startLoad(8, () => logRecord(agent, service.url, space.api_key, space.space_key));
        await runLoadFor([load], 20, LOAD_MS);
        await kill(running);
        const tally = await load.stop();
        assert.ok(tally.acked.length > 0, 'records were acknowledged before the kill');

        running = await service.start();
        const after = logRecord(agent, service.url, space.api_key, space.space_key);
        assert.equal((await after.send()).detail, 'http 200', 'the restarted service takes records again');
        const stored = await service.column('monitor_records', 'prediction_id');
        assert.deepEqual(missing(tally.acked, stored), [], 'no acknowledged record is lost');
        assert.deepEqual(missing(after.ids, stored), []);
        await stop(running);
      } finally {
        if (running && running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
        agent.destroy();
        await service.drop();
      }
    });
  });
}
