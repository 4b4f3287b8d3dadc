/**
 * Overload (docs/ingest.md, "Overload"): many concurrent large exports against a small budget of
 * bytes in flight (SERVICE_INGEST_MAX_INFLIGHT_BYTES) and a small queue. Every request is
 * answered 200, or 503 with Retry-After (RESOURCE_EXHAUSTED on gRPC) before its body is decoded;
 * nothing acknowledged is lost, nothing refused is stored, and the server takes spans again as
 * soon as the load stops. The server's peak RSS is read as a loose sanity check only.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { DIALECTS } from '@sightline/common/testing';
import { halfSentHttp } from './helpers/in-flight.js';
import { grpcExport, httpExport, runLoadFor, spanExport, startLoad, traceClient } from './helpers/load.js';
import { createService, type ServiceProcess } from './helpers/processes.js';

const LOAD_MS = 1_000;
/** About 100 KB per export: 50 spans of 2 KB of attribute text. */
const SPANS = 50;
const PADDING = 2_000;

/** One OTLP/HTTP protobuf POST on its own connection, with Content-Length or chunked. */
function postOnce(url: string, body: Buffer, chunked: boolean): Promise<{ status: number; retryAfter: string | null }> {
  return new Promise((resolve, reject) => {
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/x-protobuf' };
    if (!chunked) headers['content-length'] = body.length;
    const request = http.request(`${url}/v1/traces`, { method: 'POST', agent: false, headers }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, retryAfter: (response.headers['retry-after'] as string) ?? null }),
      );
    });
    request.on('error', reject);
    if (!chunked) return request.end(body);
    // Several writes without a length go out as chunked transfer encoding.
    for (let offset = 0; offset < body.length; offset += 16 * 1024) request.write(body.subarray(offset, offset + 16 * 1024));
    request.end();
  });
}

for (const dialect of DIALECTS) {
  describe(`overload against a small in-flight budget [${dialect}]`, () => {
    it('answers only 200 or 503 with Retry-After, loses nothing acknowledged, recovers at once; a body that does not fit is refused', async (t) => {
      const service = await createService('serve', dialect, {
        SERVICE_INGEST_MAX_INFLIGHT_BYTES: String(512 * 1024),
        SERVICE_INGEST_MAX_QUEUED_SPANS: '1000',
      });
      const agent = new http.Agent({ keepAlive: true, maxSockets: 40 });
      const clients = Array.from({ length: 8 }, () => traceClient(service.grpcPort));
      let running: ServiceProcess | undefined;
      try {
        running = await service.start();
        const httpLoad = startLoad(40, () => httpExport(agent, service.url, SPANS, PADDING));
        const grpcLoad = startLoad(clients.length, (worker) => grpcExport(clients[worker]!, SPANS, PADDING));
        await runLoadFor([httpLoad, grpcLoad], 1, LOAD_MS);
        const [httpTally, grpcTally] = await Promise.all([httpLoad.stop(), grpcLoad.stop()]);
        const peakRssMb = running.peakRssMb();
        t.diagnostic(
          `server peak RSS ${peakRssMb.toFixed(0)} MB; HTTP ${JSON.stringify([...httpTally.details])}; gRPC ${JSON.stringify([...grpcTally.details])}`,
        );

        assert.deepEqual(
          [...httpTally.details.keys()].filter((detail) => detail !== 'http 200' && detail !== 'http 503'),
          [],
          'OTLP/HTTP answers only 200, or 503 with Retry-After',
        );
        assert.deepEqual(
          [...grpcTally.details.keys()].filter((detail) => detail !== 'grpc OK' && detail !== 'grpc RESOURCE_EXHAUSTED'),
          [],
          'OTLP/gRPC answers only OK or RESOURCE_EXHAUSTED',
        );
        assert.ok(httpTally.acked.length > 0 && grpcTally.acked.length > 0, 'spans got through on both transports');
        assert.ok(httpTally.refused.length > 0, 'the budget refused some exports');

        // Recovery: the load is gone, so the next export is taken at once.
        const after = httpExport(agent, service.url, SPANS, PADDING);
        assert.equal((await after.send()).detail, 'http 200');
        const stored = new Set(await service.column('spans', 'span_id'));
        const acked = [...httpTally.acked, ...grpcTally.acked, ...after.ids];
        assert.deepEqual(
          acked.filter((id) => !stored.has(id)),
          [],
          'every acknowledged span is stored',
        );
        assert.deepEqual(
          [...httpTally.refused, ...grpcTally.refused].filter((id) => stored.has(id)),
          [],
          'a refused export stored nothing',
        );
        // Loose: the bodies in flight are bounded, so the heap cannot follow the number of clients.
        assert.ok(peakRssMb < 400, `server peak RSS ${peakRssMb.toFixed(0)} MB`);

        // Step by step: a body in flight holds 400 KB of the 512 KiB budget until it is answered.
        const holding = spanExport(100, 4_000);
        const inFlight = await halfSentHttp(service.url, '/v1/traces', 'application/x-protobuf', holding.body);
        const other = spanExport(50, 4_000);
        const declared = await postOnce(service.url, other.body, false);
        assert.deepEqual(declared, { status: 503, retryAfter: '1' }, 'a body that does not fit is refused by its Content-Length');
        const streamed = await postOnce(service.url, other.body, true);
        assert.deepEqual(streamed, { status: 503, retryAfter: '1' }, 'a chunked body is refused once it outgrows the budget');
        assert.equal((await inFlight.finish()).status, 200);
        assert.deepEqual(await postOnce(service.url, other.body, true), { status: 200, retryAfter: null }, 'alone, it is taken');
        const storedAfter = new Set(await service.column('spans', 'span_id'));
        assert.ok([...holding.ids, ...other.ids].every((id) => storedAfter.has(id)));

        running.child.kill('SIGTERM');
        assert.equal((await running.exited).code, 0);
      } finally {
        if (running && running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
        agent.destroy();
        for (const client of clients) client.close();
        await service.drop();
      }
    });
  });
}
